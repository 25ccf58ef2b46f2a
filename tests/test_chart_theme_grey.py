"""Secondary chart text is readable on the theme it is drawn on (walk W: #7a7a7a at 12 px was 4.2:1 on the dark
background and 4.3:1 on white, under WCAG AA's 4.5:1; one grey cannot reach it on both)."""

from __future__ import annotations

import pytest

from comparelib import charts


def _luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# (theme, backgrounds it is drawn on: Streamlit's, and the chart's dark background the walk measured)
THEMES = [("light", ("#ffffff",)), ("dark", ("#0e1117", "#171614"))]


def test_one_grey_cannot_serve_both_themes() -> None:
    """Why the app recolours: the builders' grey is under 4.5:1 on both backgrounds."""
    assert contrast(charts.NEUTRAL, "#ffffff") < 4.5 and contrast(charts.NEUTRAL, "#0e1117") < 4.5


@pytest.mark.parametrize(("theme", "backgrounds"), THEMES)
def test_the_theme_grey_reaches_aa_on_its_background(theme: str, backgrounds: tuple[str, ...]) -> None:
    grey = charts.NEUTRAL_BY_THEME[theme]
    for bg in backgrounds:
        assert contrast(grey, bg) >= 4.5, (theme, grey, bg, contrast(grey, bg))


@pytest.mark.parametrize(("theme", "want"), [("light", "#6b6b6b"), ("dark", "#9e9e9e"), (None, "#6b6b6b")])
def test_every_neutral_in_a_real_chart_is_recoloured(theme: str | None, want: str) -> None:
    import pandas as pd
    from streamlit.elements.vega_charts import _convert_altair_to_vega_lite_spec

    frame = pd.DataFrame({"run": ["#1", "#2"], "output tok/s": [46.9, 356.2], "colour": [charts.NEUTRAL] * 2})
    import altair as alt

    chart = (
        alt.Chart(frame)
        .mark_rule(color=charts.NEUTRAL)
        .encode(y="output tok/s")
        .properties(title=alt.TitleParams("t", subtitle="s", subtitleColor=charts.NEUTRAL))
    )
    spec = _convert_altair_to_vega_lite_spec(chart)
    out = charts.for_theme(spec, theme)
    text = str({k: v for k, v in out.items() if k != "datasets"})
    assert charts.NEUTRAL not in text and want in text, text
    assert out["datasets"] == spec["datasets"]  # the data is left alone
    assert charts.NEUTRAL in str(spec)  # and the cached spec is not changed in place
