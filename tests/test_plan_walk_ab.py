"""Walk AB: a local EAGLE-3 draft for google/gemma-3-27b-it served on vLLM only (group gemma27-vllm).

The walk's runs (as its store holds them; vLLM's per-position acceptance rates kept):

- batch 1, 16 requests, max_tokens 64: baseline #1 47.71 tok/s; num_steps 3 #3 81.19 (AL 2.56), num_steps 4 #4
  79.52 (AL 3.05);
- batch 4, 32 requests, max_tokens 64: baseline #2 189.16; num_steps 1 #5 211.46 (AL 1.49), num_steps 3 #6 291.64,
  num_steps 4 #7 173.55 (0.92x: it loses);
- #11: num_steps 1 at batch 1, 16 requests, max_tokens 256 (from the page): 56.84 tok/s, AL 1.49.

The plan said "Also swept: batch 4 (its own measured sweep, #5, #6, #7): 3 at 291.6 tok/s measured in run #6" and
never that #7 lost (AB1); it ranked "batch 1: 1 at 111.5 tok/s predicted" on an AL of 2.00 at num_steps 1 from run
#4's per-position rates while the same draft and engine measured 1.49 there twice (AB2); and Overview said "our
draft has 647 million more parameters ... outside the embedding; the lm_head accounts for 1.18 billion of them"
(AB3).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import overview, plan, speedup, verdicts
from comparelib.live.store import RunRecord
from comparelib.models import comparison
from tests.fixtures import stored_run

DRAFT = "/data/drafts/gemma27-eagle3"
RATES = {  # vLLM's per-position acceptance of each num_steps, as the walk's runs recorded them
    1: [0.4883720930232558],
    3: [0.76, 0.52, 0.28],
    4: [1.0, 0.5238095238095238, 0.2857142857142857, 0.23809523809523808],
}
AL = {1: 1.4883720930232558, 3: 2.56, 4: 3.0476190476190474}
# id, num_steps (None: baseline), tok/s, batch, requests, max_tokens, draft name as recorded
ROWS: list[tuple[int, int | None, float, int, int, int, str | None]] = [
    (1, None, 47.7119959809994, 1, 16, 64, None),
    (2, None, 189.156494836038, 4, 32, 64, None),
    (3, 3, 81.1887182435804, 1, 16, 64, DRAFT),
    (4, 4, 79.5203360663592, 1, 16, 64, DRAFT),
    (5, 1, 211.456053254943, 4, 32, 64, DRAFT),
    (6, 3, 291.643496791787, 4, 32, 64, DRAFT),
    (7, 4, 173.547782635927, 4, 32, 64, DRAFT),
    (11, 1, 56.8415461619268, 1, 16, 256, "gemma27-eagle3"),
]


def _run(
    id_: int, k: int | None, tok_s: float, batch: int, requests: int, max_tokens: int, draft: str | None
) -> RunRecord:
    run = stored_run(
        id_,
        k,
        tok_s,
        AL.get(k) if k else None,
        engine="vllm",
        model="acme/target",
        group="gemma27-vllm",
        draft=draft,
        concurrency=batch,
        requests=requests,
        max_tokens=max_tokens,
        topk=None,
        ndt=None,
    )
    params = {
        "concurrency": batch,
        "requests": requests,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "warmup": 2,
        "prompt_set": "bundled",
        "ignore_eos": False,
    }
    return replace(run, params=params, summary={"accept_per_position": RATES[k]} if k else {})


def walk_ab(ids: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)) -> list[RunRecord]:
    return [_run(*row) for row in ROWS if row[0] in ids]


def _entry() -> Any:
    return comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)


def _num_steps(runs: list[RunRecord]) -> plan.Option:
    result = plan.build(plan.inputs_for(_entry(), runs=runs, own_samples=348.0), rank_batch=1)
    return next(o for o in result.options if o.kind == "num-steps")


# ---------------------------------------------------------------- AB1: every losing run named


LOSING_4 = "Measured slower than without speculation (189.2 tok/s) at batch 4: num_steps=4 (0.92x, run #7)."


def test_speedup_and_the_plan_name_the_losing_run_of_the_batch_4_sweep_the_same_way() -> None:
    runs = walk_ab()
    at_4 = speedup.model_from_runs([r for r in runs if r.params["concurrency"] == 4])
    assert LOSING_4 in speedup.optimum(at_4).sentence  # the speedup page's wording, as the README quotes it
    note = _num_steps(runs).note or ""
    assert "Also swept: batch 4 (its own measured sweep, #5, #6, #7): 3 at 291.6 tok/s measured in run #6" in note
    assert LOSING_4 in note, note


def test_a_swept_batch_where_nothing_lost_names_no_losing_run() -> None:
    runs = [r for r in walk_ab() if r.id != 7]
    assert "Measured slower than without speculation" not in (_num_steps(runs).note or "")


# ---------------------------------------------------------------- AB2: a measured acceptance stands in

# which runs besides the batch-1 sweep (#1, #3, #4) the model sees, and what stands in for num_steps 1's acceptance
# there (None: the fit's 2.00 from run #4's per-position rates)
STANDS_IN = [
    ("batch 4's run, other request count", (2, 5, 6, 7), "measured at batch 4 (run #5, 32 requests)"),
    ("batch 1's run, other max_tokens", (11,), "measured at batch 1 (run #11, max_tokens 256)"),
    ("both: the one measured as the sweep was but for the batch", (2, 5, 6, 7, 11), "measured at batch 4 (run #5, "),
    ("none", (), None),
]


@pytest.mark.parametrize(("case", "more", "words"), STANDS_IN, ids=[c[0] for c in STANDS_IN])
def test_acceptance_measured_at_num_steps_1_stands_in_for_the_per_position_prediction(
    case: str, more: tuple[int, ...], words: str | None
) -> None:
    runs = walk_ab((1, 3, 4, *more))
    batch1 = [r for r in runs if r.params["concurrency"] == 1 and r.id != 11]
    model = speedup.model_from_runs(batch1, accept_from=runs)
    e = model.elsewhere_accept(1)
    if words is None:
        assert e is None and model.accept_at(1) == pytest.approx(2.0), case
        return
    assert e is not None and e.words.startswith(words), (case, e)
    assert model.accept_at(1) == pytest.approx(AL[1]), case
    row = speedup.predict_frame(model).set_index("num_steps").loc[1]
    assert row["accept_source"] == "other batch" and str(row["accept_from"]).startswith(words), row


# what may differ for an acceptance to stand in: batch, request count, max_tokens; never the prompts, temperature,
# engine or draft
NOT_ACCEPTANCE = [
    ("other prompts", {"prompt_set": "sharegpt"}),
    ("other temperature", {"temperature": 0.7}),
]


@pytest.mark.parametrize(("case", "params"), NOT_ACCEPTANCE, ids=[c[0] for c in NOT_ACCEPTANCE])
def test_an_acceptance_measured_on_other_prompts_or_temperature_does_not_stand_in(
    case: str, params: dict[str, Any]
) -> None:
    runs = walk_ab((1, 3, 4, 2, 5, 6, 7))
    runs = [replace(r, params={**r.params, **params}) if r.id == 5 else r for r in runs]
    batch1 = [r for r in runs if r.params["concurrency"] == 1]
    assert speedup.model_from_runs(batch1, accept_from=runs).elsewhere_accept(1) is None, case


def test_the_plan_ranks_batch_1_on_the_measured_acceptance_at_num_steps_1() -> None:
    ns = _num_steps(walk_ab((1, 2, 3, 4, 5, 6, 7, 11)))
    note = ns.note or ""
    assert "batch 1: 1 at 111.5 tok/s predicted" not in note, note
    # num_steps 1 at batch 1 on 1.49: 1.49 / (t_verify + t_step) of the batch-1 fit, about 60 tok/s, so 2 leads. The
    # fit's line through #3 and #4 (11.15 ms fixed, 6.79 a step) put num_steps 1 under the 20.96 ms decode step of
    # baseline #1: below num_steps 3, the fewest measured, the cycle is drawn from that step to run #3's (walks BJ,
    # BN), and num_steps 2 gives 90.1 tok/s, not the line's 102.0
    assert "batch 1: 2 at 90.1 tok/s predicted" in note, note
    assert ns.al_steps == 2 and ns.al is not None and ns.al.value == pytest.approx(2.5238, abs=1e-3)
    assert (
        "At batch 1 the acceptance at num_steps 1 is the 1.49 measured at batch 4 (run #5, 32 requests), not the "
        "fit's 2.00" in note
    ), note


# ---------------------------------------------------------------- AB3: the size sentence


GEMMA_DRAFT = {  # the walk's draft config (make_draft.py): full 262,208-token head, one layer
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_act": "silu",
    "hidden_size": 5376,
    "intermediate_size": 14336,
    "num_hidden_layers": 1,
    "num_attention_heads": 32,
    "num_key_value_heads": 16,
    "head_dim": 128,
    "vocab_size": 262208,
    "draft_vocab_size": 262208,
    "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "target_hidden_size": 5376,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 30, 58], "use_aux_hidden_state": True},
}


def _entry_of(tmp_path: Path, name: str, cfg: dict[str, Any]) -> comparison.Entry:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    return comparison.load_entry(str(folder), with_header=False)


def test_a_head_larger_than_the_whole_difference_is_said_with_the_layers_difference(tmp_path: Path) -> None:
    own = _entry_of(tmp_path, "gemma27-eagle3", GEMMA_DRAFT)
    ref = comparison.load_entry(comparison.registry_source(verdicts.KIMI_REFERENCE), with_header=False)
    size = overview.size_facts(own, ref, "our draft", verdicts.KIMI_REFERENCE)
    assert size.own_excluding_embedding - size.ref_excluding_embedding == 646_718_464  # the walk's "647 million"
    assert size.own_lm_head - size.ref_lm_head == 1_180_254_208  # its "1.18 billion"
    assert "accounts for" not in size.sentence, size.sentence
    assert (
        f"our draft has 647 million more parameters than {verdicts.KIMI_REFERENCE} outside the embedding: its lm_head "
        "is 1.18 billion larger (262,208 x 5,376 over the full vocabulary against 32,000 x 7,168 over a reduced "
        f"draft vocabulary in {verdicts.KIMI_REFERENCE}), and the rest (layers, fc, norms) 534 million smaller."
    ) in size.sentence, size.sentence


# (own config changes, the words about the lm_head the sentence must hold)
SPLITS = [
    # the head is part of a larger difference: "accounts for" stays true
    ("head within the difference", {"vocab_size": 64000, "draft_vocab_size": 64000, "intermediate_size": 60000},
     "; the lm_head accounts for"),
    # the draft is larger though its head is smaller: both parts said
    ("head smaller, layers larger", {"vocab_size": 16000, "draft_vocab_size": 16000, "intermediate_size": 80000},
     "its lm_head is"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "over", "words"), SPLITS, ids=[c[0] for c in SPLITS])
def test_how_the_size_difference_splits_between_head_and_layers(
    tmp_path: Path, case: str, over: dict[str, Any], words: str
) -> None:
    own = _entry_of(tmp_path, "own", {**GEMMA_DRAFT, **over})
    ref = comparison.load_entry(comparison.registry_source(verdicts.KIMI_REFERENCE), with_header=False)
    size = overview.size_facts(own, ref, "our draft", "the reference")
    assert words in size.sentence, (case, size.sentence)
    diff = size.own_excluding_embedding - size.ref_excluding_embedding
    lm = size.own_lm_head - size.ref_lm_head
    if "accounts for" in size.sentence:  # only where the head's part is a part of the whole, same side
        assert 0 < lm / diff <= 1, (case, size.sentence)


# ---------------------------------------------------------------- the more-data band on a flat log (walk AA's fix)


def _walk_ab_log(path: Path) -> Path:
    """The walk's plateaued train.csv (make_log.py): per-position accuracy rising to a ceiling by step 1,875."""
    import math

    ceil = [0.72, 0.62, 0.55, 0.50]
    lines = ["step,samples_seen,split," + ",".join(f"acc_{i}" for i in range(4))]
    for step in range(50, 1876, 50):
        f = 1 - math.exp(-step / 180)
        acc = [round(c * f + 0.002 * math.sin(step), 4) for c in ceil]
        lines.append(f"{step},{step * 32},train," + ",".join(map(str, acc)))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_on_a_flat_log_more_data_adds_what_the_bounded_fit_adds_to_the_measured_al(tmp_path: Path) -> None:
    """Acceptance vs data calls this log flat and the power law's +0.23 at 10x "a model statement": the plan keeps
    the bounded fit's change from your volume (about nothing), with the band of that change, never under the
    measured AL (run #6: 2.56 at (3,1,4))."""
    from comparelib.analysis import curves

    curve = curves.curve([str(_walk_ab_log(tmp_path / "train.csv"))], steps=3)
    assert curve.verdict == "plateau", curve.sentence
    inputs = plan.inputs_for(_entry(), runs=walk_ab(), own_samples=348.0, curve=curve, curve_source="train.csv")
    md = next(o for o in plan.build(inputs, steps=3).options if o.kind == "more-data")
    assert md.al is not None and md.al.low is not None and md.al.high is not None, md.al
    assert AL[3] <= md.al.low <= md.al.value <= md.al.high < AL[3] + 0.01, md.al
    assert "over the bounded fit's confidence region" in (md.note or ""), md.note
