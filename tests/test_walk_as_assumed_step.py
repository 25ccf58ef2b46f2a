"""Walk AS 1: a group swept num_steps 3 and 5 at batch 1 (baseline #8, runs #9 and #10) and measured batch 32 at one
num_steps (baseline #1, num_steps 3 in run #2, 4,530.9 tok/s). Batch 32's cycle at any other num_steps rests on a
draft-step cost assumed, not measured (the speedup page predicts none there). Ranked at batch 1 (5 served) the plan
gave "what is served now" at batch 32 as 5,285.9 tok/s sourced "(measured)", and its num-steps row put num_steps 4
at 10,815.4 tok/s at batch 64 (twice batch 32's assumed figure) as "an upper bound", "each stream no faster than
measured at batch 1 and 32", though 169.0 tok/s a stream is faster than any run measured a stream (167.8, run #10).
Such figures are now said to be predictions on the assumed step cost."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from comparelib.analysis import plan
from comparelib.models import comparison
from tests.fixtures import stored_run
from tests.test_walk_ah_steps_agree import DRAFT_CONFIG

TARGET = "openai/gpt-oss-20b"
DRAFT = "gptosslab/gpt-oss-20b-eagle3-v2"


def _runs() -> list[Any]:
    one: dict[str, Any] = dict(engine="vllm", model=TARGET, group="g", requests=16, concurrency=1, max_tokens=128)
    big: dict[str, Any] = {**one, "requests": 64, "concurrency": 32}
    return [
        stored_run(1, None, 2388.74, None, draft=None, **big),
        stored_run(2, 3, 4530.87, 2.56, draft=DRAFT, **big),
        stored_run(8, None, 73.83, None, draft=None, **one),
        stored_run(9, 3, 144.18, 2.56, draft=DRAFT, **one),
        stored_run(10, 5, 167.79, 3.4595, draft=DRAFT, **one),
    ]


def _build(tmp_path: Path, rank_batch: int) -> plan.Plan:
    cfg: dict[str, Any] = copy.deepcopy(DRAFT_CONFIG)
    cfg["speculators_config"]["verifier"]["name_or_path"] = TARGET
    folder = tmp_path / f"draft{rank_batch}"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(cfg))
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    return plan.build(plan.inputs_for(entry, runs=_runs(), own_samples=300_000.0), rank_batch=rank_batch)


def _text(result: plan.Plan, sid: str) -> str:
    return " ".join(s.text for s in result.sources if s.id in sid.split(", "))


def test_served_now_at_batch_32_is_a_prediction_on_an_assumed_step(tmp_path: Path) -> None:
    result = _build(tmp_path, 1)
    cur = result.current
    assert cur["served_steps"] == 5
    assert cur["tok_s"]["1"] == 167.79 and cur["tok_s_source"]["1"].startswith("measured"), cur
    assert "32" not in cur.get("tok_s_measured", {}), cur
    src = cur["tok_s_source"]["32"]
    assert src.startswith("predicted"), (src, _text(result, src))
    said = _text(result, src)
    assert "num_steps 5" in said and "run #2" in said and "assumed" in said, said


def test_no_bound_or_measured_cap_claimed_on_an_assumed_step(tmp_path: Path) -> None:
    for rank in (1, 32):
        result = _build(tmp_path, rank)
        (ns,) = [o for o in result.options if o.kind == "num-steps"]
        texts = [ns.note, *(s.text for s in result.sources)]
        for t in texts:
            assert "no faster than measured" not in t, t
        # walk BW 3: no best is named at batch 64 on the step cost assumed at batch 32 (4 was, at 10,815.4 tok/s,
        # faster a stream than any run measured); the num_steps batch 32's run anchors is given, a bound there
        b64 = re.search(r"batch 64: the best is not known \((.*?)\); num_steps 3 at ([\d,.]+) tok/s ([^(]*)", ns.note)
        assert b64 is not None, ns.note
        assert "per-step cost assumed at batch 32" in b64.group(1), b64.group(1)
        assert f"{ns.tok_s['64'].value:,.1f}" == b64.group(2) and "an upper bound" in b64.group(3), b64.group(0)
        assert (ns.tok_s["64"].value or 0) / 64 <= 167.79
        # num_steps 3, measured at batch 32, keeps its measurement there
        assert "4,530.9 tok/s measured in run #2" in ns.note, ns.note
