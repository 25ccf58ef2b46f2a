"""Tables out: CSV, Markdown, JSON and LaTeX from one DataFrame.

Every page and the CLI export through here, so the four formats agree cell for cell.
"""

from __future__ import annotations

import io
import json
import re
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from comparelib.values import plain

if TYPE_CHECKING:
    from comparelib.tables import Table

Format = Literal["csv", "md", "json", "latex"]
FORMATS: tuple[Format, ...] = ("csv", "md", "json", "latex")
MIME: dict[str, str] = {
    "csv": "text/csv",
    "md": "text/markdown",
    "json": "application/json",
    "latex": "application/x-latex",
}
EXTENSION: dict[str, str] = {"csv": "csv", "md": "md", "json": "json", "latex": "tex"}


def to_csv(df: pd.DataFrame) -> str:
    return df.to_csv(index=False, lineterminator="\n")


def _md_escape(value: Any) -> str:
    value = plain(value)
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
    """Numbers as numbers, missing values as null, times as ISO 8601 strings."""
    records = [{str(k): plain(v) for k, v in rec.items()} for rec in df.astype(object).to_dict(orient="records")]
    return json.dumps(records, indent=2, allow_nan=False) + "\n"


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


_QUOTED = re.compile(r'"([^"]*)"')


def _latex_escape(value: Any) -> str:
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}".replace(",", "{,}")
    text = "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(value))
    # straight quotes typeset as two closing quotes (walk AT: 'unverified: "1.4M (template, unverified)"'): paired
    # ones become TeX's opening and closing quotes, a lone one stays as it is
    return _QUOTED.sub(r"``\1''", text)


# the width of a LaTeX paragraph column (``Table.latex_wrap``): a long note wraps in it
LATEX_WRAP_WIDTH = "6cm"


def to_latex(df: pd.DataFrame, numeric: set[str] | None = None, wrap: set[str] | None = None) -> str:
    """A booktabs tabular; numeric columns (or those named in ``numeric``) right-aligned, those named in ``wrap``
    set as paragraphs."""
    align = "".join(
        f"p{{{LATEX_WRAP_WIDTH}}}"
        if wrap and str(c) in wrap
        else "r"
        if pd.api.types.is_numeric_dtype(df[c]) or (numeric and str(c) in numeric)
        else "l"
        for c in df.columns
    )
    out = io.StringIO()
    out.write(f"\\begin{{tabular}}{{{align}}}\n\\toprule\n")
    out.write(" & ".join(_latex_escape(c) for c in df.columns) + " \\\\\n\\midrule\n")
    for row in df.itertuples(index=False):
        out.write(" & ".join(_latex_escape(v) for v in row) + " \\\\\n")
    out.write("\\bottomrule\n\\end{tabular}\n")
    return out.getvalue()


def prepare(df: pd.DataFrame, table: Table | None, fmt: str) -> pd.DataFrame:
    """The frame as ``fmt`` should carry it under ``table``'s column description.

    Numbers are rounded to the shown precision and stay numbers (CSV, JSON); Markdown and LaTeX get
    them as text with thousands separators and units ("1.51x", "21.0 ms"); LaTeX keeps only the
    table's paper columns, and those it carries where its rows differ in them (``Table.latex_if_varied``).
    Times become ISO 8601; missing values become empty cells (null in JSON).
    """
    out = df.copy()
    for col in out.columns:
        if pd.api.types.is_datetime64_any_dtype(out[col]):
            out[col] = out[col].map(plain).astype(object)
    if table is None:
        return out
    if fmt == "latex":  # a column the table carries only where its rows differ: an engine or target of several
        varied = [str(c) for c in table.latex_if_varied if c in out.columns and out[c].nunique(dropna=False) > 1]
        out = out[table.latex_columns(list(out.columns), varied)]
    for col in out.columns:
        spec = table.get(str(col))
        if spec is None or spec.kind not in ("int", "float"):
            continue
        values = pd.to_numeric(out[col], errors="coerce")
        if spec.kind == "float" and spec.decimals is not None:
            values = values.round(spec.decimals)
        if fmt in ("md", "latex"):
            out[col] = [None if pd.isna(v) else spec.text(v, unit=fmt == "md") for v in values]
        elif spec.kind == "int":
            out[col] = values.round().astype("Int64")
        else:
            out[col] = values
    return out


def render(df: pd.DataFrame, fmt: str, *, table: Table | None = None) -> str:
    """The table in one of ``FORMATS``, formatted per ``table`` (``comparelib.tables``) when given."""
    writers = {"csv": to_csv, "md": to_markdown, "json": to_json, "latex": to_latex}
    if fmt not in writers:
        from comparelib.errors import InputError

        raise InputError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "latex":
        numeric = {str(c) for c in df.columns if pd.api.types.is_numeric_dtype(df[c])}
        wrap = set(table.latex_wrap) if table is not None else set()
        out = prepare(df, table, fmt)
        if table is not None:  # units once, in the header ("bf16 (GiB)"), not in every cell
            names = {str(c): spec.header for c in out.columns if (spec := table.get(str(c))) and spec.unit}
            out = out.rename(columns=names)
            numeric = {names.get(c, c) for c in numeric}
            wrap = {names.get(c, c) for c in wrap}
        return to_latex(out, numeric, wrap)
    return writers[fmt](prepare(df, table, fmt))
