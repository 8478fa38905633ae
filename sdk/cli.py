"""Command line of the SDK: `python -m sdk play | try | schema | new-agent | deploy`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

EXIT_USAGE = 2  # bad arguments or a refused folder / Space id (argparse uses 2 as well)
EXIT_FAILED = 1  # the Hub refused or failed


def _pairs(kind: str, items: Sequence[str]) -> dict[str, str]:
    """KEY=VALUE pairs; a bare KEY takes its value from the environment variable KEY
    (so secret values need not appear in the shell history)."""
    result: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not key:
            raise ValueError(f"--{kind} {item!r}: expected KEY=VALUE or KEY")
        if not sep:
            if key not in os.environ:
                raise ValueError(f"--{kind} {key}: no '=VALUE' given and ${key} is not set")
            value = os.environ[key]
        result[key] = value
    return result


def _schema(args: argparse.Namespace) -> int:
    from .observation import observation_schema_json

    print(observation_schema_json())
    return 0


def _new_agent(args: argparse.Namespace) -> int:
    from .scaffold import ScaffoldError, default_name, provider_for, scaffold

    name = args.name or default_name(args.dir)
    try:
        scaffold(args.dir, args.template, name, provider=args.provider)
        preset = provider_for(args.template, args.provider)
    except ScaffoldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    secrets = ""
    if preset:
        secrets = (f" --secret {preset.key_env}" if preset.key_env else "") + f" --variable MODEL={preset.model}"
        if preset.base_url and "localhost" in preset.base_url:  # a Space cannot reach the author's machine
            secrets += " --variable OPENAI_BASE_URL=https://YOUR_SERVER/v1"
    using = f", provider: {preset.name}" if preset else ""
    print(
        f"Created agent {name!r} in {args.dir} (template: {args.template}{using}):\n"
        f"  README.md         Space card and what to change\n"
        f"  app.py            the agent; edit llm_caller\n"
        f"  requirements.txt  pinned dependencies\n"
        f"  sdk/              vendored Deduction Arena SDK\n\n"
        f"Try it:  cd {args.dir} && python app.py\n"
        f"Deploy:  python -m sdk deploy {args.dir} --space YOUR_NAME/{name}{secrets}"
    )
    return 0


def _deploy(args: argparse.Namespace) -> int:
    from .deploy import DeployError, deploy

    try:
        secrets = _pairs("secret", args.secret)
        variables = _pairs("variable", args.variable)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        url = deploy(args.dir, args.space, secrets, private=args.private, token=args.token,
                     variables=variables)
    except DeployError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # the Hub: auth, permissions, network
        print(f"error: deploying to {args.space} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"Deployed {args.dir} to {url}")
    if secrets:
        print(f"Secrets set: {', '.join(sorted(secrets))}")
    if variables:
        print(f"Variables set: {', '.join(sorted(variables))}")
    print("The Space is building; RemoteAgent(...).info() waits until it is up.")
    return 0


def _play(args: argparse.Namespace) -> int:
    from .harness import HarnessError, load_agent, play

    try:
        play(args.game, load_agent(args.agent), seat=args.seat, seed=args.seed, players=args.players,
             full=args.full)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def _try(args: argparse.Namespace) -> int:
    from .harness import HarnessError, load_agent, try_one

    try:
        try_one(args.verb, args.game, load_agent(args.agent))
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m sdk", description="Deduction Arena agent SDK tools.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("play", help="play a whole match locally against the arena's house agents, printing "
                                    "every observation, prompt, reply and what was read from it")
    p.add_argument("game", metavar="GAME", help="the game's id, as the arena lists it")
    p.add_argument("--agent", default="app.py", metavar="APP.PY[:NAME]",
                   help="the agent's app.py (its `agent`, or NAME); default: ./app.py")
    p.add_argument("--seat", help="your seat (default: the first)")
    p.add_argument("--seed", type=int, default=7, help="the match's seed (default 7)")
    p.add_argument("--players", type=int, help="table size (default: the game's)")
    p.add_argument("--full", action="store_true", help="print long messages whole (default: cut at 1,200 characters)")
    p.set_defaults(func=_play)

    p = sub.add_parser("try", help="one call on a real example observation of a game and verb")
    p.add_argument("verb", choices=["speak", "vote", "answer"])
    p.add_argument("--game", required=True, metavar="GAME", help="the game's (or question suite's) id")
    p.add_argument("--agent", default="app.py", metavar="APP.PY[:NAME]", help="the agent's app.py (default ./app.py)")
    p.set_defaults(func=_try)

    p = sub.add_parser("schema", help="print the Observation JSON schema")
    p.set_defaults(func=_schema)

    p = sub.add_parser("new-agent", help="create a ready Hugging Face Space folder for a new agent")
    p.add_argument("dir", metavar="DIR", help="folder to create (must not exist or be empty)")
    p.add_argument("--template", required=True, choices=["openai", "litellm", "local"],
                   help="openai: any OpenAI-compatible endpoint; litellm: Anthropic, Gemini and other "
                        "APIs through LiteLLM; local: the embedded SmolLM2-135M")
    p.add_argument("--provider", metavar="NAME",
                   help="fill in a provider's model, base URL, key variable and headers (docs/providers.md): "
                        "openai, ollama, vllm, llamacpp, hf, openrouter for --template openai (default openai); "
                        "anthropic, gemini for --template litellm (default anthropic)")
    p.add_argument("--name", help="agent name (default: from DIR)")
    p.set_defaults(func=_new_agent)

    p = sub.add_parser("deploy", help="upload an agent folder to a Hugging Face Space")
    p.add_argument("dir", metavar="DIR", help="agent folder with app.py")
    p.add_argument("--space", required=True, metavar="OWNER/NAME", help="the Space to create or update")
    p.add_argument("--secret", action="append", default=[], metavar="KEY[=VALUE]",
                   help="Space secret; KEY alone reads $KEY (repeatable)")
    p.add_argument("--variable", action="append", default=[], metavar="KEY[=VALUE]",
                   help="public Space variable, e.g. MODEL=gpt-4o-mini (repeatable)")
    p.add_argument("--private", action="store_true",
                   help="create the Space as private (only you can call it, e.g. RemoteAgent(..., hf_token=); "
                        "the arena calls public Spaces and protects them with the secret)")
    p.add_argument("--token", help="Hugging Face token (default: HF_TOKEN or the saved login)")
    p.set_defaults(func=_deploy)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)
