"""The one error a store raises when it cannot be opened, in a module of its own so the CLI
can catch it without loading the database layer before a command needs it."""


class StoreError(RuntimeError):
    """A store that cannot be opened: unreachable, or written by a newer version. Its message
    is one line naming the store (credentials masked)."""


def first_line(exc: BaseException) -> str:
    """The driver's own first line of a database error (SQLAlchemy's wrapper left out)."""
    inner = getattr(exc, "orig", None) or exc
    lines = [x.strip() for x in str(inner).splitlines() if x.strip()]
    return lines[0] if lines else type(inner).__name__


def lost_store(exc: BaseException) -> str | None:
    """When `exc` is the database going away in the middle of a run (a server restarted, a
    connection cut), the driver's first line saying so; else None. Recognised by its class
    name, so that asking costs no import of the database layer."""
    seen: BaseException | None = exc
    while seen is not None:
        names = {c.__name__ for c in type(seen).__mro__}
        if "OperationalError" in names or "InterfaceError" in names:
            return first_line(seen)
        seen = seen.__cause__ or seen.__context__
    return None
