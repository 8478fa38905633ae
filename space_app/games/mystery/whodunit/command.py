"""python -m space_app import-whodunit DIR OUT [--image-kind KIND] [--id ID]

DIR is one WhodunitBench release script folder (holding env_p_all.json and img/) or a folder of
them. Each script is written to OUT/<id>/ (script.json and its images) with its report beside it,
OUT/<id>.whodunit-report.json, and checked with the project's validator. Other files in a script
folder (older drafts, logs) are not read.

Exit codes: 0 every script imported; 1 some script refused (not playable), not written (its
folder exists and is not an earlier import) or not valid as written; 2 DIR holds no release
script, or OUT cannot be written."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import unicodedata
from pathlib import Path

from ....safe_text import terminal_text
from ..scripts.script import ImageKind
from ..scripts.validate import SCRIPT_FILE, validate_script
from .convert import RELEASE_FILE, Conversion, convert
from .parse import same_text
from .report import ImportReport

__all__ = ["REPORT_SUFFIX", "import_release", "main", "release_folders", "script_id_for"]

REPORT_SUFFIX = ".whodunit-report.json"
_IDENT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def release_folders(path: Path) -> list[Path]:
    """`path` when it holds env_p_all.json, else its sub-folders that do (in name order)."""
    if (path / RELEASE_FILE).is_file():
        return [path]
    if not path.is_dir():
        return []
    return sorted(p for p in path.iterdir() if p.is_dir() and (p / RELEASE_FILE).is_file())


def script_id_for(name: str) -> str:
    """An id from a folder name: its ASCII letters and digits when it has three or more, else
    "whodunit-" and a hash of the name (release folders are mostly named in Chinese)."""
    slug = re.sub(r"[^a-z0-9]+", "-", unicodedata.normalize("NFKC", name).casefold()).strip("-")[:48].strip("-")
    if sum(c.isalnum() for c in slug) >= 3:
        return slug
    return "whodunit-" + hashlib.sha256(name.encode()).hexdigest()[:8]


def _write(conversion: Conversion, out: Path) -> Path:
    """Write the script folder through a temporary one, replacing an earlier import of the same
    id but never a folder of anything else."""
    script = conversion.script
    assert script is not None
    target = out / script["id"]
    if target.exists() and not _earlier_import(target):
        raise FileExistsError(f"{target} exists and is not an imported script; not overwritten")
    tmp = out / f".{script['id']}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, data in conversion.images.items():
        (tmp / name).write_bytes(data)
    (tmp / SCRIPT_FILE).write_text(json.dumps(script, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    if target.exists():
        shutil.rmtree(target)
    tmp.rename(target)
    return target


def _earlier_import(folder: Path) -> bool:
    try:
        data = json.loads((folder / SCRIPT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("imported"), dict)


def import_release(path: str | Path, out: str | Path, *, image_kind: ImageKind = "media-rich",
                   script_id: str | None = None) -> list[ImportReport]:
    """Import every release script under `path` into `out`; one report per script (also written
    as OUT/<id>.whodunit-report.json). Raises FileNotFoundError when `path` holds none."""
    path, out = Path(path), Path(out)
    folders = release_folders(path)
    if not folders:
        raise FileNotFoundError(f"{path}: no {RELEASE_FILE} in it or in its sub-folders")
    if script_id is not None and len(folders) > 1:
        raise ValueError("--id names one script; DIR holds several")
    out.mkdir(parents=True, exist_ok=True)
    base = path if folders != [path] else path.parent
    reports, used = [], set()
    for folder in folders:
        sid = script_id or script_id_for(folder.name)
        if sid in used:  # two folder names that give the same id
            sid = f"{sid[:54]}-{hashlib.sha256(folder.name.encode()).hexdigest()[:8]}"
        used.add(sid)
        source = (folder / RELEASE_FILE).relative_to(base).as_posix()
        conversion = convert(folder, sid, source=source, image_kind=image_kind)
        report = conversion.report
        _ignored_files(folder, report)
        if conversion.script is not None:
            try:
                target = _write(conversion, out)
            except OSError as exc:
                report.status, report.refused = "not-written", str(exc)
            else:
                report.folder = str(target)
                problems = validate_script(target)
                if problems:
                    report.status, report.problems = "invalid", [str(p) for p in problems]
        reports.append(report)
    _same_titles(reports)
    for report in reports:  # written once every title is known
        (out / f"{report.script_id}{REPORT_SUFFIX}").write_text(report.model_dump_json(indent=2) + "\n",
                                                                encoding="utf-8")
    return reports


def _same_titles(reports: list[ImportReport]) -> None:
    """Name the scripts that share a title (the release has two called the same): players and
    tables tell scripts apart by title, so each such report lists the others."""
    by_title: dict[str, list[ImportReport]] = {}
    for report in reports:
        if report.title:
            by_title.setdefault(same_text(report.title), []).append(report)
    for group in by_title.values():
        for report in group if len(group) > 1 else []:
            report.same_title = [r.source for r in group if r is not report]
            report.note("ju_name", f"title {report.title!r} is shared with {', '.join(report.same_title)}; the "
                                   f"scripts are told apart by their ids ({', '.join(r.script_id for r in group)})")


def _ignored_files(folder: Path, report: ImportReport) -> None:
    others = sorted(p.name for p in folder.iterdir() if p.name not in (RELEASE_FILE, "img"))
    if others:
        report.note("", f"not read (older drafts, logs): {', '.join(others)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m space_app import-whodunit", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", metavar="DIR", help="a release script folder (env_p_all.json, img/) or a folder "
                                                   "of them")
    parser.add_argument("out", metavar="OUT", help="where the script folders and their reports are written")
    parser.add_argument("--image-kind", choices=("media-rich", "text-rich"), default="media-rich",
                        help="the kind every image clue gets (the release does not say; default media-rich)")
    parser.add_argument("--id", dest="script_id", help="the script id, when DIR is one script folder "
                                                       "(default: from the folder name)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse has already printed
        return exc.code if isinstance(exc.code, int) else 2
    if args.script_id is not None and not _IDENT.match(args.script_id):
        print("error: --id must be 1-64 lower-case letters, digits, '-' or '_'", file=sys.stderr)
        return 2
    try:
        reports = import_release(args.dir, args.out, image_kind=args.image_kind, script_id=args.script_id)
    except (FileNotFoundError, ValueError) as exc:
        print(terminal_text(f"error: {exc}"), file=sys.stderr)
        return 2
    except OSError as exc:
        print(terminal_text(f"error: cannot write {args.out}: {exc.strerror or exc}"), file=sys.stderr)
        return 2
    for report in reports:  # the release's texts are strangers' text: no terminal escapes
        print(terminal_text(report.summary()), end="")
    imported = sum(r.status == "imported" for r in reports)
    print(f"{len(reports)} script(s): {imported} imported, {len(reports) - imported} not "
          f"(reports: {Path(args.out) / ('<id>' + REPORT_SUFFIX)})")
    return 0 if imported == len(reports) else 1


if __name__ == "__main__":
    raise SystemExit(main())
