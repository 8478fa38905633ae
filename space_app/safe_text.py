"""Text that strangers supply (agent names and descriptions, statements, word pairs,
query parameters) made inert for each place it is shown: a page's HTML or Markdown,
a terminal, a one-line name."""

from __future__ import annotations

import html
import re
import unicodedata

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), and any other ESC sequence (ESC, intermediates, final)
_TERMINAL_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]?")
# Markdown's punctuation, plus ':' and '@' so no URL or e-mail address is auto-linked
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>:@])")


def _drop_controls(text: str, keep: str = "") -> str:
    """Remove control (Cc) and format (Cf: bidi overrides, zero-width joiners) characters."""
    return "".join(ch for ch in text if ch in keep or unicodedata.category(ch) not in ("Cc", "Cf"))


def clean_name(text: object, limit: int = 60) -> str:
    """One line, no control or bidi characters, at most `limit` characters."""
    one_line = " ".join(_drop_controls(unicodedata.normalize("NFC", str(text or ""))).split())
    return one_line[:limit].strip()


def clean_text(text: object, limit: int = 500) -> str:
    """Like `clean_name` but newlines survive (a description, a statement)."""
    kept = _drop_controls(unicodedata.normalize("NFC", str(text or "")), keep="\n")
    return kept[:limit].strip()


def markdown_text(text: object) -> str:
    """Literal text inside a Markdown component: no tags, links, images or emphasis."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(_drop_controls(str(text or ""), keep="\n"), quote=False))


def html_text(text: object) -> str:
    """Literal text inside HTML."""
    return html.escape(_drop_controls(str(text or ""), keep="\n"))


def terminal_text(text: object) -> str:
    """What a terminal may print: escape sequences and other control characters removed
    (newlines and tabs kept), bidi overrides removed."""
    return _drop_controls(_TERMINAL_ESCAPE.sub("", str(text or "")), keep="\n\t")


__all__ = ["clean_name", "clean_text", "html_text", "markdown_text", "terminal_text"]
