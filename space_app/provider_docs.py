"""Regenerate the provider table in docs/providers.md from `sdk.providers.PROVIDERS`.

    python -m space_app.provider_docs            # rewrite the table
    python -m space_app.provider_docs --check    # exit 1 if it is out of date
"""

from __future__ import annotations

from pathlib import Path

from sdk.providers import providers_table

from .generated_docs import between_markers, command

DOC = Path(__file__).resolve().parent.parent / "docs" / "providers.md"
START = "<!-- providers:start (generated from sdk/providers.py by python -m space_app.provider_docs) -->"
END = "<!-- providers:end -->"


def render_doc(page: str) -> str:
    return between_markers(DOC, page, START, END, providers_table())


def main(argv: list[str] | None = None) -> int:
    return command("python -m space_app.provider_docs", __doc__, DOC, render_doc, argv)


if __name__ == "__main__":
    raise SystemExit(main())
