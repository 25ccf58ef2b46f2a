"""Walk U's edges: what the pages and the CLI said that the user's own evidence did not support."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from comparelib import cli
from comparelib.analysis import curves
from comparelib.errors import CompareError
from tests.fixtures import page_app, page_text

# ---------------------------------------------------------------- 1. a fitted ceiling below the measured peak


def _acc_for(tau: float) -> float:
    """The accuracy a (same at each of 3 positions) whose tau_sim is ``tau``."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if curves.tau_sim((mid,) * 3) < tau else (lo, mid)
    return round(lo, 5)


def _curve_csv(path: Path, eval_tau: tuple[float, ...], train_tau: float = 2.30) -> Path:
    """A CSV log: an eval point every 500 steps (24 samples a step), train acceptance flat at ``train_tau``."""
    tr = _acc_for(train_tau)
    rows = ["step,samples_seen,train/acc_0,train/acc_1,train/acc_2,eval/acc_0,eval/acc_1,eval/acc_2"]
    for i, tau in enumerate(eval_tau):
        step = (i + 1) * 500
        a = _acc_for(tau)
        rows.append(f"{step},{step * 24},{tr},{tr},{tr},{a},{a},{a}")
    path.write_text("\n".join(rows) + "\n")
    return path


# walk U: eval rises to 2.42, then falls 0.09 with scatter (within noise, so "Flat"), train flat; the fit's
# ceiling 2.39 sits below the measured 2.42
NOISY_FALL = (2.20, 2.35, 2.40, 2.42, 2.38, 2.41, 2.33)
NOISY_FALL_2 = (2.10, 2.30, 2.38, 2.36, 2.42, 2.35, 2.40, 2.33)
SATURATING = (2.05, 2.25, 2.33, 2.37, 2.39, 2.40, 2.40, 2.41)  # its fit's ceiling 2.46 is above every point

CEILING_CASES = [
    # name, eval tau_sim, the measured peak the sentence must name (None: the fit's ceiling may be said)
    ("walk U", NOISY_FALL, "2.42 at 48K samples seen"),
    ("walk U, later peak", NOISY_FALL_2, "2.42 at 60K samples seen"),
    ("saturating", SATURATING, None),
]


@pytest.mark.parametrize(("name", "eval_tau", "peak"), CEILING_CASES, ids=[c[0] for c in CEILING_CASES])
def test_a_fitted_ceiling_below_the_measured_peak_is_not_said_as_the_ceiling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, eval_tau: tuple[float, ...], peak: str | None
) -> None:
    log = _curve_csv(tmp_path / "log.csv", eval_tau)
    c = curves.curve([log])
    assert c.fit is not None
    assert cli.main(["curve", str(log)]) == 0
    out = capsys.readouterr().out
    said = c.sentence
    assert said in out  # the CLI prints the library's sentence
    if peak is None:
        assert c.fit.tau_inf > max(eval_tau)
        assert f"(ceiling {c.fit.tau_inf:.2f})" in said, said
        assert "measured_peak" not in c.evidence
        return
    fitted = f"{c.fit.tau_inf:.2f}"
    assert float(fitted) < max(eval_tau)  # the case holds: the fit runs below the peak
    assert f"(ceiling {fitted})" not in said, said
    assert f"eval tau_sim peaked at {peak}, measured" in said, said
    assert f"the fit's ceiling {fitted} is below it" in said, said
    assert c.evidence["measured_peak"]["tau_sim"] == pytest.approx(2.42, abs=0.005)
    assert c.evidence["fit_ceiling_below_peak"] is True


def test_the_learning_curve_tab_says_the_measured_peak_not_the_fits_ceiling(tmp_path: Path) -> None:
    log = _curve_csv(tmp_path / "log.csv", NOISY_FALL)
    at = page_app("../pages/scaling.py", timeout=120)
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    at.text_input(key="lc_path").input(str(log))
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    text = page_text(at)
    assert "plateau" in text
    assert "(ceiling 2.39)" not in text, text
    assert "eval tau_sim peaked at 2.42 at 48K samples seen, measured" in text, text
    assert "the fit's ceiling 2.39 is below it" in text, text


# ---------------------------------------------------------------- 2. a safetensors file that holds only its header

ST_TENSORS = {"fc.weight": ((64, 128), "bf16"), "norm.weight": ((64,), "bf16")}  # 16,384 + 128 bytes of data
ST_DATA = 64 * 128 * 2 + 64 * 2


@pytest.mark.parametrize(
    ("name", "present", "words"),
    [
        ("header only", 0, ["holds only its header", f"{ST_DATA:,} bytes of tensor data", "0 present"]),
        ("cut short", 1000, ["is truncated", f"{ST_DATA:,} bytes of tensor data", "1,000 present"]),
    ],
)
def test_a_truncated_local_safetensors_file_is_refused_with_what_to_do(
    tmp_path: Path, name: str, present: int, words: list[str]
) -> None:
    from comparelib.errors import ConfigError
    from comparelib.models import hub as hublib
    from tests.hub_emulator import write_safetensors_bytes

    full = write_safetensors_bytes(ST_TENSORS)
    cut = full[: len(full) - ST_DATA + present]
    path = tmp_path / "model.safetensors"
    path.write_bytes(cut)
    with pytest.raises(ConfigError) as caught:
        hublib.read_safetensors_header(path)
    said = str(caught.value)
    for w in words:
        assert w in said, said
    assert "re-download" in said and "full file" in said, said  # what to do
    assert "on the Hub" not in said, said
    # a whole file still reads
    path.write_bytes(full)
    assert set(hublib.read_safetensors_header(path)) == set(ST_TENSORS)


def test_a_header_only_safetensors_file_on_the_hub_is_said_as_truncated_on_the_hub(hub: Any) -> None:
    from comparelib.errors import ConfigError
    from comparelib.models import hub as hublib
    from tests.hub_emulator import write_safetensors_bytes

    config = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_size": 64}
    hub.add_model(
        "org/cut-draft", config, extra_files={"model.safetensors": write_safetensors_bytes(ST_TENSORS, fill=False)}
    )
    with pytest.raises(ConfigError) as caught:
        hublib.fetch_model("org/cut-draft")
    said = str(caught.value)
    assert "org/cut-draft" in said and "model.safetensors" in said, said
    assert "holds only its header" in said and f"{ST_DATA:,} bytes of tensor data" in said, said
    assert "byte ranges" in said and "the file on the Hub is truncated" in said, said


# ---------------------------------------------------------------- 3. the audit's tokenizer: a target with none

NO_TOK_TARGET = "acme/Target-NoTok-8B"
NO_TOK_DRAFT = "acme/target-notok-eagle3"


def _tok_files(tmp_path: Path) -> dict[str, bytes]:
    from tests.tokenizer_fixture import build_tokenizer

    tok = build_tokenizer(tmp_path / "tok")
    return {p.name: p.read_bytes() for p in tok.iterdir() if p.is_file()}


@pytest.mark.parametrize(
    ("name", "where", "has_tokenizer"),
    [
        ("hub repo with tokenizer.json", "hub", True),
        ("hub repo without tokenizer files", "hub", False),
        ("folder with tokenizer.json", "folder", True),
        ("folder without tokenizer files", "folder", False),
    ],
)
def test_missing_tokenizer_says_when_a_target_holds_no_tokenizer(
    tmp_path: Path, hub: Any, name: str, where: str, has_tokenizer: bool
) -> None:
    from comparelib.audit import tokens
    from tests.test_page_audit import _qwen3_8b_config

    config = _qwen3_8b_config(draft=False)
    files = _tok_files(tmp_path) if has_tokenizer else {}
    if where == "hub":
        hub.add_model(NO_TOK_TARGET, config, extra_files=files)
        ref = NO_TOK_TARGET
    else:
        folder = tmp_path / "target"
        folder.mkdir()
        (folder / "config.json").write_text(__import__("json").dumps(config))
        for fname, data in files.items():
            (folder / fname).write_bytes(data)
        ref = str(folder)
    said = tokens.missing_tokenizer(ref)
    if has_tokenizer:
        assert said is None, said
        tokens.load_tokenizer(ref)  # and it does load
    else:
        assert said is not None
        kind = "Hub repo" if where == "hub" else "folder"
        assert said == f"has no tokenizer files the audit can read (no tokenizer.json in the {kind})", said
        with pytest.raises(CompareError):  # the audit would refuse it: the sentence is why
            tokens.load_tokenizer(ref)


def test_missing_tokenizer_is_none_where_it_cannot_tell(hub: Any) -> None:
    from comparelib.audit import tokens

    assert tokens.missing_tokenizer("acme/not-on-this-hub") is None  # the audit's own error says why on Run


def test_the_audit_says_why_the_tokenizer_field_is_empty_when_the_target_has_no_tokenizer(
    tmp_path: Path, hub: Any
) -> None:
    import streamlit as st

    from comparelib.audit.scan import audit
    from tests.test_audit_reasoning import QWEN3_ROWS, write_jsonl
    from tests.test_page_audit import PAGE, _qwen3_8b_config, metric

    card = f"---\nlicense: apache-2.0\nbase_model: {NO_TOK_TARGET}\n---\n# draft\n"
    hub.add_model(NO_TOK_DRAFT, _qwen3_8b_config(draft=True), card=card)
    hub.add_model(NO_TOK_TARGET, _qwen3_8b_config(draft=False))  # config and weights, no tokenizer files
    st.cache_data.clear()
    at = page_app(PAGE, timeout=90)
    at.query_params["draft"] = NO_TOK_DRAFT
    at.run()
    assert not at.exception, at.exception
    assert at.text_input(key="audit_tokenizer").value == ""
    said = " ".join(c.value for c in at.caption)
    assert f"your draft's target `{NO_TOK_TARGET}` (the base_model of your draft's model card)" in said, said
    assert "has no tokenizer files" in said and "paste a tokenizer repo or folder" in said, said
    assert "bytes / 4" in said, said  # what an empty field counts with
    # running it empty: estimated, and said so by the audit itself
    path = write_jsonl(tmp_path / "r.jsonl", QWEN3_ROWS[:3])
    at.text_input(key="audit_source").set_value(str(path))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "Tokens") == f"{audit(str(path)).tokens:,}"
    # a tokenizer pasted there is used and kept
    tok = tmp_path / "tok2"
    tok.mkdir()
    for fname, data in _tok_files(tmp_path / "b").items():
        (tok / fname).write_bytes(data)
    at.text_input(key="audit_tokenizer").set_value(str(tok))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.text_input(key="audit_tokenizer").value == str(tok)
    assert metric(at, "Tokens") == f"{audit(str(path), tokenizer=str(tok)).tokens:,}"


def test_missing_tokenizer_names_a_tokenizer_in_a_form_the_audit_does_not_read(hub: Any) -> None:
    from comparelib.audit import tokens
    from tests.test_page_audit import _qwen3_8b_config

    hub.add_model(
        NO_TOK_TARGET,
        _qwen3_8b_config(draft=False),
        extra_files={"tokenizer.model": b"\0" * 16, "tokenizer_config.json": b"{}"},
    )
    assert tokens.missing_tokenizer(NO_TOK_TARGET) == (
        "has no tokenizer files the audit can read (no tokenizer.json in the Hub repo; it holds "
        "tokenizer_config.json, tokenizer.model, not the tokenizer.json the audit reads)"
    )


# ---------------------------------------------------------------- 4. the sweep chart's log axis has a tick at the top


def _sweep_runs(bs1: tuple[float, ...], bs16: tuple[float, ...]) -> list[Any]:
    from tests.test_charts_sweep_series import _run

    runs = [_run(1, bs1[0], bs=1, labels=("baseline-bs1",)), _run(2, bs16[0], bs=16, labels=("baseline-bs16",))]
    runs += [_run(10 + k, v, bs=1, steps=k + 1, al=2.0 + 0.3 * k) for k, v in enumerate(bs1[1:])]
    runs += [_run(20 + k, v, bs=16, steps=k + 1, al=2.0 + 0.3 * k) for k, v in enumerate(bs16[1:])]
    return runs


SWEEP_CASES = [
    # name, batch-1 tok/s (baseline first), batch-16 tok/s (baseline first)
    ("walk U: 1.4k-1.7k at the top", (310.0, 420.0, 455.0, 470.0), (1180.0, 1420.0, 1610.0, 1700.0)),
    ("a decade and more", (37.7, 76.0, 82.2, 90.1), (474.2, 640.0, 845.0, 810.0)),
    ("just past a decade boundary", (240.0, 260.0, 290.0, 300.0), (980.0, 1010.0, 1050.0, 1090.0)),
    ("several decades", (3.0, 4.5, 5.2, 5.0), (9000.0, 12000.0, 15500.0, 14000.0)),
]


@pytest.mark.parametrize(("name", "bs1", "bs16"), SWEEP_CASES, ids=[c[0] for c in SWEEP_CASES])
def test_the_sweep_charts_log_axis_has_ticks_around_the_data(
    name: str, bs1: tuple[float, ...], bs16: tuple[float, ...]
) -> None:
    from comparelib import charts
    from comparelib.analysis import speedup

    runs = _sweep_runs(bs1, bs16)
    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert built is not None
    spec = built[0].to_dict()
    ys = [n["encoding"]["y"] for n in spec["layer"] if "title" in n.get("encoding", {}).get("y", {})]
    assert ys and all(y["scale"]["type"] == "log" for y in ys), ys
    tok_s = [float(r.output_tokens_per_s) for r in runs]
    for y in ys:
        lo, hi = y["scale"]["domain"]
        ticks = y["axis"]["values"]
        assert ticks == sorted(ticks) and all(lo <= t <= hi for t in ticks), (ticks, lo, hi)
        assert lo < min(tok_s) and max(tok_s) < hi  # every point inside the plot
        # a labelled tick at or above the highest point and at or below the lowest: the data's top is read
        assert any(t >= max(tok_s) for t in ticks), (ticks, max(tok_s))
        assert any(t <= min(tok_s) for t in ticks), (ticks, min(tok_s))
        assert 3 <= len(ticks) <= 9, ticks
        # no stretch of the data without a tick: neighbouring ticks within a decade
        assert all(b / a <= 10 for a, b in zip(ticks, ticks[1:], strict=False)), ticks


def test_the_walk_u_sweep_draws_a_label_above_its_top_point() -> None:
    """Rendered (vl-convert): Vega drew "1k" as the top label under points at 1.4k-1.7k; now every tick is labelled,
    2k the top one."""
    import re

    from comparelib import charts
    from comparelib.analysis import speedup

    runs = _sweep_runs(*SWEEP_CASES[0][1:])
    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert built is not None
    drawn = re.findall(r"<text[^>]*>([0-9.]+k?)</text>", charts.chart_to_svg(built[0]))
    assert drawn[-6:] == ["300", "500", "700", "1k", "1.5k", "2k"], drawn


# ---------------------------------------------------------------- 5. a sample audit does not replace the typed count

SAMPLE_SOURCE = "acme/chat (rows trained on) (a sample of 300 rows; totals not extrapolated)"
SAMPLE_VOLS = [
    {"id": 1, "draft": "acme/x", "samples": 310, "kind": "measured", "source": "train.jsonl (rows trained on)"},
    {"id": 2, "draft": "acme/s", "samples": 300, "kind": "sample", "source": SAMPLE_SOURCE},
]

SAMPLE_CASES = [
    # name, draft, volume attached, samples typed, samples used, the sidebar's words, typed number not used
    (
        "sample + typed: the typed count",
        "acme/s",
        12_000,
        12_000.0,
        "12,000 samples, typed in (the audit attached as acme/s counts a sample of 300 rows, not the full volume)",
        None,
    ),
    (
        "sample alone: no volume, said why",
        "acme/s",
        None,
        None,
        "the audit attached as acme/s counts a sample of 300 rows, not the full volume: type the full "
        "training-sample count in the sidebar",
        None,
    ),
    ("a full audit still comes first", "acme/x", 12_000, 310.0, "310 samples, attached from Dataset audit", 12_000),
]


@pytest.mark.parametrize(
    ("name", "volume", "typed", "used", "words", "unused"), SAMPLE_CASES, ids=[c[0] for c in SAMPLE_CASES]
)
def test_an_attached_sample_does_not_replace_the_typed_count(
    name: str, volume: str, typed: int | None, used: float | None, words: str, unused: int | None
) -> None:
    from comparelib.models.draft import OwnDraft

    d = OwnDraft.parse(volume, volume=volume, samples=typed)
    n, _where = d.training_samples(SAMPLE_VOLS)
    assert n == used
    assert words in d.volume_text(SAMPLE_VOLS), d.volume_text(SAMPLE_VOLS)
    assert d.typed_unused_in(SAMPLE_VOLS) == unused
    assert d.volume_is_sample(SAMPLE_VOLS) == (volume == "acme/s")


def test_a_sample_audit_attached_on_the_page_leaves_the_typed_count_in_use(tmp_path: Path, hub: Any) -> None:
    """Walk U: 12,000 samples typed in the sidebar, then a 10-row sample of a Hub dataset (no row count stated, so
    not extrapolated) audited and attached: the sidebar and Overview used the sample's rows as the volume."""
    import json

    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from tests.test_draft_volume import DRAFT, ROOT, _go, _md, _ok, _sidebar
    from tests.tokenizer_fixture import build_tokenizer

    rows = [
        {
            "id": str(i),
            "conversations": [
                {"role": "user", "content": f"Question {i}?"},
                {"role": "assistant", "content": "An answer. " * (i % 7 + 1)},
            ],
        }
        for i in range(40)
    ]
    hub.add_repo(
        "acme/chat",
        {"data/train.jsonl": ("\n".join(json.dumps(r) for r in rows) + "\n").encode()},
        repo_type="dataset",
    )
    tok = build_tokenizer(tmp_path / "tok")
    st.cache_data.clear()
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    at.sidebar.text_input(key="draft_source").set_value(DRAFT)
    at.sidebar.selectbox(key="draft_volume").set_value("(none)")
    at.sidebar.number_input(key="draft_samples").set_value(12_000)
    _ok(at.sidebar.button[0].click().run())
    assert "Training data in use: 12,000 samples, typed in." in _sidebar(at)

    _go(at, "audit")
    _ok(at.run())
    at.text_input(key="audit_source").set_value("acme/chat")
    at.text_input(key="audit_tokenizer").set_value(str(tok))
    at.checkbox(key="audit_sample_mode").check()
    at.number_input(key="audit_sample_n").set_value(10)
    _ok(at.button(key="audit_run").click().run())
    assert not at.error, [e.value for e in at.error]
    said = " ".join(c.value for c in at.main.caption)
    assert "a sample of 10 rows" in said and "typed" in said, said  # the attach says what it stores
    at.text_input(key="audit_attach_draft").set_value("my-draft")
    _ok(at.button(key="audit_attach").click().run())
    assert any("Saved 10 samples" in s.value for s in at.success)

    _go(at, "overview")
    _ok(at.run())
    said = _sidebar(at)
    assert (
        "Training data in use: 12,000 samples, typed in (the audit attached as my-draft counts a sample of 10 rows"
        in (said)
    ), said
    assert "not used while an audit is attached" not in said, said
    md = _md(at)
    assert "(typed in" in md and "12K samples" in md, md
    # Acceptance vs data's volume field opens on the typed count too
    _go(at, "scaling")
    _ok(at.run())
    assert at.selectbox(key="sc_vol_pick").value == "typed in"
    assert at.number_input(key="sc_vol_typed").value == 12_000


def test_only_a_sample_not_extrapolated_is_marked_a_sample(tmp_path: Path) -> None:
    import json

    from comparelib.audit.scan import audit

    path = tmp_path / "rows.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(
                {"conversations": [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": "a"}]}
            )
            for i in range(30)
        )
        + "\n"
    )
    full = audit(str(path))
    full.mark_sample(None)
    assert full.sample_rows is None and full.sample_words() is None
    estimate = audit(str(path), sample=10)  # a local file's row count is known: totals extrapolated to 30 rows
    estimate.mark_sample(10)
    assert estimate.estimated and estimate.sample_rows is None


def _walk(obj: Any) -> Any:
    """Every dict inside ``obj`` (a plan's JSON)."""
    if isinstance(obj, dict):
        yield obj
        for v in obj.values():
            yield from _walk(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _walk(v)


def test_the_plan_sets_no_samples_tokens_beside_the_typed_count() -> None:
    """With 12,000 typed and a 10-row sample attached, Overview's plan read the sample's 600 tokens over the 12,000
    samples: 0.05 tokens per sample, called measured."""
    from comparelib.analysis import scaling, summary
    from comparelib.models import comparison
    from comparelib.models.draft import OwnDraft

    vols = [{**SAMPLE_VOLS[1], "draft": "acme/s", "samples": 10, "tokens": 600}]
    d = OwnDraft.parse("registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", volume="acme/s", samples=12_000)
    assert d.volume_row(vols) is None and d.attached_row(vols) is not None
    own = comparison.load_entry(d.source, with_header=False, with_card=False)
    made = summary.plan_for(d, own, [], vols, published=scaling.published_points())
    said = {e["what"]: e for e in _walk(made.to_json()) if "what" in e and "value" in e}
    assert said["samples now"]["value"] == 12_000.0 and said["samples now"]["source"].startswith("user")
    assert said["tokens per sample"]["value"] > 100, said["tokens per sample"]  # not 600 / 12,000


def test_the_plan_says_its_fits_plateau_is_below_the_measured_peak(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The plan fitted walk U's log and said "does not reach the target ... (plateau 2.39)" of a log that measured
    2.42: a plateau under the log's own highest point is said as such, with that point."""
    log = _curve_csv(tmp_path / "log.csv", NOISY_FALL)
    assert cli.main(["plan", "example", "--curve", str(log)]) == 0
    out = capsys.readouterr().out
    assert "(the fit's plateau 2.39, below the 2.42 your log measured at 48K samples seen, so it is no ceiling" in out
    assert "(plateau 2.39)" not in out
