"""The built-in registry: loads offline, every entry is well formed, known values are as published."""

from __future__ import annotations

import json
import math

import pytest

from comparelib.errors import ConfigError, InputError
from comparelib.models import architectures, registry
from comparelib.models.registry import PublishedDraft, ReportedResult, Setting

AQ = "AQ-MedAI/Kimi-K2-Instruct-eagle3"

COUNT_CASES = [
    ("1.4 million", 1_400_000),
    ("~532K", 532_000),
    ("~532K conversations", 532_000),
    ("600K samples", 600_000),
    ("1B tokens", 1_000_000_000),
    ("0.4 million", 400_000),
    ("~1M (dataset name)", 1_000_000),
    ("1.4M (phase-1 card template; this exact card not read)", 1_400_000),
    ("600K dialogues (issue comment, shared with the 8B draft)", 600_000),
    ("~300K per phase (20k steps each), ~600K total", None),  # two quantities: ambiguous
    ("~532K + OpenThoughts-114k-math (size of math subset not stated)", None),
    ("", None),
    (None, None),
    ("not stated", None),
]

BENCHMARK_CASES = [
    ("MT-bench", "mtbench"),
    ("MT-Bench", "mtbench"),
    ("mtbench", "mtbench"),
    ("GSM8K", "gsm8k"),
    ("HumanEval", "humaneval"),
    ("MATH500", "math500"),
    ("Math500", "math500"),
    ("Alpaca", "alpaca"),
    ("CNN/DM", "cnn_dm"),
    ("CNN/DailyMail", "cnn_dm"),
    ("LiveCodeBench", "livecodebench"),
    ("SWE-bench_Verified", "swebench_verified"),
    ("BFCL v3 simple", "bfcl_v3_simple"),
    ("Mean", "mean"),
    ("Some New Bench", "some_new_bench"),
]

SETTING_CASES = [
    (
        Setting(engine="sglang", batch_size=8, num_steps=3, topk=1, num_draft_tokens=4),
        "steps=3,topk=1,draft=4,bs=8,sglang",
        "(3,1,4)",
    ),
    (
        Setting(engine="eagle", batch_size=1, temperature=0.0, tree="dynamic tree (EAGLE-2)"),
        "bs=1,T=0,dynamic tree (EAGLE-2),eagle",
        None,
    ),
    (Setting(engine="vllm", num_steps=3, temperature=0.6), "steps=3,T=0.6,vllm", "(3,?,?)"),
    (Setting(), "unspecified", None),
    (
        Setting(engine="sglang", num_steps=6, topk=10, num_draft_tokens=32, tree=True),  # type: ignore[arg-type]
        "steps=6,topk=10,draft=32,tree,sglang",
        "(6,10,32)",
    ),
]


@pytest.mark.parametrize(("text", "expected"), COUNT_CASES)
def test_parse_count(text: str | None, expected: int | None) -> None:
    assert registry.parse_count(text) == expected


@pytest.mark.parametrize(("name", "expected"), BENCHMARK_CASES)
def test_normalize_benchmark(name: str, expected: str) -> None:
    assert registry.normalize_benchmark(name) == expected


@pytest.mark.parametrize(("setting", "key", "chain"), SETTING_CASES)
def test_setting_key_and_chain(setting: Setting, key: str, chain: str | None) -> None:
    assert setting.key == key
    assert setting.chain == chain


def test_registry_loads_all_41_drafts_with_unique_clean_ids() -> None:
    drafts = registry.load_registry()
    assert len(drafts) == 41
    ids = [d.hub_id for d in drafts]
    assert len(set(ids)) == len(ids)
    for hub_id in ids:
        assert " " not in hub_id and "(" not in hub_id and hub_id.count("/") == 1
    assert registry.load_registry() is not drafts  # callers may mutate their list
    assert registry.load_registry() == drafts


@pytest.mark.parametrize("draft", registry.load_registry(), ids=lambda d: d.hub_id)
def test_every_entry_is_valid(draft: PublishedDraft) -> None:
    assert draft.method and draft.publisher and draft.target_model
    assert draft.source_url == f"https://huggingface.co/{draft.hub_id}"
    assert isinstance(draft.datasets, tuple)
    for n in (
        draft.target_layers,
        draft.target_hidden_size,
        draft.target_vocab_size,
        draft.train_samples,
        draft.train_tokens,
    ):
        assert n is None or (isinstance(n, int) and n > 0)
    if draft.train_samples is not None:
        assert draft.train_samples_text  # the raw wording is kept beside every parsed count
    for r in draft.results:
        assert isinstance(r, ReportedResult)
        assert r.benchmark == registry.normalize_benchmark(r.benchmark)
        assert any(v is not None for v in (r.accept_length, r.throughput_tok_s, r.speedup))
        for v in (r.accept_length, r.throughput_tok_s, r.baseline_tok_s, r.speedup):
            assert v is None or (isinstance(v, float) and math.isfinite(v) and v > 0)
        if r.accept_length is not None:
            assert 1.0 <= r.accept_length <= 10.0
        assert r.setting.engine in (None, *registry.ENGINES)
        assert r.source
    if draft.config is not None:
        json.dumps(draft.config)  # plain JSON
        for key, value in draft.config.items():
            assert not (isinstance(value, str) and any(ch.isdigit() for ch in value) and key.endswith("_size")), key
        try:
            spec = architectures.parse_config(draft.config, source=draft.hub_id)
        except ConfigError as exc:
            assert "Medusa" in str(exc)  # only the Medusa head needs its base model's config
        else:
            assert spec.role == "draft"
            if draft.aux_layer_ids is not None and spec.aux_layer_ids is not None:
                assert tuple(spec.aux_layer_ids) == draft.aux_layer_ids


def test_aq_medai_kimi_entry() -> None:
    d = registry.get_draft(AQ)
    assert d.target_model == "moonshotai/Kimi-K2-Instruct"
    assert (d.target_layers, d.target_hidden_size, d.target_vocab_size) == (61, 7168, 163840)
    assert d.train_samples == 1_400_000
    assert d.train_samples_text == "1.4 million"
    assert d.config_confidence == "high"
    assert d.aux_layer_ids == (2, 30, 58)
    spec = architectures.parse_config(d.config, source=d.hub_id)
    assert (spec.hidden_size, spec.vocab_size, spec.draft_vocab_size) == (7168, 163840, 32000)
    assert spec.aux_layer_ids == (2, 30, 58)
    card = {r.benchmark: r.accept_length for r in d.results if r.source.startswith("https://huggingface.co/AQ-MedAI")}
    assert card == {"humaneval": 3.372, "gsm8k": 3.165, "math500": 3.49}
    dash = {(r.benchmark, r.setting.chain): r for r in d.results if r.setting.engine == "sglang"}
    assert dash[("gsm8k", "(3,1,4)")].accept_length == 3.271
    assert dash[("gsm8k", "(3,1,4)")].throughput_tok_s == 498.4
    assert dash[("gsm8k", "(3,1,4)")].baseline_tok_s == 337.9
    assert dash[("mtbench", "(3,1,4)")].speedup == 1.239
    assert dash[("math500", "(7,1,8)")].accept_length == 5.383
    assert dash[("gsm8k", "(3,1,4)")].setting.key == "steps=3,topk=1,draft=4,bs=8,sglang"


def test_known_values_copied_exactly() -> None:
    eagle3 = registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B")
    paper = {
        (r.benchmark, r.setting.temperature): (r.accept_length, r.speedup)
        for r in eagle3.results
        if r.setting.engine == "eagle"
    }
    assert paper[("mtbench", 0.0)] == (6.13, 4.40)
    assert paper[("mean", 1.0)] == (4.92, 3.45)
    assert eagle3.train_samples == 532_000
    assert eagle3.config["rope_theta"] == 10000.0
    assert registry.get_draft("Tengyunw/qwen3_8b_eagle3").train_tokens == 1_000_000_000
    assert registry.get_draft("lightseekorg/kimi-k2.5-eagle3").train_samples == 600_000
    assert registry.get_draft("yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B").train_samples is None


def test_hub_ids_with_extra_text_are_cleaned_and_text_kept() -> None:
    d = registry.get_draft("nvidia/gpt-oss-120b-Eagle3")
    assert "-short-context" in d.notes
    assert "siblings" in registry.get_draft("AngelSlim/Qwen3-8B_eagle3").notes.lower()


def test_get_draft_is_case_insensitive() -> None:
    assert registry.get_draft(AQ.lower()).hub_id == AQ


def test_get_draft_unknown_names_close_matches() -> None:
    with pytest.raises(InputError) as exc:
        registry.get_draft("AQ-MedAI/Kimi-K2-Instruct-eagle")
    assert AQ in str(exc.value)
    with pytest.raises(InputError) as exc:
        registry.get_draft("nobody/nothing-at-all-xyz")
    assert "not in the built-in registry" in str(exc.value)


def test_results_frame_columns_and_rows() -> None:
    frame = registry.results_frame()
    assert list(frame.columns) == list(registry.RESULT_COLUMNS)
    assert len(frame) == sum(len(d.results) for d in registry.load_registry())
    aq = frame[(frame.hub_id == AQ) & (frame.benchmark == "humaneval") & (frame.chain == "(3,1,4)")]
    assert len(aq) == 1
    row = aq.iloc[0]
    assert row.accept_length == 3.365
    assert row.batch_size == 8
    assert row.engine == "sglang"
    assert row.train_samples == 1_400_000
    assert row.setting_key == "steps=3,topk=1,draft=4,bs=8,sglang"
    assert str(frame["train_samples"].dtype) == "Int64"
    assert set(frame.benchmark) >= {"mtbench", "gsm8k", "humaneval", "math500", "alpaca", "cnn_dm", "livecodebench"}


def test_default_comparison_drafts_have_parseable_configs() -> None:
    assert registry.DEFAULT_COMPARISON[0] == AQ
    assert 3 <= len(registry.DEFAULT_COMPARISON) <= 4
    for hub_id in registry.DEFAULT_COMPARISON:
        d = registry.get_draft(hub_id)
        assert d.config is not None
        spec = architectures.parse_config(d.config, source=hub_id)
        assert spec.role == "draft"


def test_example_own_draft_config_loads() -> None:
    folder = registry.EXAMPLE_OWN_DRAFT
    assert (folder / "README.md").read_text().lower().count("example") >= 1
    config = json.loads((folder / "config.json").read_text())
    spec = architectures.parse_config(config, source="example")
    assert spec.architecture == "LlamaForCausalLMEagle3"
    assert (spec.hidden_size, spec.vocab_size, spec.draft_vocab_size) == (7168, 163840, 163840)
    assert spec.aux_layer_ids == (1, 29, 57)
    aq = architectures.parse_config(registry.get_draft(AQ).config)
    lm_head = {t.name: t.shape for t in spec.tensors}.get("lm_head.weight")
    aq_lm_head = {t.name: t.shape for t in aq.tensors}.get("lm_head.weight")
    assert lm_head == (163840, 7168) and aq_lm_head == (32000, 7168)
    assert registry.example_own_draft_volume() == {"samples": 37_000, "note": "example: the team's training set"}
