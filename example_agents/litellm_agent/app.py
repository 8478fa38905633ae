"""litellm-agent: a Deduction Arena agent on a model API that is not OpenAI-compatible (Anthropic),
through LiteLLM (Anthropic, Gemini, Bedrock, ...).

Space settings (Settings -> Variables and secrets):
  ANTHROPIC_API_KEY secret    the Anthropic key
  MODEL            variable  provider/model, default anthropic/claude-3-5-haiku-latest
  LITELLM_API_BASE variable  optional: a proxy or regional endpoint instead of the provider's own
  AGENT_SECRET     secret    optional: calls without it are refused (protects your credits);
                             it also opens this Space's Calls tab (your agent's own trace)
  AGENT_SHARE_TRACE variable optional: 1 sends each turn's model calls to the arena with the reply
"""

import os

from sdk import LLMAgent, launch_agent, litellm_caller, serve

# Your agent is this one function: chat messages in, reply text out. Swap in any model:
# "anthropic/claude-3-5-haiku-latest" (ANTHROPIC_API_KEY), "gemini/gemini-2.0-flash"
# (GEMINI_API_KEY), ... A call never outlasts the arena's turn: retries and waits included,
# it ends when the turn does. Provider presets and their quirks: sdk/providers.py.
llm_caller = litellm_caller(
    model=os.environ.get("MODEL", "anthropic/claude-3-5-haiku-latest"),
    api_base=os.environ.get("LITELLM_API_BASE") or None,
    api_key=None,  # None: read from the provider's own variable (ANTHROPIC_API_KEY)
    max_tokens=512,  # a reply cut at this limit is flagged and asked again once, shorter
    temperature=0.7,
    top_p=None,  # None: the provider's default
    stop=None,  # stop sequences, e.g. ["\n\n"]
    timeout=120,  # seconds a call may take at most, retries included (the turn may end it sooner)
    max_retries=4,  # extra attempts after a 429 (its Retry-After honoured), a 5xx or a dropped connection
)
# the model's context length in tokens: older history is left out to fit (None: no limit);
# vision=True sends the games' pictures as image parts (Claude and Gemini read them)
agent = LLMAgent(llm_caller, name="litellm-agent", context_tokens=None)
app = serve(agent)  # requires AGENT_SECRET on every call when that secret is set

if __name__ == "__main__":
    launch_agent(app)  # a free port from 7861 (the arena keeps 7860; a Space's own port there), printed
