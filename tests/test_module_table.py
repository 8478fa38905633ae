"""docs/architecture.md's module table is generated from the modules' docstrings: it lists every
module of `sdk/` and `space_app/`, and a module without a docstring is named."""

from __future__ import annotations

import pytest

from space_app.module_table import PAGE, ROOT, MissingDocstring, main, modules, render, summary


def test_the_table_lists_every_module_as_its_docstring_says():
    page = PAGE.read_text(encoding="utf-8")
    assert render(page) == page, "docs/architecture.md is out of date: run python -m space_app.module_table"
    assert main(["--check"]) == 0
    listed = {p for p in modules()}
    on_disk = {p for package in ("sdk", "space_app") for p in (ROOT / package).rglob("*.py")}
    assert listed == on_disk and len(listed) > 100
    assert "| `registry.py` | The game registry" in page  # one row: the kernel's registry


def test_a_module_without_a_docstring_is_named(tmp_path):
    lone = tmp_path / "lone.py"
    lone.write_text("VALUE = 1\n", encoding="utf-8")
    with pytest.raises(MissingDocstring, match=r"lone\.py has no docstring"):
        summary(lone)
    documented = tmp_path / "documented.py"
    documented.write_text('"""First | paragraph\nwraps.\n\nSecond paragraph."""\n', encoding="utf-8")
    assert summary(documented) == "First \\| paragraph wraps."


def test_a_stale_table_is_found_out(tmp_path, monkeypatch):
    page = PAGE.read_text(encoding="utf-8")
    target = tmp_path / "architecture.md"
    target.write_text(page.replace("| `registry.py` | The game registry", "| `registry.py` | Old words", 1),
                      encoding="utf-8")
    monkeypatch.setattr("space_app.module_table.PAGE", target)
    assert main(["--check"]) == 1
    assert main([]) == 0 and main(["--check"]) == 0


def test_one_command_checks_every_generated_page():
    from space_app import regenerate

    assert regenerate.main(["--check"]) == 0
