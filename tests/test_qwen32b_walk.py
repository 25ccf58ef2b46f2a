"""A new user's Qwen3-32B walk: an EAGLE-3 draft (yourorg/qwen3-32b-eagle3, aux ids [1, 31, 63] on a 64-layer
target), served on vLLM and SGLang, its run group holding SGLang runs #13 and #14 of this same draft.

1. Compare said SGLang 0.5.23 does not serve this draft while the user's own runs were served by SGLang with it
   (acceptance 2.74), and no page noticed the conflict;
2. "Engine rows and the config that serves" opened on the reference (a Kimi draft), its JSON sitting under the
   user's warning as if it were the fix for the user's draft;
3. an MTP module's missing verdict told the user to "give the target" (the CLI says why there is none);
4. Acceptance vs data's learning-curve hint pointed at fields "beside the upload" that sit in a collapsed expander;
5. Dataset audit's "Length p99 / max" was cut ("11,047 / 11,0...") at 1400 px.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.models import comparison
from tests.fixtures import (
    AQ,
    TINY_DEEPSEEK,
    bench_store,
    eagle3_tensors,
    page_app,
    qwen3_32b_config,
    qwen3_32b_eagle3_config,
    routed_compare,
    store_run,
)
from tests.hub_emulator import HubEmulator
from tests.tokenizer_fixture import build_tokenizer

COMPARE = "pages/compare.py"
DRAFT = "yourorg/qwen3-32b-eagle3"
TARGET = "Qwen/Qwen3-32B"
GROUP = "qwen32b"
H, FFN, V, VD, N = 5120, 25600, 151936, 32000, 64


def _target_config() -> dict[str, Any]:
    return qwen3_32b_config(rope_theta=1000000)


def _draft_config() -> dict[str, Any]:
    aux = {"eagle_aux_hidden_state_layer_ids": [1, 31, 63], "use_aux_hidden_state": True}
    return qwen3_32b_eagle3_config(aux, rope_theta=1000000)


RunSpec = tuple[str, str | None, float | None, str | None, str | None]  # engine, algorithm, AL, draft, version


def _store_runs(specs: list[RunSpec], group: str = GROUP) -> list[Any]:
    """Runs of the user's servers, stored as the bench page stores them; returned as the pages read them."""
    store = bench_store()
    for engine, algorithm, accept, draft, version in specs:
        cfg: dict[str, Any] = {"engine": engine, "model": TARGET, "speculative_algorithm": algorithm}
        if algorithm:
            cfg |= {"num_steps": 3, "draft_model": draft}
        if version:
            cfg["version"] = version
        summary: dict[str, Any] = {"requests": 8, "errors": 0, "output_tokens_per_s": 50.0}
        if accept is not None:
            summary["accept_length"] = accept
        store_run(store, cfg, summary, group=group, concurrency=4)
    return list(store.runs(group=group))


# the walk's group: a baseline, the draft on vLLM, and two SGLang runs of this same draft (acceptance 2.74)
WALK: list[RunSpec] = [
    ("sglang", None, None, None, None),
    ("vllm", "EAGLE3", 2.6, DRAFT, None),
    ("sglang", "EAGLE3", 2.74, DRAFT, None),
    ("sglang", "EAGLE3", 2.74, DRAFT, None),
]


def _hub(hub: HubEmulator) -> str:
    """The target and the draft on the Hub; the draft's short commit (its label's @sha)."""
    hub.add_model(TARGET, _target_config())
    return hub.add_model(DRAFT, _draft_config(), tensors=eagle3_tensors(H, FFN, V, VD, kv_dim=1024))[:7]


def _compare(**query: Any) -> AppTest:
    return routed_compare(DRAFT, GROUP, **query)


# --------------------------------------------------------------------------- 1. the runs beside the verdict


def test_sglang_verdict_holds_by_its_code() -> None:
    """SGLang 0.5.23 adds 1 to each id on a Qwen3 target (qwen3.py:791) and captures inside its layer loop
    (qwen3.py:530, range(0, 64)): id 63 asks for boundary 64, never reached; 2 states reach an fc built for 3."""
    from comparelib.models import serving

    (v,) = serving.serve(
        _draft_config(),
        target_arch="Qwen3ForCausalLM",
        n_layers=N,
        target_hidden=H,
        fc_in_checkpoint=3 * H,
        rows=serving.parse_rows("SGLang 0.5.23"),
    )
    assert v.status == "fails" and v.captured == [2, 32]  # boundary 64 dropped
    assert "2 captured states" in v.reason and "shape error in the first draft forward" in v.reason


def test_compare_names_the_runs_that_served_the_draft_beside_the_verdict(hub: HubEmulator) -> None:
    """The lint and "Will it serve?" said SGLang does not serve the draft; the group's SGLang runs of this draft,
    acceptance 2.74, went unmentioned."""
    _hub(hub)
    runs = _store_runs(WALK)
    sglang_ids = [r.id for r in runs if r.engine == "sglang" and not r.is_baseline]
    at = _compare()
    said = (
        f"but runs #{sglang_ids[0]}, #{sglang_ids[1]} in group {GROUP} were served by SGLang with this draft "
        "(measured acceptance 2.74): the server may have loaded another revision or config of the draft, or a "
        "build whose rule differs; check the server's --speculative-draft-model-path and version."
    )
    (lint_head,) = [e.value for e in at.error if "does not serve this draft" in e.value]
    assert lint_head.startswith(f"**{DRAFT}@")
    notes = [w.value for w in at.warning if said in w.value]
    assert len(notes) == 2, [w.value for w in at.warning]  # beside the lint's verdict and under "Will it serve?"
    assert all(n.startswith(f"**{DRAFT}@") and "By SGLang's code SGLang 0.5.23" in n for n in notes), notes
    assert not [w.value for w in at.warning if "served by vLLM" in w.value]  # vLLM's rows start: no conflict


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        pytest.param(WALK, ["#3, #4", "measured acceptance 2.74", "served by SGLang with"], id="walk"),
        pytest.param(  # a recorded version with no row: named, it may be a build whose rule differs
            [("sglang", "EAGLE3", 2.7, DRAFT, "0.5.9")],
            ["run #1 in group", "served by SGLang 0.5.9 with"],
            id="other-version",
        ),
        pytest.param(  # two acceptances: each named with its run
            [("sglang", "EAGLE3", 2.7, DRAFT, None), ("sglang", "EAGLE3", 2.8, "/ckpt/qwen3-32b-eagle3", None)],
            ["runs #1, #2", "(measured acceptance 2.70 in #1, 2.80 in #2)"],
            id="two-values-and-a-local-folder",
        ),
        pytest.param([("sglang", "EAGLE3", 2.7, "yourorg/other-draft", None)], [], id="another-draft"),
        pytest.param([("sglang", None, None, None, None)], [], id="baseline-only"),
        pytest.param([("sglang", "NEXTN", 2.7, DRAFT, None)], [], id="mtp-run"),
        pytest.param([("vllm", "EAGLE3", 2.7, DRAFT, None)], [], id="vllm-serves-it"),
    ],
)
def test_served_against_rules(tmp_path: Path, specs: list[RunSpec], expected: list[str]) -> None:
    draft_dir, target_dir = tmp_path / "qwen3-32b-eagle3", tmp_path / "Qwen3-32B"
    for folder, cfg in ((draft_dir, _draft_config()), (target_dir, _target_config())):
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(cfg))
    entry = comparison.load_entry(str(draft_dir), target=str(target_dir))
    said = comparison.served_against_rules(entry, _store_runs(specs))
    if not expected:
        assert said == []
        return
    (sentence,) = said
    assert sentence.startswith("By SGLang's code SGLang 0.5.23 and SGLang 0.5.1 do not serve this draft, but run")
    for part in expected:
        assert part in sentence, sentence


# --------------------------------------------------------------------------- 2. engine rows of your draft


def test_engine_rows_open_on_your_draft_and_name_it(hub: HubEmulator) -> None:
    """The rows opened on the first draft needing a change, the reference (a Kimi draft: its SGLang 0.5.1 row is
    unsupported), its config reading as the fix for the user's draft under the user's warning."""
    sha = _hub(hub)
    _store_runs(WALK)
    at = _compare(m=[f"registry:{AQ}", DRAFT])

    def shown() -> list[str]:
        heads = ("Engine rows of", "Config that serves", "No config")
        return [m.value for m in at.markdown if m.value.startswith(heads)]

    pick = at.selectbox(key="compare_serve_detail")
    assert pick.options[0] == AQ  # listed first, and needing a change
    assert pick.value == f"{DRAFT}@{sha} (your draft)"
    rows = shown()
    assert rows and all(f"**{DRAFT}@{sha} (your draft)** on {TARGET}@" in m for m in rows), rows
    pick.set_value(AQ).run()
    assert not at.exception, at.exception
    rows = shown()
    assert rows and all(f"**{AQ}** on moonshotai/Kimi-K2-Instruct" in m for m in rows), rows


# --------------------------------------------------------------------------- 3. an MTP module's missing verdict


def test_an_mtp_module_is_told_why_it_has_no_verdict_as_the_cli_says(tmp_path: Path) -> None:
    mtp, target = tmp_path / "mtp", tmp_path / "target"
    for folder, cfg in (
        (mtp, {**TINY_DEEPSEEK, "architectures": ["DeepseekV3ForCausalLMNextN"]}),
        (target, TINY_DEEPSEEK),
    ):
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(cfg))
    at = page_app(COMPARE, timeout=120)
    at.query_params["m"] = [str(mtp)]
    at.query_params["target"] = str(target)
    at.run()
    assert not at.exception, at.exception
    entry = comparison.load_entry(str(mtp), target=str(target))
    why = comparison.no_serving_verdict(entry)
    assert why and "MTP module is served by the target's own weights" in why
    infos = [i.value for i in at.info if "no verdict" in i.value]
    assert infos == [f"**{entry.label}**: no verdict on whether each engine serves it: {why}."], infos
    assert not [i.value for i in at.info if "give the target" in i.value]


def test_a_draft_without_a_target_is_sent_to_the_page_field_not_a_cli_option(tmp_path: Path) -> None:
    folder = tmp_path / "qwen3-32b-eagle3"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(_draft_config()))
    at = page_app(COMPARE, timeout=120)
    at.query_params["m"] = [str(folder)]
    at.run()
    assert not at.exception, at.exception
    (info,) = [i.value for i in at.info if "no verdict" in i.value]
    assert "its target (the Target model field above)" in info and "--target" not in info, info


# --------------------------------------------------------------------------- 4. the learning curve's fields


def test_the_samples_fields_sit_beside_the_upload_where_the_hint_points() -> None:
    from comparelib.analysis import curves

    at = page_app("pages/scaling.py", timeout=120)
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    assert not at.exception, at.exception
    folded = {w.key for x in at.expander for w in x.number_input}
    assert "lc_batch" not in folded and "lc_epoch" not in folded, folded  # in view, not in a collapsed fold-out
    (uploader,) = [c for c in at.columns if c.get("file_uploader")]
    beside = next(c for c in at.columns if {"lc_batch", "lc_epoch"} <= {w.key for w in c.number_input})
    assert beside is not uploader and beside.weight == uploader.weight  # the column next to the upload's
    pts = [curves.CurvePoint(s, None, "train", (0.5, 0.4), curves.tau_sim((0.5, 0.4))) for s in range(1, 9)]
    assert "the two fields beside the upload on the page" in curves.analyse(pts).evidence["note"]  # where they are


# --------------------------------------------------------------------------- 5. the audit's metrics whole


def _metric_fits(value: str, weight: float) -> bool:
    """Whether a metric's value is drawn whole in its column at a 1400 px window: Streamlit's wide layout with the
    sidebar open leaves ~904 px of main width (1400 - 336 sidebar - 2 x 80 padding), columns part it by weight less
    16 px gaps; a metric value is 36 px text, ~20 px a digit or letter, ~10 px a comma, space or point."""
    px = sum(10 if ch in ",. " else 20 for ch in value)
    return px <= weight * 904 - 16


def test_audit_length_metrics_are_whole_at_1400_px(tmp_path: Path) -> None:
    rows = [
        {"conversations": [{"from": "human", "value": "Q?"}, {"from": "gpt", "value": "word " * n}]}
        for n in (11_000, 11_040, 200, 300)
    ]
    data = tmp_path / "train.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    tok = build_tokenizer(tmp_path / "tok")
    at = page_app("pages/audit.py", timeout=120).run()
    at.text_input(key="audit_source").set_value(str(data))
    at.text_input(key="audit_tokenizer").set_value(str(tok))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    labels = {m.label: m.value for m in at.metric}
    assert {"Length p50", "Length p90", "Length p99", "Length max"} <= set(labels), labels
    assert int(labels["Length max"].replace(",", "")) > 11_000  # five digits, as the walk's 11,0..
    for col in at.columns:
        for m in col.metric:
            assert _metric_fits(m.value, col.weight), (m.label, m.value, col.weight)


def test_runs_served_with_another_target_than_the_one_given_are_said_so(tmp_path: Path) -> None:
    """Walk BR 5: with Llama-3.3-70B typed as the target, the lint's contradiction with runs served on Llama-3.1-8B
    was blamed on the server ("may have loaded another revision or config of the draft ... check the server's
    --speculative-draft-model-path"); the runs recorded another target than the one the rules were checked for."""
    draft_dir, target_dir = tmp_path / "qwen3-32b-eagle3", tmp_path / "Qwen3-32B"
    for folder, cfg in ((draft_dir, _draft_config()), (target_dir, _target_config())):
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(cfg))
    entry = comparison.load_entry(str(draft_dir), target=str(target_dir))
    store = bench_store()
    cfg = {"engine": "sglang", "model": "Qwen/Qwen3-8B", "speculative_algorithm": "EAGLE3", "num_steps": 3,
           "draft_model": DRAFT}  # fmt: skip
    store_run(store, cfg, {"requests": 8, "errors": 0, "output_tokens_per_s": 50.0, "accept_length": 2.7},
              group="br5", concurrency=1)  # fmt: skip
    (sentence,) = comparison.served_against_rules(entry, list(store.runs(group="br5")))
    assert "served by SGLang with this draft on Qwen/Qwen3-8B" in sentence, sentence
    assert f"the rules here are checked for the target given, {entry.target_label}" in sentence, sentence
    assert "may have loaded another revision" not in sentence, sentence
