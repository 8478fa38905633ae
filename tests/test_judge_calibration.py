"""The judges' calibration (benchmarks/judge_calibration.py): every judge is measured on its
labelled set, the figures in docs/methodology.md are the script's output, and a broken set is
refused with a message that names the problem."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "judge_calibration.py"
JUDGES = ["murder mystery RP", "murder mystery SPC", "murder mystery CMD", "Avalon reasonableness",
          "Avalon following"]


def _module():
    spec = importlib.util.spec_from_file_location("judge_calibration", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
    spec.loader.exec_module(module)
    return module


calibration = _module()


def test_every_judge_is_measured_on_ten_to_twenty_labelled_items():
    rows = calibration.calibrate()
    assert [r.judge for r in rows] == JUDGES
    for row in rows:
        assert 10 <= row.n <= 20, row
        assert row.spearman is not None and -1 <= row.spearman <= 1
        assert 0 <= row.exact <= 1 and (row.within_one is None) == (row.scale == "yes/no")
        assert row.within_one is None or row.exact <= row.within_one
        # every judge ranks the texts at least somewhat as the labels do
        assert row.spearman > 0.5, row


def test_the_methodology_page_shows_the_scripts_figures(capsys):
    assert calibration.main([]) == 0
    table = capsys.readouterr().out.strip()
    page = (ROOT / "docs" / "methodology.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- judge-calibration:start[^\n]*-->\n(.*?)\n<!-- judge-calibration:end -->", page, re.DOTALL)
    assert shown and shown.group(1).strip() == table
    assert calibration.main(["--json"]) == 0
    assert [r["judge"] for r in json.loads(capsys.readouterr().out)] == JUDGES


def test_spearman_handles_ties_and_refuses_unequal_lists():
    assert calibration.spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert calibration.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert calibration.spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(0.866, abs=1e-3)
    assert calibration.spearman([1, 1, 1], [1, 2, 3]) is None
    with pytest.raises(ValueError, match="equal lists"):
        calibration.spearman([1, 2], [1])


@pytest.mark.parametrize("change,problem", [
    (lambda d: d["mystery"]["rp"][0].update(label=11), "less than or equal to 10"),
    (lambda d: d["mystery"]["spc"][0].update(clue=9), "names clue 9; Clara Marsh has 5"),
    (lambda d: d["avalon"]["following"][0].update(chosen=["I999"]), "not in the catalogue: ['I999']"),
    (lambda d: d["mystery"].pop("cmd"), "cmd"),
])
def test_a_broken_set_is_refused_naming_the_problem(tmp_path: Path, capsys, change, problem):
    data = json.loads(calibration.DATA.read_text(encoding="utf-8"))
    change(data)
    broken = tmp_path / "set.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    assert calibration.main(["--data", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("judge_calibration: ") and problem in err
    assert calibration.main(["--data", str(tmp_path / "missing.json")]) == 2
    assert "cannot read the calibration set" in capsys.readouterr().err
