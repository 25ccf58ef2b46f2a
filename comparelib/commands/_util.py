"""Helpers shared by the CLI commands."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from typing import Any


def jsonable(obj: Any) -> Any:
    """Plain JSON types; NaN/inf become null so the output is strict JSON."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = dataclasses.asdict(obj)
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if hasattr(obj, "item") and callable(obj.item):  # numpy / torch scalars
        return jsonable(obj.item())
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    return str(obj)


def print_json(obj: Any) -> None:
    json.dump(jsonable(obj), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")
