"""The one error a store raises when it cannot be opened, in a module of its own so the CLI
can catch it without loading the database layer before a command needs it."""


class StoreError(RuntimeError):
    """A store that cannot be opened: unreachable, or written by a newer version. Its message
    is one line naming the store (credentials masked)."""
