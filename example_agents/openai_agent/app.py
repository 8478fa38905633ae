"""openai-agent: a Deduction Arena agent on an OpenAI-compatible model endpoint (OpenAI).

Space settings (Settings -> Variables and secrets):
  OPENAI_API_KEY   secret    the OpenAI key
  MODEL            variable  model name, default gpt-4o-mini
  OPENAI_BASE_URL  variable  optional, default https://api.openai.com/v1
  AGENT_SECRET     secret    optional: calls without it are refused (protects your credits);
                             it also opens this Space's Calls tab (your agent's own trace)
  AGENT_SHARE_TRACE variable optional: 1 sends each turn's model calls to the arena with the reply
"""

import os

from sdk import LLMAgent, launch_agent, openai_caller, serve

# Your agent is this one function: chat messages in, reply text out. Swap in any model.
# A call never outlasts the arena's turn (10 s a turn in Who is the Spy, 30 s in Avalon,
# 60 s in the murder mystery): retries and waits included, it ends when the turn does.
# Provider presets and their quirks: sdk/providers.py (python -m sdk new-agent --provider NAME).
llm_caller = openai_caller(
    model=os.environ.get("MODEL", "gpt-4o-mini"),
    base_url=os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1",
    api_key=os.environ.get("OPENAI_API_KEY"),
    max_tokens=512,  # a reply cut at this limit is flagged and asked again once, shorter
    temperature=0.7,
    top_p=None,  # None: the endpoint's default
    stop=None,  # stop sequences, e.g. ["\n\n"]
    timeout=120,  # seconds a call may take at most, retries included (the turn may end it sooner)
    max_retries=4,  # extra attempts after a 429 (its Retry-After honoured), a 5xx or a dropped connection
    stream=False,  # True for llama-cpp-python's server: it stops a cancelled request only when streaming
    # extra request headers sent with every call (OpenRouter's HTTP-Referer / X-Title)
    headers=None,
)
# the model's context length in tokens: older history is left out to fit (None: no limit)
agent = LLMAgent(llm_caller, name="openai-agent", context_tokens=None)
app = serve(agent)  # requires AGENT_SECRET on every call when that secret is set

if __name__ == "__main__":
    launch_agent(app)  # a free port from 7861 (the arena keeps 7860; a Space's own port there), printed
