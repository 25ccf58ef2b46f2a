"""Your draft as one object: parsed from what a user types, carried in the URL, its attachments read
from the store; and the rule that a speedup needs a baseline of the same model and settings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from comparelib import settings
from comparelib.analysis import speedup
from comparelib.analysis.speedup import comparison_frame
from comparelib.errors import CompareError, InputError
from comparelib.live.store import RunRecord, Store
from comparelib.models.draft import DEFAULT, EXAMPLE_GROUP, OwnDraft, default_runs, latest_own_group

REF = "AQ-MedAI/Kimi-K2-Instruct-eagle3"

PARSE_CASES = [
    # typed, kind, source kept
    ("example", "example", "example:own-kimi-k2.5-draft"),
    ("https://huggingface.co/acme/my-draft", "hub", "https://huggingface.co/acme/my-draft"),
    ("acme/my-draft@v2", "hub", "acme/my-draft@v2"),
    (f"registry:{REF}", "registry", f"registry:{REF}"),
    ("/data/ckpt/epoch_3", "local", "/data/ckpt/epoch_3"),
    ("https://user:secret@huggingface.co/acme/x", "hub", "https://huggingface.co/acme/x"),
]


@pytest.mark.parametrize(("typed", "kind", "source"), PARSE_CASES)
def test_parse_recognises_every_source(typed: str, kind: str, source: str) -> None:
    d = OwnDraft.parse(typed)
    assert (d.kind, d.source) == (kind, source)
    assert "secret" not in str(d.to_query())


BAD_CASES = [
    ("", {}, "no draft given"),
    ("example:other", {}, "unknown example"),
    ("registry:no/such-draft", {}, "no/such-draft"),
    ("acme/x", {"samples": "many"}, "whole number"),
    ("acme/x", {"samples": 0}, "between 1 and"),
    ("x" * 600, {}, "longer than 500"),
]


@pytest.mark.parametrize(("typed", "kw", "message"), BAD_CASES)
def test_parse_refuses_with_an_actionable_message(typed: str, kw: dict, message: str) -> None:
    with pytest.raises(CompareError, match=message):
        OwnDraft.parse(typed, **kw)


def test_round_trip_through_query_params() -> None:
    d = OwnDraft.parse(
        "https://huggingface.co/acme/my-draft", volume="acme/my-draft", samples="12,000", group="sweep-1"
    )
    q = d.to_query()
    assert q == {
        "draft": "https://huggingface.co/acme/my-draft",
        "draft_vol": "acme/my-draft",
        "draft_samples": "12000",
        "draft_group": "sweep-1",
    }
    assert OwnDraft.from_query(q) == d
    assert OwnDraft.from_query({k: [v] for k, v in q.items()}) == d  # Streamlit's lists
    assert DEFAULT.to_query() == {} and OwnDraft.from_query({}) == DEFAULT
    assert OwnDraft.from_query({"draft": "acme/x"}).group is None  # another draft does not inherit the example's
    with pytest.raises(InputError, match="draft_group is longer"):
        OwnDraft.from_query({"draft": "acme/x", "draft_group": "g" * 501})


def test_training_samples_come_from_the_attached_audit_or_say_why_not() -> None:
    vols = [
        {"id": 1, "draft": "acme/x", "samples": 100, "kind": "measured"},
        {"id": 2, "draft": "acme/x", "samples": 250, "kind": "measured"},
        {"id": 3, "draft": "example: own Kimi-K2.5 draft", "samples": 37000, "kind": "example"},
    ]
    assert OwnDraft.parse("acme/x", volume="acme/x").training_samples(vols) == (
        250.0,
        "attached from Dataset audit as acme/x",
    )
    assert OwnDraft.parse("acme/x", samples=9).training_samples(vols) == (9.0, "typed in")
    n, why = OwnDraft.parse("acme/x").training_samples(vols)
    assert n is None and "not measured" in why
    n, why = OwnDraft.parse("acme/x", volume="gone").training_samples(vols)
    assert n is None and "no training volume is stored under 'gone'" in why
    assert DEFAULT.training_samples(vols) == (37000.0, "example: own Kimi-K2.5 draft")


def _rec(
    id_: int,
    *,
    spec: str | None = None,
    model: str | None = "acme/target",
    engine: str = "sglang",
    group: str | None = "g",
    kind: str = "measured",
    tok_s: float | None = 50.0,
    params: dict | None = None,
    raw: dict | None = None,
    notes: dict | None = None,
    minutes: int = 0,
) -> RunRecord:
    return RunRecord(
        id=id_,
        created_at=datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes),
        endpoint="http://h:1",
        engine=engine,
        kind=kind,
        group=group,
        labels=[],
        status="finished",
        speculative_algorithm=spec,
        draft_model=None,
        model=model,
        num_steps=3 if spec else None,
        topk=None,
        num_draft_tokens=None,
        is_baseline=spec is None,
        requests=8,
        errors=0,
        output_tokens_per_s=tok_s,
        accept_length=2.5 if spec else None,
        accept_length_mean=None,
        ttft_p50_ms=None,
        ttft_p99_ms=None,
        tpot_p50_ms=None,
        tpot_p99_ms=None,
        summary={},
        server_config={"raw": raw or {}},
        params=params or {"concurrency": 4},
        notes=notes or {},
    )


# (baseline changes, expected reason fragment or None for a fair baseline)
BASELINE_CASES = [
    ({}, None),
    ({"model": "moonshotai/Kimi-K2.5"}, "different target model: acme/target against moonshotai/Kimi-K2.5"),
    ({"model": None}, "target model of run #2 is not recorded"),
    ({"engine": "vllm"}, "different engine: sglang against vllm"),
    ({"params": {"concurrency": 16}}, "different concurrency: 4 against 16"),
    ({"params": {"concurrency": 4, "temperature": 0.7}}, None),  # unrecorded on one side is no evidence
    ({"raw": {"tp_size": 8}}, None),
    ({"spec": "EAGLE3"}, "run #2 uses speculation"),
    ({"notes": {"environment": {"NCCL_PROTO": "LL"}}}, "different server environment"),
]


@pytest.mark.parametrize(("changes", "reason"), BASELINE_CASES)
def test_speedup_only_against_a_baseline_of_the_same_model_and_settings(changes: dict, reason: str | None) -> None:
    run = _rec(
        1,
        spec="EAGLE3",
        tok_s=75.0,
        raw={"tp_size": 8},
        notes={"environment": {"NCCL_PROTO": "Simple"}} if "notes" in changes else None,
    )
    base = _rec(2, tok_s=50.0, **changes)
    value, why = speedup.speedup_against(run, base)
    if reason is None:
        assert value == pytest.approx(1.5) and why is None
    else:
        assert value is None and reason in why


def test_comparison_frame_says_why_there_is_no_speedup() -> None:
    mine, theirs = _rec(1, spec="EAGLE3", tok_s=2827.7), _rec(2, model="Kimi-K2.5", tok_s=88.8)
    frame = comparison_frame([theirs, mine], baseline=theirs)
    assert frame["speedup"].tolist()[0] == pytest.approx(1.0)
    assert frame["speedup"].isna().tolist()[1]
    assert "different target model" in frame["speedup_note"].tolist()[1]


def test_the_example_session_keeps_its_speedup(tmp_path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.ensure_examples()
    runs = store.runs()
    eagle = next(r for r in runs if not r.is_baseline)
    base = speedup.choose_baseline(runs, [eagle])
    assert base.output_tokens_per_s == 88.8  # the default-environment baseline is refused (other environment)
    default_env = next(r for r in runs if r.output_tokens_per_s == 62.9)
    assert "different server environment" in speedup.speedup_against(eagle, default_env)[1]


def test_default_runs_follow_the_users_latest_group() -> None:
    example = [_rec(i, group=EXAMPLE_GROUP, kind="example") for i in (1, 2, 3)]
    mine = [_rec(4, group="a", minutes=1), _rec(5, group="b", minutes=2), _rec(6, group="b", minutes=3)]
    assert latest_own_group(example) is None and latest_own_group(example + mine) == "b"
    assert [r.id for r in default_runs(example, DEFAULT)] == [1, 2, 3]
    assert [r.id for r in default_runs(example + mine, OwnDraft.parse("acme/x"))] == [4, 5, 6]
    assert [r.id for r in default_runs(example + mine, OwnDraft.parse("acme/x", group="a"))] == [4]


def test_session_token_is_used_inside_the_block_only(monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_envtoken")
    with settings.session_token("hf_sessiontoken"):
        assert settings.hf_token() == "hf_sessiontoken"
        tag = settings.token_fingerprint()
        assert tag and "hf_sessiontoken" not in tag and len(tag) == 16
    assert settings.hf_token() == "hf_envtoken"
    with settings.session_token(""):
        assert settings.hf_token() == "hf_envtoken"
    with pytest.raises(InputError, match="does not look like"), settings.session_token("two words"):
        pass


def test_session_token_opens_a_gated_repo(hub) -> None:
    from comparelib.errors import GatedRepoError
    from comparelib.models import hub as hubmod
    from tests.fixtures import aq_config

    hub.add_model("acme/gated", aq_config(), gated=True)
    with pytest.raises(GatedRepoError, match="sidebar's Hub token field"):
        hubmod.fetch_model("acme/gated", with_header=False)
    with settings.session_token(hub.token):
        fetched = hubmod.fetch_model("acme/gated", with_header=False)
    assert fetched.config["architectures"] == aq_config()["architectures"]
    assert all(hub.token not in str(r) for r in hub.requests)
