"""Pages draw their charts through app.show_chart: a rerun with the same inputs builds no Altair chart, and the
cached spec is what st.altair_chart itself would have sent for the same chart."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from comparelib import charts
from tests.fixtures import page_app

BUILDERS = (
    "scaling_chart",
    "sweep_chart_parts",
    "run_sweep_charts",
    "curve_chart",
    "params_chart",
    "plan_curve_chart",
    "plan_cost_chart",
)


def _record(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[tuple[tuple[Any, ...], dict[str, Any], Any]]]:
    """Wrap the chart builders (the pages' inputs, not the code under test) to see when one is called."""
    calls: dict[str, list[tuple[tuple[Any, ...], dict[str, Any], Any]]] = {name: [] for name in BUILDERS}
    for name in BUILDERS:
        build = getattr(charts, name)

        def wrapper(*args: Any, _name: str = name, _build: Callable[..., Any] = build, **kw: Any) -> Any:
            out = _build(*args, **kw)
            calls[_name].append((args, kw, out))
            return out

        monkeypatch.setattr(charts, name, functools.wraps(build)(wrapper))
    st.cache_data.clear()
    return calls


def _protos(at: AppTest) -> list[Any]:
    return [c.proto for c in at.get("vega_lite_chart")]


def _same(a: Any, b: Any) -> None:
    """The same chart in the browser: spec, Arrow datasets (content-hash names and bytes), theme, inline data; ``b``'s
    secondary grey as the app draws it for the theme (``charts.for_theme``; AppTest knows no theme: light)."""
    assert json.loads(a.spec) == charts.for_theme(json.loads(b.spec), None)
    assert [(d.name, d.data.data) for d in a.datasets] == [(d.name, d.data.data) for d in b.datasets]
    assert (a.theme, a.data.data, a.use_container_width) == (b.theme, b.data.data, b.use_container_width)


def test_a_rerun_with_the_same_inputs_builds_no_chart(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _record(monkeypatch)
    at = page_app("../pages/scaling.py", timeout=60).run()
    assert not at.exception, at.exception
    first = _protos(at)
    assert len(first) == 3 and len(calls["scaling_chart"]) == 1 and len(calls["sweep_chart_parts"]) == 1
    at.run()
    assert not at.exception, at.exception
    assert len(calls["scaling_chart"]) == 1 and len(calls["sweep_chart_parts"]) == 1  # served from the cache
    again = _protos(at)
    assert len(again) == 3
    for a, b in zip(first, again, strict=True):
        _same(a, b)
    # another input: the chart is built again
    at.radio(key="sc_x").set_value("tokens").run()
    assert not at.exception, at.exception
    assert len(calls["scaling_chart"]) == 2
    assert "training tokens" in _protos(at)[0].spec


def test_the_learning_curve_is_known_by_its_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The curve's chart is keyed by what the curve was read from, not by hashing its points."""
    from tests.test_page_curves import _specforge_log

    calls = _record(monkeypatch)
    at = page_app("../pages/scaling.py", timeout=120)
    at.session_state["lc_path"] = str(_specforge_log(tmp_path / "train.log"))
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    assert not at.exception, at.exception
    assert len(calls["curve_chart"]) == 1 and len(_protos(at)) == 2  # the fit's and the curve's
    at.run()
    assert not at.exception, at.exception
    assert len(calls["curve_chart"]) == 1 and len(_protos(at)) == 2
    direct = AppTest.from_function(_altair_page, args=([calls["curve_chart"][0][2]],), default_timeout=60).run()
    _same(_protos(at)[-1], _protos(direct)[0])
    at.radio(key="lc_split").set_value("train").run()  # another fit: another chart
    assert not at.exception, at.exception
    assert len(calls["curve_chart"]) == 2


def _altair_page(built):  # type: ignore[no-untyped-def]  # its source is the script: no names from here
    import streamlit as st

    for chart in built:
        st.altair_chart(chart, width="stretch")


@pytest.mark.parametrize(
    ("page", "builders"),
    [
        ("../pages/scaling.py", ("scaling_chart", "sweep_chart_parts")),
        ("../pages/bench.py", ("run_sweep_charts",)),
        ("../pages/compare.py", ("params_chart",)),
        ("../pages/overview.py", ("plan_curve_chart", "plan_cost_chart")),
    ],
)
def test_the_cached_spec_is_what_altair_chart_sends(
    monkeypatch: pytest.MonkeyPatch, page: str, builders: tuple[str, ...]
) -> None:
    calls = _record(monkeypatch)
    at = page_app(page, timeout=60)
    at.session_state["ov_plan"] = True  # Overview's plan, opened: its charts
    at.run()
    assert not at.exception, at.exception
    at.run()  # the second run draws from the cache
    assert not at.exception, at.exception
    built: list[Any] = []
    for name in builders:
        (_args, _kw, out) = calls[name][0]
        built += [c for c in out if c is not None] if isinstance(out, tuple) else [out]
    assert built
    direct = AppTest.from_function(_altair_page, args=(built,), default_timeout=60).run()
    assert not direct.exception, direct.exception
    expected = _protos(direct)
    assert len(expected) == len(built) == len(_protos(at))
    for ours, theirs in zip(_protos(at), expected, strict=True):
        _same(ours, theirs)
        assert ours.datasets  # the data went as Arrow datasets, not inline JSON
    assert [c.proto.theme for c in at.get("vega_lite_chart")] == ["streamlit"] * len(built)
