"""The inverse-planning reference agent on the embedded model: accuracy and seconds per
question, and how many tokens the model reads for one, at one or more step limits.

The questions are the suite's fixed hash-ordered sample (`first_n`, the one `bench --limit N`
asks), answered through `judge` directly, one at a time, so each time is one question's own.

    python benchmarks/inverse_planning.py [--questions 60] [--steps 12,6] [--suite tom-household]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdk import local_scorer  # noqa: E402
from sdk.callers.local import load_local_model  # noqa: E402
from space_app.stats import Rate  # noqa: E402
from space_app.suites.inverse_planning import judge  # noqa: E402
from space_app.suites.registry import open_suite  # noqa: E402
from space_app.suites.run import first_n, observation  # noqa: E402

GOAL_SECONDS = 2.0


def measure(suite_id: str, questions: int, steps: int) -> tuple[str, float]:
    suite = open_suite(suite_id)
    scorer = local_scorer()
    model = load_local_model(scorer.backend)
    right, seconds, tokens = 0, [], []
    for item in first_n(suite.loaded.items, questions):
        obs = observation(item, suite.game, 180)
        context = "\n\n".join(d.text for d in obs.private.documents if d.kind == "context") or obs.private_text()
        options = {label: obs.option_texts.get(label, label) for label in obs.options}
        started, read = time.perf_counter(), model.tokens_evaluated
        choice = judge(context, obs.instruction, options, scorer, steps).choice
        seconds.append(time.perf_counter() - started)
        tokens.append(model.tokens_evaluated - read)
        right += choice == item.answer
    rate = Rate(right, len(seconds))
    low, high = rate.interval or (0.0, 1.0)
    median = statistics.median(seconds)
    return (f"max steps {steps}: accuracy {right}/{len(seconds)} = {100 * rate.value:.1f}% [{100 * low:.1f}, "
            f"{100 * high:.1f}]; per question median {statistics.median(seconds):.2f} s, mean "
            f"{statistics.mean(seconds):.2f} s; tokens read per question median {statistics.median(tokens):.0f}",
            median)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--steps", default="12", help="comma-separated step limits (the agent uses 12)")
    parser.add_argument("--suite", default="tom-household")
    args = parser.parse_args()
    for steps in (int(s) for s in args.steps.split(",")):
        line, median = measure(args.suite, args.questions, steps)
        print(line, flush=True)
        print(f"  goal under {GOAL_SECONDS:g} s per question: {'met' if median < GOAL_SECONDS else 'not met'} "
              f"(median {median:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
