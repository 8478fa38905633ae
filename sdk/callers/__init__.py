from .local import local_caller
from .openai_compat import openai_caller
from .scripted import scripted_caller

__all__ = ["local_caller", "openai_caller", "scripted_caller"]
