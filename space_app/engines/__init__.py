"""Where batch work runs (tournaments, comparisons, studies, question suites): `local`, every
item on this process's event loop, or `ray`, every item a task on a Ray cluster's workers. One
interface (`Engine.map(job, items)`); an engine knows jobs and items, never a game, a match or
the store."""

from .base import ENGINES, Done, Engine, EngineError, Job, Tracker, Worker
from .local import LocalEngine
from .opening import open_engine

__all__ = ["ENGINES", "Done", "Engine", "EngineError", "Job", "LocalEngine", "Tracker", "Worker", "open_engine"]
