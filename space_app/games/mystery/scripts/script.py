"""The murder-mystery script format: one folder per script, holding `script.json` (these
models) and its image files. Documented in docs/script-format.md; the JSON schema in
`script.schema.json` is written from these models (`python -m space_app.games.mystery.scripts.script`).

The models check shapes (required fields, types, answer letters, hop counts); checks across
fields (the murderer is a role, image files exist, names are unique...) live in validate.py,
so that one pass reports every problem with its own message."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

SCHEMA_FILE = Path(__file__).with_name("script.schema.json")
SCHEMA_ID = "https://deduction-arena/schemas/mystery-script.json"

# Text that must say something; never trimmed or cut, so a 50,000-character script stays intact.
Text = Annotated[str, StringConstraints(min_length=1, pattern=r"\S")]
Name = Annotated[str, StringConstraints(min_length=1, max_length=80, pattern=r"\S")]
Ident = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")]
Letter = Literal["A", "B", "C", "D"]
Language = Literal["en", "zh"]
ImageKind = Literal["text-rich", "media-rich"]
LETTERS: tuple[Letter, ...] = ("A", "B", "C", "D")
CHAIN_KEY = re.compile(r"^(p|[1-9][0-9]?-step)$")  # "p" = directly perceived, "n-step" = n inferences away
MAX_HOPS = 5  # the deepest level the project's own scripts are written to
MAX_IMPORTED_HOPS = 20  # a release may go deeper; past this a depth is surely a typo
UNKNOWN_DEPTH = "unknown"  # an imported MMR question whose source does not say its depth


class _Strict(BaseModel):
    # a misspelt key is a problem to report, not a field to drop silently
    model_config = ConfigDict(extra="forbid")


class Role(_Strict):
    name: Name = Field(description="the character's name; unique in the script")
    # optional only in an imported script (validate.py enforces it for the project's own)
    introduction: Text | None = Field(default=None,
                                      description="public: what every player is told about this character")
    script: Text = Field(description="private: the character's own story of the evening (several paragraphs)")
    murderer: bool = Field(description="true for exactly one role")
    clues: list[Text] = Field(default_factory=list, description="clue statements contained in this role's script")


class TextClue(_Strict):
    id: Ident
    title: Text
    text: Text = Field(description="public: what the clue says")


class ImageClue(_Strict):
    id: Ident
    file: Text = Field(description="image file inside the script folder, e.g. floor_plan.png")
    caption: Text = Field(description="what the image shows, for players who cannot see images")
    kind: ImageKind = Field(description="text-rich: note, letter, receipt, timetable; media-rich: plan, map, photo")


class Truth(_Strict):
    murderer: Name
    motive: Text | None = None
    method: Text | None = None
    account: Text | None = Field(default=None, description="imported scripts: motive and method as one free text, "
                                                           "where the source does not tell them apart")

    def told(self) -> dict[str, str]:
        """The solution as the game reports it: the fields that are set."""
        return self.model_dump(exclude_none=True)


class Tasks(_Strict):
    murderer: Text | None = Field(default=None, description="the murderer's goal in play")
    others: Text | None = Field(default=None, description="every other role's goal in play")


class Options(_Strict):
    """Two to four options, A and B first: the project's own scripts give four; a released
    script may give two or three (validate.py checks that none is skipped)."""

    A: Text
    B: Text
    C: Text | None = None
    D: Text | None = None

    def items(self) -> list[tuple[Letter, str]]:
        """The options given, in letter order."""
        return [(letter, text) for letter in LETTERS if (text := getattr(self, letter)) is not None]

    def letters(self) -> list[Letter]:
        return [letter for letter, _ in self.items()]


class Question(_Strict):
    question: Text
    options: Options
    answer: Letter


class LSUQuestion(Question):
    """Long-script understanding: a question on one role's own private script."""

    role: Name


class ImageQuestion(Question):
    """TIU (text-rich image understanding) or MIU (media-rich): a question on one image clue."""

    # None only in an imported script whose questions are asked about its whole set of images
    image: Ident | None = Field(default=None, description="id of an image clue")


class MMRQuestion(Question):
    """Multi-modal multi-hop reasoning: built from the reasoning chain."""

    # validate.py holds the project's own scripts to 1..5; "unknown" and deeper levels only
    # come from a release whose notation does not give (or exceeds) them
    hops: int | Literal["unknown"] = Field(
        description="the reasoning depth: 1 for a directly perceived fact, one more per inference (1..5); "
                    "\"unknown\" only in an imported script")

    @field_validator("hops", mode="before")
    @classmethod
    def _depth(cls, value: Any) -> Any:
        # one message for both kinds of value (a union would report one error per member)
        if value == UNKNOWN_DEPTH:
            return value
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_IMPORTED_HOPS:
            raise ValueError(f"must be a depth from 1 to {MAX_IMPORTED_HOPS} (the format's own scripts: 1 to "
                             f"{MAX_HOPS}) or 'unknown'")
        return value


class Questions(_Strict):
    lsu: list[LSUQuestion] = Field(default_factory=list)
    tiu: list[ImageQuestion] = Field(default_factory=list)
    miu: list[ImageQuestion] = Field(default_factory=list)
    mmr: list[MMRQuestion] = Field(default_factory=list)


class Imported(_Strict):
    """Marks a script converted from another release: validate.py relaxes the rules that only the
    project's own scripts are written to (see "Imported scripts" in docs/script-format.md)."""

    source: Literal["whodunitbench"] = Field(description="the release format it was converted from")
    file: Text = Field(description="the release file, relative to the folder the import was given")


class Script(_Strict):
    id: Ident = Field(description="same as the folder name")
    title: Text
    language: Language
    background: Text | None = Field(default=None,
                                    description="public: the setting and the crime as everyone knows it")
    roles: list[Role] = Field(min_length=1)
    text_clues: list[TextClue] = Field(default_factory=list)
    image_clues: list[ImageClue] = Field(default_factory=list)
    reasoning_chain: dict[str, list[Text]] = Field(
        description='key clue statements by depth: "p" (directly perceived), "1-step", "2-step", ...')
    key_roles: list[Name] = Field(default_factory=list, description="roles whose private script holds a key clue")
    truth: Truth
    tasks: Tasks
    questions: Questions = Field(default_factory=Questions)
    imported: Imported | None = Field(default=None, description="set on a script converted from another release")

    def role(self, name: str) -> Role:
        return next(r for r in self.roles if r.name == name)

    @property
    def murderer(self) -> Role:
        return next(r for r in self.roles if r.murderer)

    def image(self, clue_id: str) -> ImageClue:
        return next(c for c in self.image_clues if c.id == clue_id)

    @property
    def chain_depth(self) -> int:
        """The deepest inference step in the reasoning chain (0 when only perceived facts)."""
        steps = [int(k.split("-")[0]) for k in self.reasoning_chain if k != "p" and CHAIN_KEY.match(k)]
        return max(steps, default=0)

    def all_questions(self) -> list[tuple[str, Question]]:
        q = self.questions
        return [*(("lsu", x) for x in q.lsu), *(("tiu", x) for x in q.tiu),
                *(("miu", x) for x in q.miu), *(("mmr", x) for x in q.mmr)]


def script_schema() -> dict[str, Any]:
    """The JSON schema of script.json, from the models (so it cannot drift from them)."""
    schema = Script.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    return json.dumps(script_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m space_app.games.mystery.scripts.script",
                                     description="Write (or check) script.schema.json from the models.")
    parser.add_argument("--check", action="store_true", help="only check that the file is current")
    args = parser.parse_args(argv)
    current = SCHEMA_FILE.is_file() and SCHEMA_FILE.read_text(encoding="utf-8") == schema_text()
    if args.check:
        print(f"{SCHEMA_FILE}: {'current' if current else 'out of date'}")
        return 0 if current else 1
    SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
