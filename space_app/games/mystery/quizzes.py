"""A script's closed questions (the Chain of Evaluation's LSU, TIU, MIU and MMR sets) as
question-suite items in the suite file format (docs/suites.md), so they run through the suite
runner like any other suite (the spec declares them as quizzes): one `answer` observation per
item, the context as a whole document.

What each item carries:
- **LSU** (long-script understanding): the context is that character's private script;
  tags `role`.
- **TIU / MIU** (text-rich / media-rich image understanding): the image clue as a file
  reference ("mystery/<script id>/<file>") and the public background; tags `image`. An
  imported question tied to no one image carries every image clue (and no `image` tag). With
  `captions=True` the image's caption is added to the context: the variant for text-only
  answerers (tagged `captions`), which turns image reading into reading.
- **MMR** (multi-modal multi-hop reasoning): the whole case (background, public clues, image
  captions when `captions`, every character's script) and every image; tags `hops`.

Every item is typed with its set (`lsu`, `tiu`, `miu`, `mmr`) and tagged with its `script`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .rules import image_ref
from .scripts.script import Question, Script

__all__ = ["suite_items", "to_jsonl"]


def _options(q: Question) -> dict[str, str]:
    return dict(q.options.items())


def _heading(script: Script) -> str:
    # an imported script may have no background
    return f"{script.title}\n\n{script.background}" if script.background else script.title


def _case(script: Script, captions: bool, scripts: bool) -> str:
    parts = [_heading(script)]
    parts += [f"{c.title}: {c.text}" for c in script.text_clues]
    if captions:
        parts += [f"Image {c.id} ({c.kind}): {c.caption}" for c in script.image_clues]
    if scripts:
        parts += [f"--- {r.name}'s script ---\n{r.script}" for r in script.roles]
    return "\n\n".join(parts)


def suite_items(script: Script, *, captions: bool = False) -> list[dict[str, Any]]:
    """Every question of the script as a suite item, in the order LSU, TIU, MIU, MMR."""
    suite = f"mystery-{script.id}"
    base = {"script": script.id, "language": script.language} | ({"captions": True} if captions else {})
    refs = {c.id: image_ref(script.id, c.file) for c in script.image_clues}
    items: list[dict[str, Any]] = []

    def add(kind: str, n: int, q: Question, context: str, images: list[str], **tags: object) -> None:
        items.append({"id": f"{suite}-{kind}-{n:03d}", "suite": suite, "context": context, "images": images,
                      "question": q.question, "options": _options(q), "answer": q.answer, "types": [kind],
                      "tags": {**base, **tags}})

    for n, q in enumerate(script.questions.lsu, start=1):
        add("lsu", n, q, f"{q.role}'s private script\n\n{script.role(q.role).script}", [], role=q.role)
    for kind in ("tiu", "miu"):
        for n, q in enumerate(getattr(script.questions, kind), start=1):
            # an imported question about no one image is asked with every image, as its source did
            clues = [script.image(q.image)] if q.image else script.image_clues
            context = _heading(script)
            if captions:
                context += "".join(f"\n\nImage {c.id} ({c.kind}): {c.caption}" for c in clues)
            add(kind, n, q, context, [refs[c.id] for c in clues], **({"image": q.image} if q.image else {}))
    whole = _case(script, captions, scripts=True)
    for n, q in enumerate(script.questions.mmr, start=1):
        add("mmr", n, q, whole, list(refs.values()), hops=q.hops)
    return items


def to_jsonl(items: Iterable[dict[str, Any]]) -> str:
    """The items in the suite file format (one JSON object per line)."""
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
