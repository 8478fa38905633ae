"""A murder-mystery script played where it lies: `--script` takes a script folder's path as well
as a shipped id, the character count follows the script (a 4-character script plays with 4
seats), the match replays from the stored path, and a folder holding a symbolic link anywhere
is refused, naming the link. Only folders the operator names are read: a path in a visitor's
settings is refused without the disk being looked at."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from space_app.cli import main as cli_main
from space_app.core import get_game
from space_app.games.mystery.catalog import SCRIPT_DIRS_ENV, catalog, image_path
from space_app.store import Store

SHIPPED = catalog().folders["alder-playhouse"]  # a 4-character script


def folder_copy(tmp_path: Path, script_id: str = "alder-copy") -> Path:
    """The shipped 4-character script copied outside the content folder, under its own id."""
    folder = tmp_path / "scripts" / script_id
    shutil.copytree(SHIPPED, folder)
    data = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    data["id"] = script_id
    (folder / "script.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return folder


def stored(db: Path) -> list[dict]:
    store = Store(str(db))
    try:
        return [m for m in (store.get_match(row["id"]) for row in store.list_matches(limit=50)) if m]
    finally:
        store.close()


def test_a_tournament_on_a_shipped_four_character_script_seats_four(tmp_path, capsys):
    db = tmp_path / "arena.db"
    code = cli_main(["--db", str(db), "tournament", "mystery", "--script", "alder-playhouse", "--games", "2",
                     "--seats", "house:mystery-naive", "house:mystery-random", "--settings", '{"rounds": 1}'])
    assert code == 0, capsys.readouterr().err
    assert {len(m["seats"]) for m in stored(db)} == {4}


def test_a_script_folder_plays_where_it_lies_and_replays_from_its_stored_path(tmp_path, capsys):
    folder = folder_copy(tmp_path)
    db = tmp_path / "arena.db"
    code = cli_main(["--db", str(db), "tournament", "mystery", "--script", str(folder), "--games", "2",
                     "--seats", "house:mystery-naive", "house:mystery-random", "--settings", '{"rounds": 1}'])
    assert code == 0, capsys.readouterr().err
    played = stored(db)
    assert len(played) == 2 and {len(m["seats"]) for m in played} == {4}
    assert {m["settings"]["script"] for m in played} == {str(folder.resolve())}
    # its image clues resolve to the folder's own files, as a shipped script's do
    clue = json.loads((folder / "script.json").read_text(encoding="utf-8"))["image_clues"][0]["file"]
    assert image_path(f"mystery/alder-copy/{clue}") == folder.resolve() / clue
    assert image_path("mystery/alder-copy/script.json") is None  # only declared image clues
    capsys.readouterr()
    assert cli_main(["--db", str(db), "verify", "--all"]) == 0
    assert "2 matches: 2 identical" in capsys.readouterr().out


@pytest.mark.parametrize("where", ["img", "top", "folder"])
def test_a_script_folder_with_a_symlink_anywhere_is_refused_naming_the_link(tmp_path, capsys, where):
    folder = folder_copy(tmp_path, f"linked-{where}")
    outside = tmp_path / "secret.txt"
    outside.write_text("not a script file", encoding="utf-8")
    if where == "img":
        (folder / "img").mkdir()
        link = folder / "img" / "leak.png"
        link.symlink_to(outside)
    elif where == "top":
        link = folder / "notes.txt"
        link.symlink_to(outside)
    else:  # the folder itself is a link to a real script folder
        link = tmp_path / "scripts" / "alias"
        link.symlink_to(folder, target_is_directory=True)
        folder = link
    db = tmp_path / "arena.db"
    code = cli_main(["--db", str(db), "match", "mystery", "--script", str(folder)])
    err = capsys.readouterr().err
    assert code == 2
    assert "symbolic link" in err and str(link.name) in err
    assert not db.exists() or not stored(db)
    # the checker names it too
    assert cli_main(["validate-scripts", str(folder)]) != 0
    out = capsys.readouterr()
    assert "symbolic link" in out.out + out.err


def test_an_unknown_script_or_missing_folder_is_named(tmp_path, capsys):
    assert cli_main(["--db", str(tmp_path / "a.db"), "match", "mystery", "--script", "no-such-script"]) == 2
    assert "unknown murder-mystery script 'no-such-script'" in capsys.readouterr().err
    missing = tmp_path / "nowhere" / "script"
    assert cli_main(["--db", str(tmp_path / "a.db"), "match", "mystery", "--script", str(missing)]) == 2
    assert "no murder-mystery script folder at" in capsys.readouterr().err


def test_a_folder_path_from_anywhere_but_the_operator_is_refused_without_looking_at_the_disk(tmp_path, monkeypatch):
    """A visitor's settings (the API's, the Play tab's) may name a path: only folders the operator
    named (--script PATH on the command line, or under ARENA_SCRIPT_DIRS) are read."""
    monkeypatch.delenv(SCRIPT_DIRS_ENV, raising=False)
    folder = folder_copy(tmp_path, "alder-private")
    messages = []
    for path in (folder, tmp_path / "no-such-folder", Path("/etc")):
        with pytest.raises(ValidationError) as err:
            get_game("mystery").make(4, 0, {"script": str(path)})
        message = err.value.errors()[0]["msg"]
        messages.append(message.replace(str(path), "PATH"))
        assert "is not one this arena may read" in message
    assert len(set(messages)) == 1  # an existing folder and a missing one read the same
    monkeypatch.setenv(SCRIPT_DIRS_ENV, str(tmp_path / "scripts"))
    game = get_game("mystery").make(4, 0, {"script": str(folder)})
    assert len(game.seats) == 4 and game.settings.script == str(folder.resolve())


NAIVE, RANDOM = "house:mystery-naive", "house:mystery-random"


def test_bench_asks_a_script_folders_questions_where_it_lies(tmp_path, capsys):
    folder = folder_copy(tmp_path, "alder-bench")
    db = tmp_path / "arena.db"
    code = cli_main(["--db", str(db), "bench", str(folder), "--agent", NAIVE, "--limit", "4", "--json"])
    assert code == 0, capsys.readouterr().err
    scores = json.loads(capsys.readouterr().out)
    assert scores["suite"] == "mystery-alder-bench" and scores["answered"] == 4
    store = Store(str(db))
    try:  # stored under the folder script's own id, apart from the shipped script's answers
        assert len(store.answers("mystery-alder-bench", NAIVE)) == 4
        assert store.answers("mystery-alder-playhouse", NAIVE) == []
    finally:
        store.close()


def test_bench_refuses_a_folder_no_game_reads_and_a_folder_with_a_link(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli_main(["--db", str(tmp_path / "a.db"), "bench", str(empty), "--agent", NAIVE]) == 2
    assert "holds no suite any game reads" in capsys.readouterr().err
    folder = folder_copy(tmp_path, "alder-linked")
    (folder / "notes.txt").symlink_to(tmp_path / "empty")
    assert cli_main(["--db", str(tmp_path / "a.db"), "bench", str(folder), "--agent", NAIVE]) == 2
    err = capsys.readouterr().err
    assert "symbolic link" in err and "notes.txt" in err


def test_bench_refuses_a_folder_whose_script_id_is_a_shipped_ones(tmp_path, capsys):
    folder = folder_copy(tmp_path, "alder-playhouse")  # the shipped script's own id, outside the content
    assert cli_main(["--db", str(tmp_path / "a.db"), "bench", str(folder), "--agent", NAIVE]) == 2
    assert "which a shipped suite has" in capsys.readouterr().err


def test_coe_and_coe_matrix_play_a_script_folder_with_its_character_count(tmp_path, capsys, monkeypatch):
    folder = folder_copy(tmp_path, "alder-coe")
    db = str(tmp_path / "coe.db")
    monkeypatch.setenv("ARENA_DB", db)
    code = cli_main(["--db", db, "coe", "--agent", NAIVE, "--scripts", str(folder), "--matches", "1",
                     "--rounds", "1", "--quiz-limit", "1", "--murderer", RANDOM, "--json"])
    assert code == 0, capsys.readouterr().err
    report = json.loads(capsys.readouterr().out)
    assert report["scripts"] == [str(folder.resolve())] and report["played"] == 1
    scores = {s["key"]: s for s in report["scores"]}
    assert scores["lsu"]["n"] == 1 and len(scores["rp"]["matches"]) == 1
    assert scores["spc"]["n"] > 0  # the folder script's key clues are read from the folder
    code = cli_main(["--db", db, "coe-matrix", "--agents", f"{NAIVE},{RANDOM}", "--scripts", str(folder),
                     "--matches", "1", "--rounds", "1", "--json"])
    assert code == 0, capsys.readouterr().err
    cells = json.loads(capsys.readouterr().out)["cells"]
    assert len(cells) == 4 and all(len(c["matches"]) == 1 for c in cells)
    played = stored(Path(db))
    assert len(played) == 5 and {len(m["seats"]) for m in played} == {4}
    assert {m["settings"]["script"] for m in played} == {str(folder.resolve())}


def bomb_png(width: int = 20_000, height: int = 20_000) -> bytes:
    """A PNG a few dozen bytes long whose header declares a huge canvas (a decompression bomb)."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
            + chunk(b"IEND", b""))


@pytest.mark.parametrize("side", [8_000, 20_000])  # under Pillow's own bound (ours refuses it), and above
def test_an_image_clue_declaring_a_huge_canvas_is_refused_before_decoding(tmp_path, capsys, side):
    folder = folder_copy(tmp_path, f"alder-bomb-{side}")
    clue = json.loads((folder / "script.json").read_text(encoding="utf-8"))["image_clues"][0]["file"]
    (folder / clue).write_bytes(bomb_png(side, side))
    assert cli_main(["validate-scripts", str(folder)]) != 0
    out = capsys.readouterr()
    assert "25-megapixel limit" in out.out + out.err and clue in out.out + out.err
    if side == 8_000:
        assert "8000×8000 pixels" in out.out
    assert cli_main(["--db", str(tmp_path / "a.db"), "match", "mystery", "--script", str(folder)]) == 2
    assert "megapixel limit" in capsys.readouterr().err
    # an image read for an agent or a thumbnail is refused the same way, not decoded
    from space_app.images import data_url

    assert data_url(folder / clue) is None
    # and the WhodunitBench importer refuses it as an image clue, saying why
    from space_app.games.mystery.whodunit.media import read_image

    with pytest.raises(ValueError, match="megapixel limit"):
        read_image(folder / clue)


def test_a_script_file_nested_too_deeply_is_refused_with_a_message(tmp_path, capsys):
    folder = folder_copy(tmp_path, "alder-deep")
    (folder / "script.json").write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    assert cli_main(["validate-scripts", str(folder)]) != 0
    out = capsys.readouterr()
    assert "JSON nested too deeply" in out.out + out.err and "Traceback" not in out.out + out.err
    assert cli_main(["--db", str(tmp_path / "a.db"), "match", "mystery", "--script", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "JSON nested too deeply" in err and "Traceback" not in err
