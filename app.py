"""Deduction Arena — the Space entry point. `python app.py` serves it on :7860."""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
if not os.environ.get("SPACE_ID"):
    # offline off a Space (every model the arena runs ships with it); on a Space the hub is
    # where sign-in lookups and the records dataset live, so it must stay reachable
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

from space_app.config import ConfigError, listen_address  # noqa: E402
from space_app.heap import settle_heap  # noqa: E402
from space_app.main import create_arena  # noqa: E402
from space_app.signed_records import RecordsKeyError  # noqa: E402
from space_app.store import StoreError  # noqa: E402

try:
    demo, launch_kwargs = create_arena()
except (StoreError, RecordsKeyError, ConfigError) as exc:  # an unreachable database, a newer store, an
    # unusable records key or setting: one line, no traceback
    raise SystemExit(f"error: {exc}") from None
settle_heap()  # full collections walk only what serving creates (the loop stalls while they run)

if __name__ == "__main__":
    demo.launch(server_name=listen_address(), **launch_kwargs)
