"""Compare's lint and "Will it serve?" say only what holds for the user's draft on the target they set.

Walk V: a Llama-3.1-8B EAGLE-3 draft (vocab 128256, model card base_model meta-llama/Llama-3.1-8B-Instruct) pasted
with target zai-org/GLM-4.5-Air. The lint errored on the vocabulary, but "Will it serve?" said "SGLang 0.5.23: ok;
... same as trained: yes", and nothing said the card names another target. Walk U: a gpt-oss-20b draft whose wiring
SGLang 0.5.23 and vLLM's V2 runner agree on got "Nothing to act on: the wiring matches what the engines will do"
while vLLM 0.33.0's (non-default) V1 runner feeds it other blocks. A user whose runs are SGLang's was told to act
first on vLLM's gap. And ``params``' memory line did not say whether the frozen embedding is in it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from comparelib.models import comparison, lint, registry
from comparelib.models import serving as serving_model
from tests.fixtures import LLAMA31_8B_EAGLE3, cli_in_process, routed_compare, stored_run

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
GLM_AIR = "zai-org/GLM-4.5-Air"  # shipped: hidden 4096 (as Llama-3.1-8B's), vocab 151552, 46 layers
GPT_OSS = "openai/gpt-oss-20b"  # shipped: 24 layers
CARD_SAYS = f"the model card says this draft was trained for {LLAMA}; the target set is {GLM_AIR}"


def _folder(tmp_path: Path, name: str, config: dict[str, Any], base_model: str | None = None) -> str:
    """A draft as a local folder: config.json, and a model card naming ``base_model`` when given."""
    path = tmp_path / name
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config))
    if base_model:
        (path / "README.md").write_text(f"---\nbase_model: {base_model}\ntags: [eagle3]\n---\n# {name}\n")
    return str(path)


def _llama_draft(tmp_path: Path) -> str:
    return _folder(tmp_path, "llama31-8b-eagle3", LLAMA31_8B_EAGLE3, base_model=LLAMA)


def _glm_draft(tmp_path: Path) -> str:
    """A GLM-4.5-Air draft trained right: its vocabulary, SpecForge's default ids for 46 layers; vLLM has no EAGLE-3
    path for GLM-4.5 (Glm4MoeForCausalLM), SGLang 0.5.23 serves it."""
    config = {
        **copy.deepcopy(LLAMA31_8B_EAGLE3),
        "vocab_size": 151552,
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 22, 42]},
    }
    return _folder(tmp_path, "glm-air-eagle3", config, base_model=GLM_AIR)


def _gpt_oss_draft(tmp_path: Path) -> str:
    """Walk U: a gpt-oss-20b draft whose eagle_config ids [1, 11, 20] SGLang 0.5.23 reads +1 = boundaries
    [2, 12, 21], vLLM's V2 runner's default; vLLM 0.33.0's V1 runner reads them as given, one block early."""
    config = copy.deepcopy(registry.get_draft("zhuyksir/EAGLE3-gpt-oss-20b-bf16").config)
    config["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [1, 11, 20], "use_aux_hidden_state": True}
    return _folder(tmp_path, "gpt-oss-20b-eagle3", config)


# --- 1 and 2: a draft trained for another target ------------------------------------------------------------


# (case, draft builder, target, how we know it was trained for another target, in the order said, or None; what
# SGLang 0.5.23's row says: unknown where its code would start, fails where the fc of another width stops it)
OTHER_TARGET_CASES = [
    (
        "vocab and card (walk V)",
        _llama_draft,
        GLM_AIR,
        ["vocab_size is 128,256 but", f"says it was trained for {LLAMA}"],
        "unknown",
    ),
    (
        "hidden size and card",
        _llama_draft,
        "meta-llama/Llama-3.3-70B-Instruct",
        ["target hidden size of 4,096 but", f"says it was trained for {LLAMA}"],
        "fails",
    ),
    ("its own target", _llama_draft, LLAMA, None, "ok"),
]


@pytest.mark.parametrize(
    ("case", "make", "target", "reasons", "status"), OTHER_TARGET_CASES, ids=[c[0] for c in OTHER_TARGET_CASES]
)
def test_will_it_serve_never_says_ok_for_another_targets_draft(
    case: str, make: Any, target: str, reasons: list[str] | None, status: str, tmp_path: Path
) -> None:
    entry = comparison.load_entry(make(tmp_path), target=target, with_header=False)
    sglang = next(v for v in entry.serving if v.label == "SGLang 0.5.23")
    adv = serving_model.advice(**entry.serving_args)
    headline = serving_model.headline(entry.serving, adv)
    if reasons is None:  # the draft on the target it was trained for: served as trained
        assert sglang.status == "ok" and sglang.same_as_trained is True
        assert "trained for another target" not in headline
        assert "trained-for-other-target" not in {f.code for f in entry.findings}
        return
    assert not [v.label for v in entry.serving if v.status == "ok" or v.same_as_trained is not None]
    assert sglang.status == status and reasons[0] in sglang.other_target
    assert headline.startswith("Not known to serve on this target: the draft was trained for another target (")
    at = [headline.index(r) for r in reasons]
    assert at == sorted(at), headline  # the vocabulary (or width) first, then what the card names
    rows = serving_model.table_rows(entry.serving, adv)
    assert {r["same as trained?"] for r in rows} == {"unknown"}
    assert not [r for r in rows if r["starts?"] == "yes"]


def test_walk_v_lint_says_the_card_names_another_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = comparison.load_entry(_llama_draft(tmp_path), target=GLM_AIR, with_header=False)
    ranked = lint.rank(entry.findings)
    assert ranked[0].code == "vocab-mismatch"  # the lint's headline leads with the vocabulary
    (said,) = [f for f in ranked if f.code == "trained-for-other-target"]
    assert said.severity == "warning" and CARD_SAYS in said.message[:1].lower() + said.message[1:]
    assert f"Set the target to {LLAMA}" in said.message
    done = cli_in_process(capsys, "params", str(tmp_path / "llama31-8b-eagle3"), "--target", GLM_AIR, "--no-header")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    (serve,) = [line for line in lines if line.startswith("will it serve:")]
    assert "vocab_size is 128,256 but zai-org/GLM-4.5-Air's is 151,552" in serve
    assert "  SGLang 0.5.23: unknown: the draft was trained for another target" in done.stdout
    assert "same as trained: yes" not in done.stdout and "SGLang 0.5.23: ok" not in done.stdout
    assert "[warning] trained-for-other-target: The model card says this draft was trained for" in done.stdout


def test_a_target_from_the_card_itself_is_no_contradiction(tmp_path: Path) -> None:
    """No --target: the card's base_model is the target (the CLI's card_target), so nothing contradicts it."""
    entry = comparison.load_entry(_llama_draft(tmp_path), with_header=False, card_target=True)
    assert entry.target_from == "card"
    assert "trained-for-other-target" not in {f.code for f in entry.findings}
    assert next(v for v in entry.serving if v.label == "SGLang 0.5.23").status == "ok"


# --- 3: an all-clear says which engine rows it covers, and names a runner outside them ---------------------------


def test_walk_u_all_clear_names_what_it_covers_and_the_v1_runner(tmp_path: Path) -> None:
    entry = comparison.load_entry(_gpt_oss_draft(tmp_path), target=GPT_OSS, with_header=False)
    v1 = next(v for v in entry.serving if v.runner == "v1")
    assert v1.status == "ok" and v1.same_as_trained is False  # the premise: only V1 feeds other blocks
    said = comparison.lint_headline(entry)
    assert said.startswith(
        "Nothing to act on: the wiring matches what SGLang 0.5.23 and vLLM 0.34.0 (v2, only runner)"
    )
    assert "the engines will do" not in said
    assert "vLLM 0.33.0's non-default V1 runner (VLLM_USE_V2_MODEL_RUNNER=0) feeds the draft other blocks" in said
    # for vLLM 0.33.0 the lint checks both its runners: V1's gap is what to act on
    assert comparison.lint_headline(comparison.relint(entry, "vLLM 0.33.0")).startswith(
        "Act on this first [warning, aux-convention]"
    )


# --- 4: the user's engine leads ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "starts"),
    [
        (None, "Act on this first [warning, engine-unsupported]"),
        (("SGLang", "the engine your runs #2 served this draft with"), "Nothing to act on for SGLang (the engine"),
        (("vLLM", "the engine chosen above"), "Act on this first [warning, engine-unsupported]"),
    ],
)
def test_the_users_engine_leads_the_lint_headline(engine: Any, starts: str, tmp_path: Path) -> None:
    entry = comparison.load_entry(_glm_draft(tmp_path), target=GLM_AIR, with_header=False)
    said = comparison.lint_headline(entry, engine=engine)
    assert said.startswith(starts), said
    if engine and engine[0] == "SGLang":  # vLLM's gap is still said, after SGLang's all-clear
        assert "matches what SGLang 0.5.23 will do" in said
        assert said.index("For other engines [warning, engine-unsupported]") > said.index("SGLang 0.5.23 will do")


# (runs of the group as (engine, draft_model or None for this draft)) -> the engine the page leads with
SERVED_CASES = [
    ([("sglang", None), ("sglang", None)], ("SGLang", "the engine your runs #2, #3 served this draft with")),
    ([("vllm", None)], ("vLLM", "the engine your run #2 served this draft with")),
    ([("sglang", None), ("vllm", None)], None),  # both: neither leads
    ([("openai", None)], None),  # an engine the rules do not model
    ([("sglang", "acme/another-draft")], None),  # another draft's run
]


@pytest.mark.parametrize(("runs", "expected"), SERVED_CASES)
def test_the_engine_your_runs_served_the_draft_with(runs: list[Any], expected: Any, tmp_path: Path) -> None:
    draft = _glm_draft(tmp_path)
    entry = comparison.load_entry(draft, target=GLM_AIR, with_header=False)
    stored = [stored_run(1, None, 40.0, engine=runs[0][0])]  # a baseline loads no draft
    stored += [stored_run(i, 3, 60.0, 2.5, engine=eng, draft=other or draft) for i, (eng, other) in enumerate(runs, 2)]
    assert comparison.served_engine(entry, stored) == expected


# --- 5: params' memory line says what it counts -------------------------------------------------------------------


def test_params_memory_line_says_the_frozen_embedding_is_not_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = cli_in_process(capsys, "params", _llama_draft(tmp_path), "--no-header")
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("memory")]
    assert line.startswith(
        "memory, the draft's weights to load beside the target (not counted: the frozen embedding, 525,336,576 "
        "parameters, shared with the target and resident with it): bf16 849,763,584 bytes"
    ), line
    # 424,689,664 parameters outside the embedding at 2 bytes, plus the d2t/t2d buffers
    assert 424_689_664 * 2 < 849_763_584 < 950_026_240 * 2


# --- the page -----------------------------------------------------------------------------------------------------


def _texts(at: AppTest, kind: str) -> list[str]:
    return [str(x.value) for x in getattr(at, kind)]


def test_page_walk_v_will_it_serve_leads_with_the_vocabulary(tmp_path: Path) -> None:
    at = routed_compare(_llama_draft(tmp_path), target=GLM_AIR)
    serve = [w for w in _texts(at, "warning") if "Not known to serve" in w]
    assert serve and "vocab_size is 128,256 but zai-org/GLM-4.5-Air's is 151,552" in serve[0], _texts(at, "warning")
    lint_heads = [e for e in _texts(at, "error") if "Act on this first" in e]
    assert lint_heads and "[error, vocab-mismatch]" in lint_heads[0]
    frames = [d.value for d in at.dataframe]
    rows = next(f for f in frames if "starts?" in f.columns)
    sglang = rows.set_index("engine").loc["SGLang 0.5.23"]
    assert sglang["starts?"].startswith("unknown: ") and sglang["same as trained?"] == "unknown"
    findings = pd.concat([f for f in frames if "code" in f.columns])
    said = findings.set_index("code").loc["trained-for-other-target", "message"]
    assert f"says this draft was trained for {LLAMA}; the target set is {GLM_AIR}" in said
    assert not [m for m in _texts(at, "markdown") if m.startswith("Config that serves the trained blocks")]


def test_page_walk_u_all_clear_mentions_the_v1_runner(tmp_path: Path) -> None:
    at = routed_compare(_gpt_oss_draft(tmp_path), target=GPT_OSS)
    (said,) = [s for s in _texts(at, "success") if "Nothing to act on" in s]
    assert "SGLang 0.5.23 and vLLM 0.34.0 (v2, only runner) will do" in said
    assert "vLLM 0.33.0's non-default V1 runner (VLLM_USE_V2_MODEL_RUNNER=0)" in said
    assert "Will it serve? below says the change" in said


def test_page_leads_with_the_engine_your_runs_used(tmp_path: Path) -> None:
    from comparelib import settings
    from comparelib.live.store import Store

    draft = _glm_draft(tmp_path)
    store = Store(settings.database_url())
    ids = []
    for spec in (None, "EAGLE3"):
        rid = store.start_run(
            endpoint="http://127.0.0.1:30000",
            server_config={
                "engine": "sglang",
                "model": GLM_AIR,
                "speculative_algorithm": spec,
                "draft_model": draft if spec else None,
                "num_steps": 3 if spec else None,
            },
            group="glm-sweep",
            params={"concurrency": 4, "max_tokens": 64},
        )
        store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": 50.0, "accept_length": 2.5})
        ids.append(rid)
    at = routed_compare(draft, "glm-sweep", target=GLM_AIR)
    heads = [s for s in _texts(at, "info") + _texts(at, "warning") + _texts(at, "success") if "to act on" in s]
    assert heads and heads[0].startswith(
        f"**glm-air-eagle3**: Nothing to act on for SGLang (the engine your run #{ids[1]} served this draft with)"
    ), heads
    assert "For other engines [warning, engine-unsupported]" in heads[0]
    assert not [w for w in _texts(at, "warning") if "Act on this first [warning, engine-unsupported]" in w]
