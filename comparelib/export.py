"""Tables out: CSV, Markdown, JSON and LaTeX from one DataFrame.

Every page and the CLI export through here, so the four formats agree cell for cell.
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

import pandas as pd

FORMATS: tuple[str, ...] = ("csv", "md", "json", "latex")
MIME: dict[str, str] = {
    "csv": "text/csv",
    "md": "text/markdown",
    "json": "application/json",
    "latex": "application/x-latex",
}
EXTENSION: dict[str, str] = {"csv": "csv", "md": "md", "json": "json", "latex": "tex"}


def _cell(value: Any) -> Any:
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    return value


def to_csv(df: pd.DataFrame) -> str:
    return df.to_csv(index=False, lineterminator="\n")


def _md_escape(value: Any) -> str:
    value = _cell(value)
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(df: pd.DataFrame) -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(_md_escape(c) for c in cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_md_escape(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def to_json(df: pd.DataFrame) -> str:
    records = [{str(k): _cell(v) for k, v in rec.items()} for rec in df.to_dict(orient="records")]
    return json.dumps(records, indent=2, allow_nan=False, default=str) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(value: Any) -> str:
    value = _cell(value)
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}".replace(",", "{,}")
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(value))


def to_latex(df: pd.DataFrame) -> str:
    """A booktabs tabular; numeric columns right-aligned."""
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) else "l" for c in df.columns)
    out = io.StringIO()
    out.write(f"\\begin{{tabular}}{{{align}}}\n\\toprule\n")
    out.write(" & ".join(_latex_escape(c) for c in df.columns) + " \\\\\n\\midrule\n")
    for row in df.itertuples(index=False):
        out.write(" & ".join(_latex_escape(v) for v in row) + " \\\\\n")
    out.write("\\bottomrule\n\\end{tabular}\n")
    return out.getvalue()


def render(df: pd.DataFrame, fmt: str) -> str:
    """The table in one of ``FORMATS``."""
    writers = {"csv": to_csv, "md": to_markdown, "json": to_json, "latex": to_latex}
    try:
        return writers[fmt](df)
    except KeyError:
        from comparelib.errors import InputError

        raise InputError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}") from None
