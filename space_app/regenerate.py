"""Every page generated from the code, refreshed (or checked) by one command: the leaderboard
columns (docs/methodology.md), the real prompts (docs/build-an-agent.md), the module table
(docs/architecture.md), the model providers (docs/providers.md) and the CLI's index of the
games (space_app/cli_index.json).

    python -m space_app.regenerate            # refresh every generated page
    python -m space_app.regenerate --check    # exit 1 if any is out of date
"""

from __future__ import annotations

import argparse

from . import agent_examples, cli_index, methodology, module_table, provider_docs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m space_app.regenerate", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether every page is up to date")
    args = parser.parse_args(argv)
    flag = ["--check"] if args.check else []
    # every generator runs (each names its own stale page), then the worst exit code
    return max([generator.main(flag) for generator in (methodology, agent_examples, module_table, cli_index,
                                                      provider_docs)])


if __name__ == "__main__":
    raise SystemExit(main())
