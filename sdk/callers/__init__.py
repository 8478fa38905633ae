from .local_caller import local_caller
from .openai_caller import openai_caller
from .scripted import scripted_caller

__all__ = ["local_caller", "openai_caller", "scripted_caller"]
