"""Werewolf's house agents: offline, no model, stateless between calls (everything comes from
the observation), their randomness drawn from what the seat has seen.

- `house:werewolf-random`: a random legal choice for every vote and bid, a generic line for
  every statement: the floor a real player must beat.
- `house:werewolf-rules`: plays its role soundly. The village weighs the Seer claims (the
  earliest one the reveals have not disproved), the day votes (who voted for players shown to
  be on the village's side, who voted with shown werewolves) and what the day's speakers say
  they will vote, and converges on one suspect. The Seer checks the most suspect unchecked
  player and claims once it has found a werewolf or after the second night (or when voted
  out). The Doctor protects the Seer claimant, else itself. The Witch heals the first victim
  and poisons a werewolf the Seer named. The werewolves agree on one victim in their night
  talk (a Seer claimant on a night the Doctor cannot guard it, else whoever voted against
  them); by day one of them claims the Seer first and keeps to it, the pack votes as one and
  never for each other, and a werewolf the believed Seer has named is voted out by its own
  packmates.
"""

from __future__ import annotations

import json
import random
import re

from sdk import Agent, Observation

from ...core.belief_reading import as_reply
from ...core.phrasebook import Phrasebook
from ...core.probes import others, probe_question, uniform_reply
from ...core.seeding import history_key, seeded
from .board import Board, named, read_board
from .roles import DOCTOR, SEER

SPEECH = Phrasebook({
    "en": {
        "claim": "I am the Seer. {visions} I will vote {target}.",
        "claim_no_target": "I am the Seer. {visions}",
        "vision_wolf": "{seat} is a werewolf.", "vision_good": "{seat} is on the village's side.",
        "suspect": "I think {target} is a werewolf: {reason}. I will vote {target}.",
        "trust": "I trust {seer}'s reading: {target} is a werewolf. I will vote {target}.",
        "defend": "I am on the village's side; voting me out helps the werewolves. I will vote {target}.",
        "last": "I was on the village's side. Look hard at {target}.",
        "quiet": "Nothing certain yet; I am watching how everyone votes.",
        "intro": "Hello, I am {me}. I will say what I see and vote on the evidence.",
        "pack_pick": "Let us take {target} tonight.",
        "pack_agree": "Agreed: {target}.",
        "why_claimed_wolf": "the Seer named them",
        "why_counter": "they claim the Seer against an earlier claim",
        "why_voted_good": "they voted for players who turned out to be on the village's side",
        "why_with_wolves": "their votes follow the werewolves'",
        "why_named": "several of us have named them",
        "why_hunch": "nothing better to go on, but their talk is thin",
        "generic_1": "I have no proof yet. Let us listen before we vote.",
        "generic_2": "Someone here is lying. Watch the votes.",
        "generic_3": "I am just a villager trying to help.",
        "generic_4": "Let us not rush: a wrong vote helps the werewolves.",
    },
    "zh": {
        "claim": "我是预言家。{visions}我投{target}。",
        "claim_no_target": "我是预言家。{visions}",
        "vision_wolf": "{seat}是狼人。", "vision_good": "{seat}是好人。",
        "suspect": "我觉得{target}是狼人：{reason}。我投{target}。",
        "trust": "我相信{seer}的查验：{target}是狼人。我投{target}。",
        "defend": "我是好人，放逐我只会帮狼人。我投{target}。",
        "last": "我是好人。请重点看{target}。",
        "quiet": "还没有确定的信息，我在看大家怎么投票。",
        "intro": "大家好，我是{me}。我会说出我看到的，按证据投票。",
        "pack_pick": "今晚刀{target}。",
        "pack_agree": "同意：{target}。",
        "why_claimed_wolf": "预言家查验了他",
        "why_counter": "他在别人之后对跳预言家",
        "why_voted_good": "他投的人后来证明是好人",
        "why_with_wolves": "他的投票跟着狼人走",
        "why_named": "好几个人都点了他",
        "why_hunch": "没有更好的线索，但他的发言很空",
        "generic_1": "我还没有证据，先听听大家怎么说。",
        "generic_2": "有人在说谎，注意投票。",
        "generic_3": "我只是个想帮忙的村民。",
        "generic_4": "别着急，投错了只会帮狼人。",
    },
})
GENERIC = ("generic_1", "generic_2", "generic_3", "generic_4")
INTENT = (r"I will vote\s+{seat}", r"我投\s*{seat}")
SEAT_SPECIFIC = frozenset({"invalid_action"})  # history kinds one seat sees and its packmates do not


def seat_rng(obs: Observation, salt: str = "") -> random.Random:
    """Seeded by the seat's own view (its facts and the history so far), never by the match id
    or a clock: the same game seed with house agents replays the same match."""
    facts = json.dumps(obs.private.facts, sort_keys=True, default=str)
    return seeded(f"{obs.game}|{obs.you}|{obs.round}|{obs.phase}|{facts}|{history_key(obs)}|{salt}")


def pack_rng(obs: Observation, salt: str) -> random.Random:
    """Seeded by what every werewolf sees alike (the shared history, not the seat): the pack
    draws the same and so acts as one."""
    return seeded(f"{obs.game}|pack|{obs.round}|{history_key(obs, SEAT_SPECIFIC)}|{salt}")


def _say(obs: Observation, key: str, **values: object) -> str:
    return SPEECH.say(obs.language, key, **values)


class RandomWerewolfAgent(Agent):
    """Random legal choices and generic statements."""

    name = "house:werewolf-random"
    description = "Random votes, bids and night actions; generic statements. A floor for the leaderboard."
    games = ("werewolf",)

    def speak(self, obs: Observation) -> str:
        return _say(obs, seat_rng(obs, "speak").choice(GENERIC))

    def vote(self, obs: Observation) -> str:
        return ", ".join(seat_rng(obs, "vote").sample(obs.options, obs.pick)) if obs.options else "abstain"

    def answer(self, obs: Observation) -> str:
        if probe_question(obs) is not None:
            return uniform_reply(obs)
        return self.vote(obs) if obs.options else "I do not know."


# -- the rule bots' judgement ----------------------------------------------------------------
def intentions(board: Board, obs: Observation) -> dict[str, str]:
    """What each of today's speakers said it will vote (its latest such line)."""
    out: dict[str, str] = {}
    for speaker, lines in board.said_today.items():
        for line in lines:
            for form in INTENT:
                for seat in sorted(obs.seats, key=len, reverse=True):
                    if re.search(form.format(seat=rf"(?<![\w]){re.escape(seat)}(?![\w])"), line, re.IGNORECASE):
                        out[speaker] = seat
    return out


def suspicion(board: Board, obs: Observation, rng: random.Random) -> dict[str, tuple[float, str]]:
    """How much this village seat suspects each other living player, with the main reason."""
    claim = board.trusted_claim()
    wolves_shown = [s for s in board.seats if board.is_wolf_shown(s)]
    wolf_votes = {(d, t) for d, v, t, _ in board.votes if v in wolves_shown and t}
    intents = intentions(board, obs)
    out: dict[str, tuple[float, str]] = {}
    for s in board.alive:
        if s == board.me:
            continue
        score, why = rng.random() * 0.1, "why_hunch"
        reasons: list[tuple[float, str]] = []
        if s in board.visions:
            reasons.append((20.0 if board.visions[s] else -20.0, "why_claimed_wolf"))
        if claim is not None:
            if s in claim.wolves:
                reasons.append((10.0, "why_claimed_wolf"))
            elif s in claim.good or s == claim.seat:
                reasons.append((-4.0, "why_hunch"))
        if s in board.claims and (claim is None or s != claim.seat):
            liar = board.liar(board.claims[s])
            reasons.append((8.0 if liar else (4.0 if claim is not None else 0.0), "why_counter"))
        for d, voter, target, _ in board.votes:
            if voter != s or not target:
                continue
            shown = board.is_wolf_shown(target)
            if shown is False:
                reasons.append((1.0, "why_voted_good"))
            elif shown is True:
                reasons.append((-1.5, "why_hunch"))
            if (d, target) in wolf_votes:
                reasons.append((1.0, "why_with_wolves"))
        backers = [v for v, t in intents.items() if t == s and v != s and v not in board.claims]
        if backers:
            reasons.append((0.6 * len(backers), "why_named"))
        score += sum(value for value, _ in reasons)
        if reasons:
            why = max(reasons, key=lambda r: r[0])[1]
        out[s] = (score, why)
    return out


def top_suspect(board: Board, obs: Observation, options: list[str], rng: random.Random) -> tuple[str | None, str]:
    scores = suspicion(board, obs, rng)
    ranked = sorted((o for o in options if o in scores), key=lambda o: -scores[o][0])
    if not ranked:
        return None, "why_hunch"
    return ranked[0], scores[ranked[0]][1]


def pack_victim(board: Board, obs: Observation, options: list[str]) -> str | None:
    """The pack's victim tonight: the one its first speaker named, else a Seer claimant the
    Doctor is not expected to guard tonight (the night after it guarded the claimant, when it may
    not guard one player twice running), else whoever voted most against the pack, else a
    shared draw."""
    for text in board.wolf_talk_tonight:
        for seat in named(text, options):
            return seat
    claimants = sorted((c for c in board.claims.values() if c.seat in options and not board.guarded_tonight(c)),
                       key=lambda c: c.first)
    if claimants:
        return claimants[0].seat
    against = {o: sum(1 for _, v, t, _ in board.votes if v == o and t in board.pack) for o in options}
    best = max(against.values(), default=0)
    pool = sorted(o for o, n in against.items() if n == best) if best else sorted(options)
    return pack_rng(obs, "victim").choice(pool) if pool else None


def pack_day_target(board: Board, obs: Observation, options: list[str]) -> str | None:
    """The pack's day vote. A werewolf the village's Seer has named is lost: its packmates vote
    it out with the village (so that its reveal does not show them voting beside it), and it
    votes for the claimant, alone. Otherwise the pack votes as one: the non-werewolf most of
    today's speakers said they will vote, else a shared draw."""
    caught = board.caught()
    if caught:
        if board.me in caught:
            claim = board.believed_claim()
            return claim.seat if claim is not None and claim.seat in options else None
        lost = [w for w in caught if w in options]
        if lost:
            return lost[0]
    believed = board.believed_claim() if board.me not in board.claims else board.claims[board.me]
    if believed is not None and believed.seat in board.pack:  # the village believes the pack's Seer
        rivals = sorted((c for c in board.claims.values() if c.seat not in board.pack and c.seat in options),
                        key=lambda c: c.first)
        if rivals:
            return rivals[0].seat
    intents = intentions(board, obs)
    backing = {o: sum(1 for t in intents.values() if t == o) for o in options if o not in board.pack}
    best = max(backing.values(), default=0)
    pool = sorted(o for o, n in backing.items() if n == best)
    return pack_rng(obs, f"day|{obs.phase}").choice(pool) if pool else None


class RuleWerewolfAgent(Agent):
    """Plays its role soundly from what its seat has seen (see the module's description)."""

    name = "house:werewolf-rules"
    description = ("Role-aware play: Seer claims weighed against the reveals, votes read for who sides with whom, "
                   "a pack that agrees on one victim, claims the Seer first and votes as one.")
    games = ("werewolf",)

    # -- statements ---------------------------------------------------------------------------
    def speak(self, obs: Observation) -> str:
        board = read_board(obs)
        if not board.role:
            return RandomWerewolfAgent.speak(self, obs)  # type: ignore[arg-type]
        rng = seat_rng(obs, "speak")
        if obs.phase == "introduction":
            return _say(obs, "intro", me=obs.you)
        if obs.phase == "wolf_talk":
            victim = pack_victim(board, obs, [s for s in board.alive if s not in board.pack])
            if victim is None:
                return _say(obs, "quiet")
            return _say(obs, "pack_agree" if board.wolf_talk_tonight else "pack_pick", target=victim)
        if board.pack:
            return self._wolf_statement(board, obs, rng)[: obs.limits.max_chars]
        return self._village_statement(board, obs, rng)[: obs.limits.max_chars]

    def _visions(self, board: Board, obs: Observation) -> str:
        lines = [_say(obs, "vision_wolf" if wolf else "vision_good", seat=s) for s, wolf in board.visions.items()]
        return ("" if obs.language == "zh" else " ").join(lines)

    def _village_statement(self, board: Board, obs: Observation, rng: random.Random) -> str:
        others = [s for s in board.alive if s != board.me]
        target, why = top_suspect(board, obs, others, rng)
        if board.role == SEER and board.visions and self._claims_now(board, obs):
            wolves = [s for s, w in board.visions.items() if w and s in others]
            if wolves:
                return _say(obs, "claim", visions=self._visions(board, obs), target=wolves[0])
            return _say(obs, "claim_no_target", visions=self._visions(board, obs))
        if target is None:
            return _say(obs, "quiet")
        if obs.phase == "last_words":
            return _say(obs, "last", target=target)
        if obs.phase == "defence":
            return _say(obs, "defend", target=target)
        claim = board.trusted_claim()
        if claim is not None and target in claim.wolves:
            return _say(obs, "trust", seer=claim.seat, target=target)
        return _say(obs, "suspect", target=target, reason=_say(obs, why))

    def _claims_now(self, board: Board, obs: Observation) -> bool:
        """The Seer speaks up once it has found a living werewolf, from the second day on, or
        when it is about to go."""
        found = any(w and s in board.alive for s, w in board.visions.items())
        return found or board.day >= 2 or obs.phase in ("defence", "last_words")

    def _wolf_statement(self, board: Board, obs: Observation, rng: random.Random) -> str:
        others = [s for s in board.alive if s != board.me]
        target = pack_day_target(board, obs, others)
        if target is None:
            return _say(obs, "quiet")
        if target in board.pack:  # bussing a packmate the village's Seer has named: side with the Seer
            claim = board.believed_claim()
            assert claim is not None
            return _say(obs, "trust", seer=claim.seat, target=target)
        if board.me in board.caught():  # named: no counter-claim to contradict, only a plea
            return _say(obs, "last" if obs.phase == "last_words" else "defend", target=target)
        if board.me in board.claims or self._claims_seer(board, obs):
            return _say(obs, "claim", visions=self._fake_visions(board, obs), target=target)
        if obs.phase == "defence":
            return _say(obs, "defend", target=target)
        if obs.phase == "last_words":
            return _say(obs, "last", target=target)
        reason = "why_named" if any(t == target for t in intentions(board, obs).values()) else "why_hunch"
        return _say(obs, "suspect", target=target, reason=_say(obs, reason))

    def _claims_seer(self, board: Board, obs: Observation) -> bool:
        """A werewolf claims the Seer first, before any other claim: the village tends to believe
        the earliest claim, and the real Seer's later one then reads as the counter-claim. One
        werewolf only: the first to speak (under parallel statements, the first of the pack)."""
        if board.claims or obs.phase not in ("discuss", "discuss_parallel"):
            return False
        if board.protocol == "parallel":
            return board.me == next((w for w in board.pack if w in board.alive), None)
        return True

    def _fake_visions(self, board: Board, obs: Observation) -> str:
        """The false Seer's visions, one a night and never taken back: players of the village
        said to be on the village's side (a vision that names a werewolf could be disproved by a
        reveal)."""
        claim = board.claims.get(board.me)
        said = [s for s in board.seats if claim is not None and s in claim.good]
        pool = [s for s in board.seats if s not in board.pack and s not in said and s != board.me
                and s not in board.claims]
        rng = seat_rng(obs, "vision")
        while len(said) < max(board.day, 1) and pool:
            said.append(pool.pop(rng.randrange(len(pool))))
        lines = [_say(obs, "vision_good", seat=s) for s in said]
        return ("" if obs.language == "zh" else " ").join(lines)

    # -- choices ------------------------------------------------------------------------------
    def vote(self, obs: Observation) -> str:
        board = read_board(obs)
        options = list(obs.options)
        if not board.role or not options:
            return RandomWerewolfAgent.vote(self, obs)  # type: ignore[arg-type]
        rng = seat_rng(obs, "vote")
        phase = obs.phase
        if phase == "bid":
            return self._bid(board, obs, options)
        if phase == "night":
            return self._night(board, obs, options, rng)
        if phase == "witch":
            return self._witch(board, obs, options, rng)
        if phase == "hunter":
            target, _ = top_suspect(board, obs, options, rng)
            return target or "abstain"
        # the day's vote or run-off
        if board.pack:
            target = pack_day_target(board, obs, options)
            return target or rng.choice([o for o in options if o not in board.pack] or options)
        wolves = [s for s, w in board.visions.items() if w and s in options]
        if wolves:
            return wolves[0]
        target, _ = top_suspect(board, obs, options, rng)
        return target or rng.choice(options)

    def _bid(self, board: Board, obs: Observation, options: list[str]) -> str:
        if board.role == SEER and board.visions and self._claims_now(board, obs) and board.me not in board.claims:
            bid = 3
        elif board.named_today.get(board.me):
            bid = 2
        else:
            bid = 1
        return str(bid) if str(bid) in options else options[-1]

    def _night(self, board: Board, obs: Observation, options: list[str], rng: random.Random) -> str:
        if board.pack:
            return pack_victim(board, obs, options) or rng.choice(options)
        if board.role == SEER:
            unchecked = [o for o in options if o not in board.visions]
            target, _ = top_suspect(board, obs, unchecked or options, rng)
            return target or rng.choice(options)
        if board.role == DOCTOR:
            claim = board.trusted_claim()
            if claim is not None and claim.seat in options:
                return claim.seat
            if board.me in options:
                return board.me
            scores = suspicion(board, obs, rng)
            safest = sorted(options, key=lambda o: scores.get(o, (0.0, ""))[0])
            return safest[0]
        return rng.choice(options)

    def _witch(self, board: Board, obs: Observation, options: list[str], rng: random.Random) -> str:
        if "save" in options:
            return "save"
        claim = board.trusted_claim()
        known = [s for s, w in board.visions.items() if w] + (sorted(claim.wolves) if claim else [])
        for seat in known:
            if f"poison {seat}" in options:
                return f"poison {seat}"
        return "none" if "none" in options else rng.choice(options)

    def answer(self, obs: Observation) -> str:
        if probe_question(obs) is not None:
            return self.belief_reply(obs)
        return self.vote(obs) if obs.options else "I do not know."

    @staticmethod
    def belief_reply(obs: Observation) -> str:
        """A belief probe answered from what the seat knows for certain: a werewolf its
        partners; any other seat nothing (every other seat alike)."""
        partners = [s for s in obs.private.facts.get("werewolves") or [] if s != obs.you]
        if not partners:
            return uniform_reply(obs)
        return as_reply({s: float(s in partners) for s in others(obs)})


__all__ = ["RandomWerewolfAgent", "RuleWerewolfAgent", "pack_day_target", "pack_victim", "suspicion"]
