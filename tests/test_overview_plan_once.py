"""Overview builds the plan at its defaults once per run, opened or closed: the opened fold-out at untouched inputs
is the plan the volume gap already named (it was built twice, the slowest part of an opened Overview)."""

from __future__ import annotations

from typing import Any

import pytest

from comparelib.analysis import plan
from tests.fixtures import page_app


def test_the_opened_plan_at_its_defaults_is_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[Any, ...]] = []
    real = plan.build

    def counted(inputs: plan.Inputs, **kw: Any) -> plan.Plan:  # delegates: only counts
        built.append((kw.get("target_al"), kw.get("gpu_name"), kw.get("rank_batch")))
        return real(inputs, **kw)

    monkeypatch.setattr(plan, "build", counted)
    at = page_app("../pages/overview.py", timeout=60).run()
    assert not at.exception, at.exception
    closed = next(m.value for m in at.markdown if m.value.startswith("**Ranked first"))
    assert built == [(None, "H200", 1)], built
    built.clear()
    at.session_state["ov_plan"] = True
    at.run()
    assert not at.exception, at.exception
    assert built == [(None, "H200", 1)], built  # not again for the opened table
    opened = next(m.value for m in at.markdown if m.value.startswith("**Ranked first"))
    assert opened.split(".**")[0] == closed.split(".**")[0]
    table = next(df.value for df in at.dataframe if "option" in df.value.columns)
    assert table["kind"].iloc[0] == "more-data"
    built.clear()
    at.selectbox(key="plan_gpu").set_value("H100").run()  # changed inputs: built for them
    assert not at.exception, at.exception
    assert (None, "H100", 1) in built and (None, "H200", 1) in built, built
