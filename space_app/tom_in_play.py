"""Theory of Mind in play against Theory of Mind in questions (`python -m space_app experiment
tom-in-play`, the `tom-in-play` report): for each agent, its belief probes in every game with
probes, or those named by `--in`, the same games for every agent (`probe_report.py`), beside
its accuracy per question type on the `tom-household` suite (`suites/run.py`), and the
correlation across agents between probe skill (1 − Brier) and suite accuracy, with a bootstrap
interval over the agents (`correlation.py`).

An agent here is an *entrant*: what plays each game and what answers the suite.
- A spec (`house:smollm2`, a registered agent): it plays every game with probes that it
  declares and answers the suite itself; one that does not declare the suite's label (`tom`)
  or plays no such game is left out, and the output says why.
- `house-rules`: each game's rule bot (its random-fill house agent that is not the random
  one); rule bots answer no questions, so the suite is answered by `house:overlap`, the
  house's rule-based answerer (the option sharing most words with the story, no model).
- `house-random`: each game's random bot; the suite by `house:guess` (chance).
- `PLAY@ANSWER`: what plays (a family or a spec) paired with what answers (a spec declaring
  `tom`), e.g. `house-rules@house:guess`: crossed pairings, a control for the correlation.
Every seat of a match plays the entrant (self-play), probes on; the matches are stored with
the tag `study:tom-in-play:<entrant>:seed<seed>` and planned, so a run again plays only what
did not finish, and the suite's stored answers are not asked again. Generic: the games come
from the registry."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .core.registry import GAMES
from .core.report import Cell, Report, ReportQuery, Table, label, missing
from .core.study_runs import RECENT, study_tag
from .correlation import MIN_AGENTS, caveat, correlate
from .probe_report import ScoredProbe, scored_probes, summarise

STUDY = "tom-in-play"
SUITE = "tom-household"
TYPES = ("belief", "social_goal", "belief_of_goal")
FAMILIES = {  # entrant -> (which house bot of each game, the suite's answerer, in words)
    "house-rules": ("rules", "house:overlap",
                    "each game's rule bot; the suite by house:overlap (rule-based, no model)"),
    "house-random": ("random", "house:guess", "each game's random bot; the suite by house:guess (chance)"),
}
DEFAULT_AGENTS = ("house-rules", "house-random")
TAG_PREFIX = f"study:{STUDY}:"


@dataclass(frozen=True)
class Entrant:
    name: str
    players: dict[str, str]  # game -> the agent spec every seat plays
    answerer: str  # the agent spec that answers the suite
    how: str


def probed_games() -> list[str]:
    return sorted(g for g, spec in GAMES.items() if spec.rules.probes is not None)


def house_bot(game: str, kind: str) -> str | None:
    """A game's random bot (its random-fill house agent named '...random') or its rule bot
    (the first other random-fill house agent), or None when it has none."""
    fill = [name for name, agent in GAMES[game].house.agents.items() if agent.random_fill]
    random_bots = [name for name in fill if name.endswith("random")]
    if kind == "random":
        return random_bots[0] if random_bots else None
    rules = [name for name in fill if name not in random_bots]
    return rules[0] if rules else None


def declares(catalogue: Any, spec: str, game: str) -> bool:
    declared = catalogue.games_of(spec)
    return not declared or game in declared


def plays_matches(catalogue: Any, spec: str, game: str) -> bool:
    """Whether `spec` plays matches of `game`: a suite's own house agent (house:guess) declares
    a game's label only to answer that game's question sets, never to take a seat."""
    from .suites import suite_house_agents

    answers_only = spec in suite_house_agents() and spec not in GAMES[game].house.agents
    return not answers_only and declares(catalogue, spec, game)


def split(name: str) -> tuple[str, str | None]:
    """An entrant's name as (what plays, what answers the suite or None): `PLAY@ANSWER` pairs them."""
    play, at, answer = name.rpartition("@")
    return (play, answer) if at and play and answer else (name, None)


def answerer_of(name: str) -> str:
    """The suite's answerer of an entrant: the one named after '@', a family's, or the spec itself."""
    play, answer = split(name)
    return answer or (FAMILIES[play][1] if play in FAMILIES else play)


def how_of(name: str) -> str:
    play, answer = split(name)
    if play in FAMILIES:
        return FAMILIES[play][2] if answer is None else f"{FAMILIES[play][2].split(';')[0]}; the suite by {answer}"
    return ("plays every game it declares and answers the suite itself" if answer is None
            else f"plays every game it declares; the suite by {answer}")


def chosen_games(only: Sequence[str] | None) -> list[str]:
    """The probed games a run plays: every one, or those named (`--in`), refusing a game
    without probes by name."""
    games = probed_games()
    if not only:
        return games
    unknown = [g for g in only if g not in games]
    if unknown:
        raise ValueError(f"--in {','.join(unknown)}: not a game with probes (known: {', '.join(games)})")
    return [g for g in games if g in only]


def entrants(names: Sequence[str], catalogue: Any, suite_game: str = "tom",
             only: Sequence[str] | None = None) -> tuple[list[Entrant], list[str]]:
    """The entrants named, and a line for each one left out saying why. Every entrant plays
    the same games (those named in `only`, else every probed game): the games' base rates
    differ, so a game that some entrant does not play is dropped for all, with a line saying so."""
    out: list[Entrant] = []
    left: list[str] = []
    games = chosen_games(only)
    for name in names:
        if name in [e.name for e in out]:
            raise ValueError(f"agent {name!r} is named twice")
        play, answer = split(name)
        if play in FAMILIES:
            players = {g: bot for g in games if (bot := house_bot(g, FAMILIES[play][0])) is not None}
        else:
            catalogue.resolve(play)  # an unknown spec is refused here, by name
            players = {g: play for g in games if plays_matches(catalogue, play, g)}
        answerer = answerer_of(name)
        if answer is not None:
            catalogue.resolve(answer)
        if not declares(catalogue, answerer, suite_game):
            left.append(f"{name}: left out, {answerer} does not answer the suite's questions (it declares "
                        f"{', '.join(catalogue.games_of(answerer)) or 'no game'}, not {suite_game!r})")
        elif not players:
            left.append(f"{name}: left out, {play} plays none of the games with probes ({', '.join(games)})")
        else:
            out.append(Entrant(name, players, answerer, how_of(name)))
    common = [g for g in games if all(g in e.players for e in out)]
    dropped = [g for g in games if any(g in e.players for e in out) and g not in common]
    if dropped and not common:
        raise ValueError("the agents play no probed game in common ("
                         + "; ".join(f"{e.name}: {', '.join(e.players)}" for e in out)
                         + "): name fewer agents or choose games with --in")
    for game in dropped:
        missing_from = ", ".join(e.name for e in out if game not in e.players)
        left.append(f"{game}: left out for every agent, {missing_from} does not play it "
                    f"(all are compared on {', '.join(common)})")
    if dropped:
        out = [Entrant(e.name, {g: e.players[g] for g in common}, e.answerer, e.how) for e in out]
    return out, left


def run_tag(name: str, seed: int) -> str:
    return study_tag(STUDY, name, f"seed{seed}")


async def run(arena: Any, names: Sequence[str] = DEFAULT_AGENTS, games: int = 10, seed: int = 0, limit: int = 60,
              concurrency: int = 8, suite_concurrency: int = 1, settings: dict[str, Any] | None = None,
              say: Callable[[str], None] | None = None,
              only: Sequence[str] | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Play and ask what is missing, then each entrant's figures (`figures`) and the lines of
    those left out; `only`: these probed games, not every one (`--in`)."""
    from .suites import open_suite
    from .suites.run import first_n, run_suite

    if games < 1 or limit < 1:
        raise ValueError(f"--games and --limit must be 1 or more (got {games} and {limit})")
    suite = open_suite(SUITE)
    found, left = entrants(names, arena.catalogue, suite.game, only=only)
    probe_settings = {**(settings or {}), "probes": True}
    rows = []
    for entrant in found:
        tag = run_tag(entrant.name, seed)
        ids: list[str] = []
        for game, spec in entrant.players.items():
            if say:
                say(f"{entrant.name}: {games} probed matches of {game} ({spec} in every seat), tag {tag}")
            outcomes = await arena.tournament(game, [spec], games, seed=seed, tag=tag, settings=probe_settings,
                                              concurrency=concurrency)
            ids += [o.match_id for o in outcomes if o.status == "finished"]
        if say:
            say(f"{entrant.name}: {limit} questions of {SUITE} answered by {entrant.answerer}")
        arena.catalogue.check_plays(entrant.answerer, suite.game)
        await run_suite(arena.store, suite, arena.catalogue.resolve(entrant.answerer), entrant.answerer,
                        limit=limit, concurrency=suite_concurrency)
        wanted = {item.id for item in first_n(suite.loaded.items, limit)}
        # this run's matches only (a tag run before with more --games holds more)
        played = [m for m in map(arena.store.get_match, ids) if m is not None]
        rows.append(figures(arena.store, entrant.name, played, [tag], wanted, how=entrant.how))
    return rows, left


def uniform_brier(probe: ScoredProbe) -> float:
    """The Brier score the uniform belief (every candidate alike) would have had on this probe."""
    assert probe.score is not None
    pairs = probe.score.pairs
    p = sum(y for _, y in pairs) / len(pairs)
    return math.fsum((p - y) ** 2 for _, y in pairs) / len(pairs)


def figures(store: Any, name: str, matches: list[dict[str, Any]], tags: Iterable[str], wanted: set[str] | None,
            how: str = "") -> dict[str, Any]:
    """One entrant's row: its probes in `matches` (summarised as one group, with the
    uniform belief's Brier on the same probes), and its answerer's stored answers to the suite
    (`wanted`: only these questions; None: every stored answer), scored per type."""
    from .suites.run import score

    probes = [p for m in matches for p in scored_probes(m)]
    summary = summarise(probes, by=())
    scored = [p for p in probes if p.score is not None]
    answerer = answerer_of(name)
    answers = [r for r in store.answers(SUITE, answerer) if wanted is None or r["item_id"] in wanted]
    scores = score(SUITE, answerer, answers)
    return {"agent": name, "how": how or how_of(name),
            "answerer": answerer, "games": sorted({m["game"] for m in matches}), "matches": len(matches),
            "tags": sorted(set(tags)), "probes": summary[0] if summary else None,
            "uniform_brier": math.fsum(map(uniform_brier, scored)) / len(scored) if scored else None,
            "suite": scores.to_dict()}


def skill(row: dict[str, Any]) -> float | None:
    """Probe skill: 1 − the mean Brier score (higher is better, like accuracy)."""
    probes = row["probes"]
    return None if not probes or probes.get("brier") is None else 1.0 - probes["brier"]


def accuracy(row: dict[str, Any], kind: str) -> float | None:
    suite = row["suite"]
    return suite.get("accuracy") if kind == "all" else suite["by_type"].get(kind, {}).get("accuracy")


def _figure(found: dict[str, Any] | None, key: str, digits: int = 3, percent: bool = False) -> Cell:
    """A stored figure (`key`, `key_low`, `key_high`, `key_n`) as a cell; '–' n=0 without one."""
    if not found or found.get(key) is None:
        return Cell(value=None, n=0)
    return Cell(value=found[key], low=found.get(f"{key}_low"), high=found.get(f"{key}_high"),
                n=int(found.get(f"{key}_n") or 0), digits=1 if percent else digits, percent=percent)


def _rate(rate: dict[str, Any] | None) -> Cell:
    return _figure(rate, "accuracy", percent=True)


def unscored(row: dict[str, Any]) -> str | None:
    """Why an agent's probes are missing from its scores (no probe moment reached, replies with
    no readable belief), or None when every probe asked could be read."""
    probes = row["probes"]
    if not probes:
        return (f"{row['agent']}: no probe asked (each of its {row['matches']} matches ended before its first probe "
                "moment)" if row["matches"] else f"{row['agent']}: no probe asked (no finished match)")
    if probes["unreadable"]:
        return (f"{row['agent']}: {probes['unreadable']} of {probes['asked']} probes unreadable (no belief could be "
                "read from the reply, or no reply in time): not scored")
    return None


def tables(rows: list[dict[str, Any]], left: Sequence[str] = (), seed: int = 0) -> list[Table]:
    """Each entrant's probe scores beside its suite accuracy per type, and the correlations."""
    side = Table(key="tom-in-play", title="ToM in play (belief probes) beside ToM in questions (tom-household)",
                 columns=["agent", "plays", "answers the suite as", "matches", "Brier", "log loss", "top guess %",
                          "uniform Brier", "accuracy %", *(f"{t} %" for t in TYPES)])
    for r in rows:
        probes = r["probes"]
        side.add([label(r["agent"]), label(", ".join(r["games"]) or "–"), label(r["answerer"]),
                  Cell(value=float(r["matches"]), digits=0), _figure(probes, "brier"), _figure(probes, "log_loss"),
                  _figure(probes, "top1", percent=True),
                  Cell(value=r["uniform_brier"], digits=3) if r["uniform_brier"] is not None else missing(""),
                  _rate(r["suite"]), *(_rate(r["suite"]["by_type"].get(t)) for t in TYPES)])
    side.footnotes += [
        "Brier and log loss: mean over every probe of the agent's matches (lower is better), 95% normal interval, "
        "n probes; top guess: Wilson. Uniform Brier: what a belief with every candidate alike scores on the same "
        "probes (the scale's no-skill point).",
        "Suite accuracy: Wilson 95% interval over the questions answered, overall and per type; chance is 1/3.",
        *(f"{r['agent']}: {r['how']}; tags {', '.join(r['tags'])}" for r in rows),
        *filter(None, map(unscored, rows)), *left]
    both = [r for r in rows if skill(r) is not None]
    corr = Table(key="tom-in-play-correlation", title="Probe skill (1 − Brier) against suite accuracy, across agents",
                 columns=["suite accuracy", "agents", "Spearman", "Pearson"])
    for kind in ("all", *TYPES):
        pairs = [(skill(r), accuracy(r, kind)) for r in both if accuracy(r, kind) is not None]
        x = [float(p) for p, _ in pairs if p is not None]
        y = [float(a) for _, a in pairs if a is not None]
        cells = []
        for method in ("spearman", "pearson"):
            c = correlate(x, y, method, seed=seed)
            cells.append(Cell(value=c.value, low=c.low, high=c.high, n=c.n, digits=2) if c.value is not None
                         else missing(""))
        corr.add([label(kind), Cell(value=float(len(x)), digits=0), *cells])
    corr.footnotes.append(caveat(len(both)) + ("" if len(both) >= MIN_AGENTS else
                                               f"; add agents: experiment {STUDY} --agents A,B,C"))
    if len(both) >= MIN_AGENTS:
        corr.footnotes.append(f"95% percentile bootstrap over the agents (2000 resamples, seed {seed}); a resample "
                              "in which all agents tie on a side has no correlation and is left out.")
    return [side, corr]


def stored_entrants(store: Any) -> dict[str, list[str]]:
    """entrant -> its stored run tags (every game, every seed), from the newest matches."""
    out: dict[str, set[str]] = {}
    for m in store.list_matches(limit=RECENT):
        tag = str(m.get("tag") or "")
        if tag.startswith(TAG_PREFIX):
            out.setdefault(tag[len(TAG_PREFIX):].rsplit(":", 1)[0], set()).add(tag)
    return {name: sorted(tags) for name, tags in sorted(out.items())}


def build_report(store: Any, query: ReportQuery) -> list[Table]:
    """The Results panel and `report tom-in-play`: every stored entrant's probed matches (all
    its runs pooled, or the one `query.tag`) beside its answerer's every stored answer."""
    found = stored_entrants(store)
    if query.tag:
        found = {n: [t for t in tags if t == query.tag] for n, tags in found.items()}
        found = {n: tags for n, tags in found.items() if tags}
    names = [n for n in (query.agents or found) if n in found]
    rows = [figures(store, name, [m for tag in found[name] for m in store.iter_matches(None, tag=tag)], found[name],
                    None) for name in names]
    out = tables(rows)
    out[0].caption = (f"From the stored runs of `python -m space_app experiment {STUDY}` ({len(rows)} agents): every "
                      "probed match of each agent's runs, and every stored answer of its answerer to "
                      f"{SUITE} (the command itself scores its --limit sample).")
    return out


REPORT = Report(title="ToM in play vs ToM in questions (belief probes beside tom-household, correlated)",
                describe=f"reads the matches tagged {TAG_PREFIX}* and the answerers' stored answers; produce them "
                         f"with python -m space_app experiment {STUDY}",
                build=build_report)


__all__ = ["DEFAULT_AGENTS", "FAMILIES", "REPORT", "STUDY", "SUITE", "Entrant", "build_report", "chosen_games",
           "entrants", "figures", "house_bot", "run", "run_tag", "skill", "stored_entrants", "tables", "unscored"]
