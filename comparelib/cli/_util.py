"""Helpers shared by the CLI commands."""

from __future__ import annotations

import json
import sys
from typing import Any

from comparelib.values import plain


def print_json(obj: Any) -> None:
    """``obj`` as strict JSON on stdout (:func:`comparelib.values.plain`: NaN/inf become null)."""
    json.dump(plain(obj), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")
