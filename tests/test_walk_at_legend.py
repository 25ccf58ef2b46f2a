"""Walk AT (minor): Live benchmark's "Acceptance length vs num_steps" drew two legends side by side under the plot
(the settings', 480 px labels, and the engines'), and at 1400 px the engines' was cut to "eng". One legend under the
plot; the engines' above it."""

from __future__ import annotations

from typing import Any

from comparelib import charts
from comparelib.analysis import speedup
from tests.fixtures import stored_run


def _legends(spec: Any) -> dict[str, str]:
    """Each encoding's legend orient (by field) over a chart's layers."""
    out: dict[str, str] = {}
    for part in [spec, *spec.get("layer", [])]:
        for enc in part.get("encoding", {}).values():
            if isinstance(enc, dict) and isinstance(enc.get("legend"), dict):
                out[enc["field"]] = enc["legend"].get("orient", "right")
    return out


def test_one_legend_under_the_acceptance_plot() -> None:
    kw: dict[str, Any] = {"model": "meta-llama/Llama-4-Scout-17B-16E-Instruct", "group": "scout-b1"}
    runs = [
        stored_run(1, None, 84.4, engine="sglang", **kw),
        stored_run(2, 3, 164.0, 2.586, engine="sglang", draft="epoch_4", **kw),
        stored_run(3, 5, 193.3, 3.2, engine="sglang", draft="epoch_4", **kw),
        stored_run(6, None, 83.4, engine="vllm", **kw),
        stored_run(7, 3, 173.4, 2.586, engine="vllm", draft="epoch_4", **kw),
    ]
    got = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert got is not None and got[1] is not None
    orients = _legends(got[1].to_dict())
    assert orients.get("engine") == "top", orients
    assert [f for f, o in orients.items() if o == "bottom"] == ["series"], orients
