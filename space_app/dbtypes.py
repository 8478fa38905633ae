"""Column types that behave alike on SQLite and PostgreSQL.

SQLite never enforced a string's declared length and keeps any character; PostgreSQL
enforces VARCHAR(n) and refuses NUL in text. A store must accept on PostgreSQL whatever
it accepts on SQLite (an agent's reply, a long tag), so these types keep SQLite's schema
unchanged and, on PostgreSQL, make strings unbounded and replace NUL with U+FFFD.
"""

from __future__ import annotations

import json
import math
from typing import Any

from sqlalchemy import BigInteger, Integer, String, Text
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

NUL = "\x00"
REPLACEMENT = "\ufffd"


class Chars(TypeDecorator[str]):
    """VARCHAR(n) on SQLite; unbounded on PostgreSQL, where NUL is stored as U+FFFD."""

    impl = String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(Text())
        return dialect.type_descriptor(self.impl_instance)

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if dialect.name == "postgresql" and isinstance(value, str) and NUL in value:
            return value.replace(NUL, REPLACEMENT)
        return value


class LongText(Chars):
    """TEXT everywhere, NUL-safe on PostgreSQL."""

    impl = Text
    cache_ok = True


# 64-bit on PostgreSQL, where INTEGER is 32-bit (SQLite's INTEGER is already 64-bit)
BigInt = Integer().with_variant(BigInteger(), "postgresql")
# an autoincrementing key: SQLite's rowid alias must be spelled INTEGER
BigId = BigInteger().with_variant(Integer(), "sqlite")


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def json_for_postgresql(obj: Any) -> str:
    """JSON text PostgreSQL accepts: its json type refuses NaN and Infinity, which SQLite keeps;
    they are stored as null (the common case pays one plain dumps)."""
    try:
        return json.dumps(obj, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(obj), allow_nan=False)
