"""local-agent: a Deduction Arena agent on the embedded SmolLM2-135M-Instruct (CPU, no key)."""

from sdk import LLMAgent, launch_agent, local_caller, serve

# Your agent is this one function: chat messages in, reply text out. Swap in any model.
# 48 new tokens keep a 135M model on a CPU Space well within the arena's time limits.
llm_caller = local_caller(max_new_tokens=48)
agent = LLMAgent(llm_caller, name="local-agent")
app = serve(agent)  # requires AGENT_SECRET on every call when that secret is set

if __name__ == "__main__":
    agent.prepare()  # loads the model (~20 s) before serving, so the first arena call is not slow
    launch_agent(app)  # a free port from 7861 (the arena keeps 7860; a Space's own port there), printed
