"""Ready-made `llm_caller`s: any OpenAI-compatible server, other APIs through LiteLLM, the embedded
local model, scripted replies."""

from .litellm_caller import litellm_caller
from .local import LocalScorer, local_caller, local_scorer
from .openai_compat import openai_caller
from .scripted import scripted_caller

__all__ = ["LocalScorer", "litellm_caller", "local_caller", "local_scorer", "openai_caller", "scripted_caller"]
