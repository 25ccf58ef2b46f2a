"""The Compare glue and its CLI: numbers from the registry, the Hub emulator and local folders agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib import export
from comparelib.errors import GatedRepoError, HostNotAllowedError, InputError, RepoNotFoundError
from comparelib.models import comparison
from tests.fixtures import AQ, aq_config, aq_tensors, run_cli
from tests.hub_emulator import HubEmulator

# (source, excluding_embedding, total) — the numbers the issue pins.
REGISTRY_CASES = [
    (f"registry:{AQ}", 1_190_948_864, 2_365_353_984),
    (comparison.EXAMPLE_OWN, 2_135_977_984, 3_310_383_104),
    ("registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", 424_689_664, 950_026_240),
]


@pytest.mark.parametrize(("source", "excluding", "total"), REGISTRY_CASES)
def test_offline_sources_count_exactly(source: str, excluding: int, total: int) -> None:
    entry = comparison.load_entry(source)
    assert entry.count.excluding_embedding == excluding
    assert entry.count.total == total


def test_headline_names_lm_head_as_the_difference() -> None:
    entries = [comparison.load_entry(f"registry:{AQ}"), comparison.load_entry(comparison.EXAMPLE_OWN)]
    [sentence] = comparison.headlines(entries)
    assert "945,029,120 more parameters" in sentence
    # in Overview's words (comparison.heads_differ, walk AL): the rows of each head, the vocabulary each drafts over
    assert "are in the lm_head (another draft vocabulary: 163,840 rows against 32,000)" in sentence, sentence
    assert "1,174,405,120" in sentence  # the frozen, shared embedding


def test_hub_draft_reconciles_against_its_header(hub: HubEmulator) -> None:
    sha = hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    entry = comparison.load_entry(f"{hub.url}/acme/kimi-draft")
    assert entry.commit_sha == sha
    assert entry.count.excluding_embedding == 1_190_948_864
    ck = entry.checkpoint
    assert ck is not None and ck.matches_config
    assert ck.param_elements == 1_190_948_864
    assert ck.buffer_elements == 32_000 + 163_840
    assert [name for name, _ in ck.missing] == ["embed_tokens.weight"]
    # only headers were read: no weight bytes beyond the header ranges
    assert hub.bytes_served(".safetensors") < 200_000


def test_missing_vocab_map_is_a_lint_error(hub: HubEmulator) -> None:
    hub.add_model("acme/no-map", aq_config(), tensors=aq_tensors(with_vocab_map=False))
    entry = comparison.load_entry("acme/no-map", target_layers=61)
    assert "vocab-map-missing" in {f.code for f in entry.findings if f.severity == "error"}


@pytest.mark.parametrize(
    ("setup", "source", "error"),
    [
        ("gated", "acme/gated", GatedRepoError),
        (None, "acme/nothing-here", RepoNotFoundError),
        (None, "https://example.com/acme/x", HostNotAllowedError),
        (None, "", InputError),
        (None, "example:nope", InputError),
    ],
)
def test_bad_sources_raise_actionable_errors(hub: HubEmulator, setup: str | None, source: str, error: type) -> None:
    if setup == "gated":
        hub.add_model("acme/gated", aq_config(), gated=True)
    with pytest.raises(error) as info:
        comparison.load_entry(source)
    assert str(info.value)
    if setup == "gated":
        assert "HF_TOKEN" in str(info.value)


def test_hub_failure_points_at_registry_copy(hub: HubEmulator) -> None:
    with pytest.raises(RepoNotFoundError, match="registry has a copy"):
        comparison.load_entry(AQ)


def test_table_exports_agree_across_formats() -> None:
    entries = [comparison.load_entry(f"registry:{AQ}"), comparison.load_entry(comparison.EXAMPLE_OWN)]
    df = comparison.table(entries)
    csv_text = export.render(df, "csv")
    assert "1190948864" in csv_text and "2135977984" in csv_text
    records = json.loads(export.render(df, "json"))
    assert records[0]["excluding_embedding"] == 1_190_948_864
    assert "1,190,948,864" in export.render(df, "md")
    assert "1{,}190{,}948{,}864" in export.render(df, "latex")


def test_cli_params_json_against_the_emulator(hub: HubEmulator) -> None:
    sha = hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    proc = run_cli(
        "params", f"{hub.url}/acme/kimi-draft", "--target-layers", "61", "--json", env={"HF_ENDPOINT": hub.url}
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    p = data["params"]
    assert (p["total"], p["excluding_embedding"], p["embedding"]) == (2_365_353_984, 1_190_948_864, 1_174_405_120)
    assert p["lm_head"] == 32_000 * 7168
    assert p["trainable"] == 1_190_948_864 and p["frozen"] == 1_174_405_120
    assert p["active"] is None
    assert data["commit_sha"] == sha
    assert data["checkpoint"]["matches_config"] is True
    assert {c["name"] for c in data["components"]} >= {"embedding", "fc", "attention", "mlp", "norm", "lm_head"}
    assert all({"severity", "code", "message"} <= set(f) for f in data["lint"])


def test_cli_compare_formats() -> None:
    for fmt in export.FORMATS:
        proc = run_cli("compare", f"registry:{AQ}", comparison.EXAMPLE_OWN, "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        assert (
            ("2135977984" in proc.stdout) or ("2,135,977,984" in proc.stdout) or ("2{,}135{,}977{,}984" in proc.stdout)
        )


@pytest.mark.parametrize(
    "args",
    [
        ("params", "https://evil.example.com/org/name"),
        ("params", "/no/such/folder/anywhere"),
        ("params", "registry:no/such-draft"),
        ("params", "registry:" + AQ, "--target-layers", "0"),
        ("compare", "registry:no/such-draft"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    proc = run_cli(*args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines and all(line.startswith("error:") for line in lines)
    assert "Traceback" not in proc.stderr


def test_table_carries_training_volumes_published_and_attached(tmp_path: Path) -> None:
    from comparelib.live.store import Store

    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.ensure_examples()
    store.save_data_volume(draft="acme/mine", samples=123_456, tokens=98_765_432, source="train.jsonl")
    entries = [comparison.load_entry(f"registry:{AQ}"), comparison.load_entry(comparison.EXAMPLE_OWN)]
    mine = comparison.load_entry(f"registry:{AQ}")
    mine.label = "acme/mine"
    df = comparison.table(entries + [mine], comparison.volumes_by_draft(store.data_volumes()))
    assert list(df["train_samples"]) == [1_400_000, 37_000, 123_456]
    assert df["train_tokens"].iloc[2] == 98_765_432
    assert df["train_source"].iloc[0] == "published"
    assert df["train_source"].iloc[2] == "measured: train.jsonl"


def test_cli_compare_shows_volume_attached_by_an_audit(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    from comparelib.live.store import Store

    Store(db).save_data_volume(draft="example: own Kimi-K2.5 draft", samples=50_000, source="audit")
    proc = run_cli("compare", f"registry:{AQ}", comparison.EXAMPLE_OWN, "--format", "json", "--db", db)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["train_samples"] for r in rows] == [1_400_000, 50_000]  # the latest attached volume wins


def test_cli_compare_md_says_what_to_act_on_first_per_engine() -> None:
    proc = run_cli("compare", f"registry:{AQ}", comparison.EXAMPLE_OWN, "--format", "md")
    assert proc.returncode == 0, proc.stderr
    assert f"Wiring: {AQ}: Nothing to act on" in proc.stdout
    # [1, 29, 57]: SGLang adds 1; vLLM 0.34.0 (the newest, V2 only) reads no eagle_config ids and its default is the
    # same [2, 30, 58]; vLLM 0.33.0's V1 reads them as given, one block early
    assert "Wiring: example: own Kimi-K2.5 draft: Nothing to act on" in proc.stdout
    v033 = run_cli("compare", comparison.EXAMPLE_OWN, "--format", "md", "--engine", "vLLM 0.33.0")
    assert "Wiring: example: own Kimi-K2.5 draft: Act on this first [warning, aux-convention]" in v033.stdout
    old = run_cli("compare", f"registry:{AQ}", "--format", "md", "--engine", "SGLang 0.5.1")
    assert old.returncode == 0 and "[error, engine-unsupported]" in old.stdout
    bad = run_cli("compare", f"registry:{AQ}", "--engine", "sglang 0.0.1")
    assert bad.returncode == 2 and "no rules for SGLang 0.0.1" in bad.stderr


def test_a_published_drafts_2507_target_is_counted_offline() -> None:
    """Compare drafts showed no draft/target ratio for the Qwen3-30B-A3B-Instruct-2507 draft: its target was not
    shipped. Its architecture is Qwen3-30B-A3B's (48 layers, 128 experts, 8 active, as its model card says)."""
    e = comparison.load_entry(
        "registry:lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex", with_header=False, with_card=False
    )
    base = comparison.load_entry(
        "registry:lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex",
        target="Qwen/Qwen3-30B-A3B",
        with_header=False,
        with_card=False,
    )
    assert e.ratio is not None and e.ratio_active is not None
    assert e.ratio == base.ratio and e.ratio_active == base.ratio_active


LING = "inclusionAI/Ling-flash-2.0"
LING_DRAFT = "registry:AQ-MedAI/Ling-Flash-2.0-eagle3"


@pytest.mark.parametrize("how", ["published", "shipped id", "hub url"])
def test_ling_flash_target_is_counted(hub: HubEmulator, how: str) -> None:
    """Ling-flash-2.0 (BailingMoeV2ForCausalLM) as the target of its published draft: its own entry, the hub id
    typed (the shipped config) and its Hub URL (the config read from the Hub) all give its size, where the URL
    used to raise "unsupported architecture BailingMoeV2ForCausalLM" and the published entry had no ratio."""
    from comparelib.models import architectures

    hub.add_model(LING, architectures.known_target(LING) or {"architectures": ["BailingMoeV2ForCausalLM"]})
    target = {"published": None, "shipped id": LING, "hub url": f"{hub.url}/{LING}"}[how]
    e = comparison.load_entry(LING_DRAFT, target=target, with_header=False, with_card=False)
    assert e.target_count is not None
    assert (e.target_count.total, e.target_count.active) == (102_889_705_216, 6_152_277_760)
    assert e.ratio == e.count.excluding_embedding / 102_889_705_216
    assert e.ratio_active == e.count.excluding_embedding / 6_152_277_760
    if how == "hub url":
        assert str(e.target_size_from).startswith(f"read: {LING}@")
    else:
        assert e.target_size_from == comparison.SHIPPED_TARGET_WORDS
