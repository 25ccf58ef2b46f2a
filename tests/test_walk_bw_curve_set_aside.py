"""Walk BW 4 (low): a plateaued log (acc_k = c_k (1 - exp(-s / 1800)), flat at tau_sim 2.72 after ~8K samples) got
the verdict "the power-law fit is set aside for predictions, as its ceiling 4.64 is above the 4.00 a 3-position chain
can reach", while the chart beside it drew that fit as "dashed: fit, with the 95% band of the mean", rising above
the flat points. A fit set aside is drawn as set aside: grey, no band, and said so."""

from __future__ import annotations

import math

from comparelib import charts
from comparelib.analysis import curves
from tests.test_charts import _all_nodes

C = (0.78, 0.72, 0.68)


def _plateau() -> curves.Curve:
    pts = []
    for i in range(1, 113):
        s = 160.0 * i
        acc = tuple(c * (1 - math.exp(-s / 1800)) for c in C)
        tau = 1 + acc[0] + acc[0] * acc[1] + acc[0] * acc[1] * acc[2]
        pts.append(curves.CurvePoint(step=10 * i, samples_seen=s, split="train", acc=acc, tau_sim=tau))
    return curves.analyse(pts)


def test_a_fit_set_aside_is_drawn_as_set_aside() -> None:
    curve = _plateau()
    assert curve.verdict == "plateau" and curve.evidence["fit_used"] is False, curve.sentence
    assert "set aside" in curve.sentence
    spec = charts.curve_chart(curve).to_dict()
    subtitle = " ".join(spec["title"]["subtitle"])
    assert "dashed: fit, with the 95% band" not in subtitle, subtitle
    assert "set aside" in subtitle, subtitle
    marks = [n.get("mark") for n in _all_nodes(spec) if "mark" in n]
    kinds = [m["type"] if isinstance(m, dict) else m for m in marks]
    assert "area" not in kinds, kinds  # no band of a fit that predicts nothing
    dashed = [m for m in marks if isinstance(m, dict) and m.get("type") == "line" and m.get("strokeDash")]
    assert dashed and all(m.get("color") == charts.NEUTRAL for m in dashed), dashed


def test_a_fit_in_use_keeps_its_band() -> None:
    pts = []
    for i in range(1, 40):
        s = 1000.0 * i
        tau = 3.5 - 1.5 * (s / 1000) ** -0.3 + 0.01 * math.sin(i)
        a = (tau - 1) / 3
        pts.append(curves.CurvePoint(step=i, samples_seen=s, split="eval", acc=(a, a, a), tau_sim=tau))
    curve = curves.analyse(pts)
    assert curve.evidence.get("fit_used") is not False, curve.sentence
    spec = charts.curve_chart(curve).to_dict()
    assert "dashed: fit, with the 95% band of the mean" in spec["title"]["subtitle"]
