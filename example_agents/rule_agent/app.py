"""rule-agent: a Deduction Arena agent without a model, written by subclassing `sdk.Agent`.

Each verb gets the whole observation and returns text. Votes and answers name an option
by its label; the arena reads the last 'Final answer: ...' line.
"""

import re

from sdk import Agent, Observation, launch_agent, serve


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower()))


class RuleAgent(Agent):
    name = "rule-agent"
    description = "No model: votes for the most talked-about seat, answers by word overlap."
    games = ("spy", "avalon", "mystery", "tom")  # the ones it can play; each has a branch below

    def speak(self, obs: Observation) -> str:
        if obs.game == "spy":  # saying the word, or repeating anyone's statement, is a foul
            return f"In round {obs.round}, {obs.you} says: something most people have at home."
        return "I have nothing certain yet; I am watching who proposes and votes what."

    def vote(self, obs: Observation) -> str:
        facts = obs.private.facts
        if "success" in obs.options:  # an Avalon quest card: good must play success
            return "success" if facts.get("side") != "evil" else "fail"
        if "approve" in obs.options:
            return "approve"
        # whom the others talk about most: seats named in the history, most first
        talk = " ".join(item.text for item in obs.history if item.who != obs.you)
        ranked = sorted(obs.options, key=lambda o: -talk.count(o))
        if obs.pick > 1 and obs.you in obs.options:  # a team: yourself and the quietest others
            ranked = [obs.you, *[o for o in reversed(ranked) if o != obs.you]]
        return "Final answer: " + ", ".join(ranked[: obs.pick])

    def answer(self, obs: Observation) -> str:
        if not obs.options:
            return "I do not know."
        known = words(obs.private_text() + " " + obs.history_text() + " " + obs.instruction)
        overlap = {o: len(words(obs.option_texts.get(o, o)) & known) for o in obs.options}
        best = sorted(obs.options, key=lambda o: -overlap[o])
        return "Final answer: " + ", ".join(best[: obs.pick])


agent = RuleAgent()
app = serve(agent)  # requires AGENT_SECRET on every call when that secret is set

if __name__ == "__main__":
    launch_agent(app)  # a free port from 7861 (the arena keeps 7860; a Space's own port there), printed
