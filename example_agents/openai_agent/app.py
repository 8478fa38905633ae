"""openai-agent: a Deduction Arena agent on any OpenAI-compatible model endpoint.

Space settings (Settings -> Variables and secrets):
  OPENAI_API_KEY   secret    the endpoint's key
  MODEL            variable  model name, e.g. gpt-4o-mini
  OPENAI_BASE_URL  variable  optional, e.g. https://router.huggingface.co/v1
  AGENT_SECRET     secret    optional: calls without it are refused (protects your credits)
"""

import os

from sdk import LLMAgent, openai_caller, serve

# Your agent is this one function: chat messages in, reply text out. Swap in any model.
llm_caller = openai_caller(
    model=os.environ.get("MODEL", "gpt-4o-mini"),
    base_url=os.environ.get("OPENAI_BASE_URL") or None,
    api_key=os.environ.get("OPENAI_API_KEY"),
)
agent = LLMAgent(llm_caller, name="openai-agent")
app = serve(agent)  # requires AGENT_SECRET on every call when that secret is set

if __name__ == "__main__":
    app.launch()
