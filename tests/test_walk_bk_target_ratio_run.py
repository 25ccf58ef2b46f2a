"""Walk BK4/BK5: what a page says of a pasted target it counted, and which run is "your acceptance".

BK4: with the target deepseek-ai/DeepSeek-R1-Distill-Llama-8B pasted as the draft, Compare drafts counted it
("... is shown as the target ... its 8,030,261,248 parameters") and said of the published draft beside it
"no draft/target ratio: the config of its target deepseek-ai/DeepSeek-R1-Distill-Llama-8B is not shipped with the
app and was not read for any draft here". The ratio is read from the target shown (424,689,664 / 8,030,261,248).

BK5: with AQ-MedAI/Kimi-K2-Instruct-eagle3 picked as the reference on Acceptance vs data, the lead read "Your
acceptance: 2.79, run #13 (at the published chain of steps=3,...,bs=8,sglang, batch 16 (published: 8)), the run
Overview reads too" (and the Live results tab "run #13, your acceptance") where Overview, on its own reference
(yuhuili's draft for the target), reads run #11, the tree; with yuhuili picked the lead read run #7. The lead and the
tab name one run; the lead no longer claims Overview reads it where Overview's reference is another.

Minor: the Live benchmark acceptance chart's axis was labelled 1.80-3.20 with runs drawn at 3.33 above its last tick.
"""

from __future__ import annotations

from typing import Any

from comparelib import charts
from comparelib.analysis import speedup
from comparelib.models import comparison
from tests.fixtures import bench_config, bench_store, page_app, page_text, store_run, stored_run
from tests.hub_emulator import HubEmulator

TARGET = "deepseek-ai/DeepSeek-R1-Distill-Llama-8B"
REF = "yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B"
LLAMA8B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "rms_norm_eps": 1e-05,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "hidden_act": "silu",
}


OWN = "acme-ml/R1-Distill-Llama-8B-eagle3-think"
KIMI = "AQ-MedAI/Kimi-K2-Instruct-eagle3"
GROUP = "r1-bk"
# (batch, num_steps, topk, draft tokens, tok/s, acceptance): walk BK's group, #4 to #13
RUNS = [
    (1, None, None, None, 47.2, None),
    (1, 1, 1, 2, 69.8, 1.79),
    (1, 2, 1, 3, 78.7, 2.40),
    (1, 3, 1, 4, 82.5, 2.79),
    (1, 4, 1, 5, 80.0, 3.00),
    (1, 5, 1, 6, 77.0, 3.16),
    (1, 6, 1, 7, 74.0, 3.33),
    (1, 3, 4, 8, 86.9, 3.33),
    (16, None, None, None, 597.0, None),
    (16, 3, 1, 4, 926.0, 2.79),
]


def _hub(hub: HubEmulator) -> None:
    hub.add_model(TARGET, LLAMA8B)


def test_compare_page_gives_the_ratio_against_the_target_shown(hub: HubEmulator) -> None:
    _hub(hub)
    at = page_app("../pages/compare.py", timeout=180)
    at.query_params["draft"] = TARGET
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert f"{TARGET} is a target model" in text, text
    assert "is shown as the target" in text and "8,030,261,248 parameters" in text, text
    assert "not shipped with the app and was not read" not in text, text
    assert "no draft/target ratio" not in text, text


def test_share_targets_sizes_a_published_draft_by_the_target_shown(hub: HubEmulator) -> None:
    _hub(hub)
    entries = comparison.share_targets(
        [comparison.load_entry(TARGET), comparison.load_entry(comparison.REGISTRY_PREFIX + REF)]
    )
    ref = entries[1]
    assert ref.target_count is not None and ref.target_count.total == 8_030_261_248
    assert ref.ratio is not None and round(100 * ref.ratio, 2) == 5.29
    assert ref.target_size_from is not None and ref.target_size_from.startswith(f"read for {TARGET}@"), ref
    assert comparison.no_ratio_reason(ref) is None


def _own(hub: HubEmulator) -> dict[tuple[int, int | None, int | None], int]:
    _hub(hub)
    own = {
        **LLAMA8B,
        "architectures": ["LlamaForCausalLMEagle3"],
        "num_hidden_layers": 1,
        "draft_vocab_size": 32000,
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 15, 28], "use_aux_hidden_state": True},
    }
    hub.add_model(OWN, own, card=f"---\nbase_model: {TARGET}\n---\nEAGLE-3 draft.\n")
    ids = {}
    for bs, steps, topk, ndt, tok_s, al in RUNS:
        cfg = bench_config("sglang", TARGET, steps, draft=OWN if steps else None, topk=topk, ndt=ndt)
        summary: dict[str, Any] = {"requests": 6 * bs, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[(bs, steps, topk)] = store_run(bench_store(), cfg, summary, group=GROUP, concurrency=bs)
    return ids


def _lead(at: Any) -> str:
    said = next(c.value for c in at.caption if "Your acceptance:" in c.value)
    return next(x for x in said.split("\n") if x.startswith("Your acceptance:"))


def test_lead_names_overviews_run_at_overviews_reference(hub: HubEmulator) -> None:
    ids = _own(hub)
    at = page_app("../pages/scaling.py", timeout=180)
    at.query_params["draft"] = OWN
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception, at.exception
    suggested = at.selectbox(key="sc_ref").value
    assert suggested == REF, suggested
    at.selectbox(key="sc_ref").set_value(KIMI)
    at.run()
    assert not at.exception, at.exception
    lead = _lead(at)
    run = lead.split("run #", 1)[1].split(" ", 1)[0]
    # Overview, on its own reference (the published draft for the target), reads the tree: said, never "too"
    assert "the run Overview reads too" not in lead, lead
    assert f"Overview, on its reference {REF}, reads run #{ids[(1, 3, 4)]} (3.33" in lead, lead
    # the Live results tab names the lead's run wherever it says "your acceptance"
    for line in page_text(at).split("\n"):
        if "your acceptance)" in line:
            assert f"run #{run}, your acceptance" in line, (lead, line)


def test_run_sweep_acceptance_axis_ticks_span_every_point() -> None:
    runs = [
        stored_run(i, steps, tok_s, al, topk=topk, ndt=ndt, concurrency=bs, requests=6 * bs)
        for i, (bs, steps, topk, ndt, tok_s, al) in enumerate(RUNS, start=4)
    ]
    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert built is not None and built[1] is not None
    spec = built[1].to_dict()
    ys = [
        n["encoding"]["y"]
        for n in [spec, *spec.get("layer", [])]
        if n.get("encoding", {}).get("y", {}).get("field") == "accept length" and "axis" in n["encoding"]["y"]
    ]
    assert ys, spec
    for y in ys:
        ticks = y["axis"]["values"]
        assert ticks[0] <= 1.79 and ticks[-1] >= 3.33, ticks
        assert y["scale"]["domain"] == [ticks[0], ticks[-1]], y


def test_a_reference_overview_kept_for_another_draft_is_not_overviews(hub: HubEmulator) -> None:
    """Walk BQ 8: after the target was pasted as the draft and the draft pasted back, this page named the target's
    reference as "Overview's reference" (Overview had not run for the draft since; it then picks the draft's own
    suggestion). A kept ``ov_ref`` counts only while it is this draft's."""
    ids = _own(hub)
    at = page_app("../pages/scaling.py", timeout=180)
    at.query_params["draft"] = OWN
    at.query_params["draft_group"] = GROUP
    at.session_state["ov_ref"] = KIMI  # what Overview kept for the target pasted before
    at.session_state["_ov_ref_for"] = TARGET
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_ref").value == REF
    lead = _lead(at)
    assert KIMI not in lead and "Overview, on its reference" not in lead, lead
    assert f"Overview reads run #{ids[(1, 3, 4)]} (3.33" in lead, lead  # on the page's reference, Overview's too
