"""Walk AT (minor): the LaTeX export's train_source cell held straight quotes ('unverified: "1.4M (template,
unverified)"'), which TeX sets as two closing quotes. Paired quotes become TeX's ``...''; a lone one stays."""

from __future__ import annotations

import pandas as pd
import pytest

from comparelib import export


@pytest.mark.parametrize(
    ("cell", "tex"),
    [
        ('unverified: "1.4M (template, unverified)"', "unverified: ``1.4M (template, unverified)''"),
        ('"a_b" and "c"', r"``a\_b'' and ``c''"),
        ('a lone " quote', 'a lone " quote'),
        ("no quotes & 5%", r"no quotes \& 5\%"),
    ],
)
def test_quotes_in_a_latex_cell(cell: str, tex: str) -> None:
    out = export.to_latex(pd.DataFrame({"train_source": [cell]}))
    assert tex + r" \\" in out, out
