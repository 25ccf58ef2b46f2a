"""Draft cost measured with torch: the built module against the exact counts, the bytes formula,
the JSON contract, exit codes, and the measured step in the speedup model. Tiny configs, CPU."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import torch

from comparelib import cli
from comparelib.analysis import draftcost, speedup
from comparelib.errors import ConfigError, DataError, InputError
from comparelib.live.store import Store
from comparelib.models import architectures, params
from tests.checkpoints import TINY_EAGLE3, TINY_SPECULATORS
from tests.fixtures import page_app

KIMI_SMALL = "registry:AQ-MedAI/Kimi-K2-Instruct-eagle3"
KIMI_BIG = "example:own-kimi-k2.5-draft"

# (case, config changes over TINY_EAGLE3)
BUILD_CASES: list[tuple[str, dict[str, Any]]] = [
    ("specforge, GQA, 96-token draft vocab", {}),
    ("full vocabulary, no d2t", {"draft_vocab_size": 256}),
    ("attention and mlp biases, fc bias", {"attention_bias": True, "mlp_bias": True, "bias": True}),
    ("fc_norm and norm_before_fc", {"fc_norm": True, "norm_before_fc": True}),
    ("two decoder layers", {"num_hidden_layers": 2}),
    ("target wider than the draft (own embedding)", {"target_hidden_size": 96}),
    ("multi-head (no GQA), odd head_dim", {"num_key_value_heads": 4, "head_dim": 10}),
]


def _tiny(changes: dict[str, Any]) -> architectures.ModelSpec:
    return architectures.parse_config({**TINY_EAGLE3, **changes}, source="tiny")


def _specs() -> list[tuple[str, architectures.ModelSpec]]:
    out = [(name, _tiny(ch)) for name, ch in BUILD_CASES]
    out.append(("speculators", architectures.parse_config(TINY_SPECULATORS, source="speculators")))
    return out


@pytest.fixture(autouse=True, scope="module")
def _one_thread() -> Any:
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # the CI box is shared: small ops are steadier on one thread
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize(("name", "spec"), _specs(), ids=[n for n, _ in _specs()])
def test_built_module_has_exactly_the_counted_parameters(name: str, spec: architectures.ModelSpec) -> None:
    count = params.count(spec)
    model = draftcost.build_draft(draftcost.shape_from_spec(spec), device="cpu", dtype="bf16")
    built, buffers = draftcost.module_params(model)
    assert built == count.total
    assert buffers == count.buffers
    # name by name, the module's tensors have the spec's shapes (SGLang's layer names map 1:1)
    shapes = sorted(tuple(p.shape) for p in model.parameters())
    assert shapes == sorted(t.shape for t in spec.tensors if not t.is_buffer)
    assert {p.dtype for p in model.parameters()} == {torch.bfloat16}
    assert not model.embed_tokens.weight.requires_grad  # the target's, frozen


@pytest.mark.parametrize(("name", "spec"), _specs(), ids=[n for n, _ in _specs()])
def test_bytes_cover_every_weight_once(name: str, spec: architectures.ModelSpec) -> None:
    """A step reads all weights but fc and the table; fc is the first forward's; the table is rows only."""
    shape = draftcost.shape_from_spec(spec)
    sb = draftcost.step_bytes(shape, batch=3, context=0, dtype_bytes=2)
    embedding = shape.vocab * shape.hidden * 2
    assert sb.weights + sb.fc + embedding == params.count(spec).total * 2
    assert sb.embedding_rows == 3 * shape.hidden * 2
    assert sb.kv_cache == 0


def test_kimi_pair_bytes_per_step() -> None:
    """Worked by hand: 1,036,808,192 weights outside fc and table, 7168-wide rows, 64 KV heads of 128."""
    from comparelib.models import comparison

    small = draftcost.shape_from_spec(comparison.load_entry(KIMI_SMALL, with_header=False).spec)
    assert (small.hidden, small.heads, small.kv_heads, small.head_dim, small.draft_vocab, small.num_aux) == (
        7168,
        64,
        64,
        128,
        32000,
        3,
    )
    sb = draftcost.step_bytes(small, batch=1, context=2048, dtype_bytes=2)
    assert sb.weights == 1_036_808_192 * 2
    assert sb.embedding_rows == 7168 * 2
    assert sb.kv_cache == 2048 * 2 * 64 * 128 * 2
    assert sb.step == 2_140_739_584
    assert sb.fc == 7168 * 3 * 7168 * 2
    big = draftcost.shape_from_spec(comparison.load_entry(KIMI_BIG, with_header=False).spec)
    grown = draftcost.step_bytes(big, batch=64, context=2048, dtype_bytes=2).step
    assert (
        grown - draftcost.step_bytes(small, batch=64, context=2048, dtype_bytes=2).step == (163840 - 32000) * 7168 * 2
    )


def test_chain_drafting_runs_and_maps_draft_ids() -> None:
    spec = _tiny({})
    shape = draftcost.shape_from_spec(spec)
    model = draftcost.build_draft(shape, device="cpu", dtype="fp32")
    runner = draftcost._Runner(model, shape, batch=2, context=8, steps=3, device="cpu")
    marks: list[int] = []
    with torch.inference_mode():
        tokens, hidden = runner.forward(runner.tokens, runner.aux, 8)  # through fc
        assert hidden.shape == (2, shape.hidden)
        assert tokens.shape == (2,) and int(tokens.min()) >= 0 and int(tokens.max()) < shape.vocab
        # draft ids map through d2t onto target ids: every proposed id is one the draft vocab covers
        allowed = set((torch.arange(shape.draft_vocab) + model.d2t).tolist())
        assert set(tokens.tolist()) <= allowed
        again, _ = runner.forward(runner.tokens, runner.aux, 8)
        assert torch.equal(tokens, again)
        runner.proposal(3, lambda: marks.append(1))
        assert len(marks) == 3
        # fc runs once per proposal (the first forward, over the aux states), never in a plain step;
        # lm_head runs on every forward: what bytes_per_step / first_step_bytes count
        calls = {"fc": 0, "lm_head": 0}
        model.fc.register_forward_hook(lambda *_: calls.__setitem__("fc", calls["fc"] + 1))
        model.lm_head.register_forward_hook(lambda *_: calls.__setitem__("lm_head", calls["lm_head"] + 1))
        runner.step()
        assert calls == {"fc": 0, "lm_head": 1}
        runner.proposal(3, lambda: None)
        assert calls == {"fc": 1, "lm_head": 4}


@pytest.mark.parametrize(
    ("name", "peak"),
    [
        ("NVIDIA H200", 4800.0),
        ("NVIDIA H100 80GB HBM3", 3350.0),
        ("NVIDIA H100 PCIe", 2000.0),
        ("NVIDIA GH200 480GB", 4000.0),
        ("NVIDIA A100-SXM4-80GB", 2039.0),
        ("NVIDIA A100-SXM4-40GB", 1555.0),
        ("NVIDIA L4", 300.0),
        ("Some Future GPU", None),
    ],
)
def test_peak_bandwidth_table(name: str, peak: float | None) -> None:
    assert draftcost.peak_bandwidth_gbs(name) == peak


@pytest.mark.parametrize(
    ("text", "expected"), [("1,8,32,64", [1, 8, 32, 64]), ("8, 1,8", [1, 8]), ("0", None), ("a", None), ("", None)]
)
def test_parse_batches(text: str, expected: list[int] | None) -> None:
    if expected is None:
        with pytest.raises(InputError):
            draftcost.parse_batches(text)
    else:
        assert draftcost.parse_batches(text) == expected


@pytest.mark.parametrize(("text", "expected"), [("3", 3), ("1..5", 5), ("2..5", None), ("0", None), ("1..x", None)])
def test_parse_steps(text: str, expected: int | None) -> None:
    if expected is None:
        with pytest.raises(InputError):
            draftcost.parse_steps(text)
    else:
        assert draftcost.parse_steps(text) == expected


def test_only_eagle3_is_built() -> None:
    from comparelib.models import comparison

    with pytest.raises(ConfigError, match="EAGLE-3 drafts only"):
        draftcost.shape_from_spec(comparison.load_entry("registry:yuhuili/EAGLE-LLaMA3-Instruct-8B").spec)


@pytest.fixture()
def tiny_folder(tmp_path: Path) -> Path:
    (tmp_path / "config.json").write_text(json.dumps(TINY_EAGLE3))
    return tmp_path


def test_cli_json_contract(tiny_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(
        [
            "draft-cost",
            str(tiny_folder),
            "--device",
            "cpu",
            "--dtype",
            "fp32",
            "--batch",
            "1,4",
            "--context",
            "16",
            "--steps",
            "1..3",
            "--repeats",
            "3",
            "--warmup",
            "1",
            "--threads",
            "1",
            "--json",
        ]
    )
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert {"device", "dtype", "params", "results"} <= set(data)
    assert data["device"] == "cpu" and data["dtype"] == "fp32"
    count = params.count(architectures.parse_config(TINY_EAGLE3))
    assert data["params"]["total"] == data["params"]["built"] == count.total
    assert data["params"]["excluding_embedding"] == count.excluding_embedding
    assert [r["batch"] for r in data["results"]] == [1, 4]
    shape = draftcost.shape_from_spec(architectures.parse_config(TINY_EAGLE3))
    for r in data["results"]:
        assert {"batch", "step_ms", "step_ms_spread", "proposal_ms", "bytes_per_step", "bandwidth_gbs"} <= set(r)
        assert r["step_ms"] > 0 and r["step_ms_spread"] >= 0
        assert len(r["proposal_ms_by_steps"]) == 3
        assert r["proposal_ms_by_steps"] == sorted(r["proposal_ms_by_steps"])  # cumulative marks
        assert r["proposal_ms"] == r["proposal_ms_by_steps"][-1]
        assert r["bytes_per_step"] == draftcost.step_bytes(shape, batch=r["batch"], context=16, dtype_bytes=4).step
        assert r["bandwidth_gbs"] == pytest.approx(r["bytes_per_step"] / (r["step_ms"] / 1000) / 1e9)
        assert r["fraction_of_reference"] == pytest.approx(r["bandwidth_gbs"] / data["reference_gbs"])
    assert data["peak_gbs"] is None and data["reference_gbs"] > 0  # CPU: the copy reference instead


def test_cli_text_output(tiny_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(
        [
            "draft-cost",
            str(tiny_folder),
            "--device",
            "cpu",
            "--batch",
            "2",
            "--context",
            "8",
            "--steps",
            "2",
            "--repeats",
            "2",
            "--warmup",
            "0",
            "--threads",
            "1",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "batch   step ms" in out
    assert "of this device's measured copy bandwidth" in out


@pytest.mark.parametrize(
    "extra",
    [
        ["--batch", "0"],
        ["--batch", "x"],
        ["--steps", "0"],
        ["--steps", "3..4"],
        ["--context", "0"],
        ["--device", "tpu"],
        ["--threads", "0"],
        ["--dtype", "fp8"],
    ],
)
def test_cli_bad_input_exits_2(tiny_folder: Path, extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        rc = cli.main(["draft-cost", str(tiny_folder), "--device", "cpu", "--repeats", "1", *extra])
    except SystemExit as exc:  # argparse's own refusals (a choice not offered)
        rc = exc.code  # type: ignore[assignment]
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and len(err.splitlines()) == 1


def test_cli_refuses_what_it_cannot_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["draft-cost", "registry:yuhuili/EAGLE-LLaMA3-Instruct-8B", "--device", "cpu"]) == 2
    assert "EAGLE-3 drafts only" in capsys.readouterr().err
    assert cli.main(["draft-cost", str(tmp_path / "missing"), "--device", "cpu"]) == 2
    if not torch.cuda.is_available():
        (tmp_path / "config.json").write_text(json.dumps(TINY_EAGLE3))
        assert cli.main(["draft-cost", str(tmp_path), "--device", "cuda"]) == 2
        assert "no CUDA GPU" in capsys.readouterr().err


# ---- the speedup model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kimi_model() -> speedup.SpeedupModel:
    store = Store("sqlite://")
    store.ensure_examples()
    return speedup.model_from_runs(store.runs(group="example-kimi-k2.5"))


def test_measured_step_replaces_the_fitted_one(kimi_model: speedup.SpeedupModel) -> None:
    m = speedup.with_draft_step(kimi_model, 1.25, source="H200")
    checking = kimi_model.t_step_ms - kimi_model.t_draft_ms
    assert m.t_draft_ms == 1.25
    assert m.t_step_ms == pytest.approx(checking + 1.25)
    assert m.t_verify_ms == kimi_model.t_verify_ms
    assert m.cycle_ms(3) - kimi_model.cycle_ms(3) == pytest.approx(3 * (1.25 - kimi_model.t_draft_ms))
    assert "draft step 1.250 ms (H200) replaces" in m.notes[-1]
    with pytest.raises(InputError):
        speedup.with_draft_step(kimi_model, -1.0)


def test_model_from_runs_takes_a_measured_step() -> None:
    store = Store("sqlite://")
    store.ensure_examples()
    runs = store.runs(group="example-kimi-k2.5")
    m = speedup.model_from_runs(runs, draft_step_ms=2.0)
    assert m.t_draft_ms == 2.0
    assert any("replaces" in n for n in m.notes)


def test_compare_drafts_side_by_side(kimi_model: speedup.SpeedupModel) -> None:
    same = speedup.compare_drafts(
        kimi_model, [speedup.DraftCandidate("a", 0.5), speedup.DraftCandidate("b", 0.5)], steps=range(1, 6)
    )
    a, b = same[same["scenario"] == "a"], same[same["scenario"] == "b"]
    assert list(a["tok_s"]) == pytest.approx(list(b["tok_s"]))
    assert list(b["accept_to_match"]) == pytest.approx(list(a["accept_length"]))
    side = speedup.compare_drafts(
        kimi_model, [speedup.DraftCandidate("small", 0.45), speedup.DraftCandidate("big", 0.84)], steps=range(1, 6)
    )
    small, big = side[side["scenario"] == "small"], side[side["scenario"] == "big"]
    assert all(big["tok_s"].to_numpy() < small["tok_s"].to_numpy())
    # the acceptance the big draft needs to tie: above the shared one, by the cycle ratio
    ratio = big["cycle_ms"].to_numpy() / small["cycle_ms"].to_numpy()
    assert big["accept_to_match"].to_numpy() == pytest.approx(small["accept_length"].to_numpy() * ratio)
    # with exactly that acceptance at 2 steps, the big draft ties at 2 steps
    need = float(big[big["num_steps"] == 2]["accept_to_match"].iloc[0])
    tie = speedup.compare_drafts(
        kimi_model,
        [speedup.DraftCandidate("small", 0.45), speedup.DraftCandidate("big", 0.84, accept_length=need, at_steps=2)],
        steps=[2],
    )
    assert tie["tok_s"].iloc[1] == pytest.approx(tie["tok_s"].iloc[0])
    with pytest.raises(InputError):
        speedup.compare_drafts(kimi_model, [speedup.DraftCandidate("x", 1), speedup.DraftCandidate("x", 2)])
    # the page's table: one row per num_steps, the drafts in the chosen order, then what the others need
    table = draftcost.side_by_side(side, ["small", "big"])
    assert list(table.index) == [1, 2, 3, 4, 5]
    assert list(table.columns) == ["predicted tok/s: small", "predicted tok/s: big", "acceptance big needs to match"]
    assert list(table["predicted tok/s: big"]) == pytest.approx(list(big["tok_s"]), abs=0.05)  # rounded to 0.1
    assert list(table["acceptance big needs to match"]) == pytest.approx(list(big["accept_to_match"]), abs=0.005)
    assert all(round(v, 1) == v for v in table["predicted tok/s: big"])
    # with the sweep's measured points: measured tok/s and its run beside the predictions, fastest per num_steps
    points = [
        speedup.SweepPoint(2, 90.04, 2.1, run_id=7),
        speedup.SweepPoint(2, 94.0, 2.1, run_id=9),
        speedup.SweepPoint(4, 80.0, 2.5, run_id=8),
        speedup.SweepPoint(12, 50.0, 3.0, run_id=10),  # outside the table's num_steps: left out
    ]
    table = draftcost.side_by_side(side, ["small", "big"], points)
    assert list(table.columns[:3]) == ["measured tok/s", "measured in run", "predicted tok/s: small"]
    assert table.loc[2, "measured tok/s"] == 94.0 and table.loc[2, "measured in run"] == "#9"
    assert table.loc[4, "measured in run"] == "#8"
    assert table["measured tok/s"].isna().sum() == 3 and table["measured in run"].isna().sum() == 3
    # a prediction far from a measured point is said, with the run and by how much; a near one is not
    near = table.copy()
    near.loc[2, "predicted tok/s: small"], near.loc[4, "predicted tok/s: small"] = 99.0, 76.0  # +5%, -5%
    assert draftcost.prediction_gaps(near, "small") is None
    near.loc[4, "predicted tok/s: small"] = 100.0
    assert draftcost.prediction_gaps(near, "small").startswith(
        "The prediction for small is 25% above run #8 at num_steps=4."
    )
    assert draftcost.prediction_gaps(draftcost.side_by_side(side, ["small", "big"]), "small") is None  # no runs
    unnamed = draftcost.side_by_side(side, ["small", "big"], [speedup.SweepPoint(4, 50.0, 2.5)])  # no run id
    assert unnamed.loc[4, "measured tok/s"] == 50.0 and pd.isna(unnamed.loc[4, "measured in run"])
    assert "above the measured run at num_steps=4" in draftcost.prediction_gaps(unnamed, "small")


@pytest.mark.parametrize(
    ("batch", "ms", "how"),
    [(8, 2.0, "measured at batch 8"), (4, 1.5, "interpolated"), (1, 1.0, "measured"), (128, 4.0, "not measured")],
)
def test_step_for_the_sweep_concurrency(batch: int, ms: float, how: str) -> None:
    record = {"results": [{"batch": 1, "step_ms": 1.0}, {"batch": 8, "step_ms": 2.0}, {"batch": 64, "step_ms": 4.0}]}
    got, text = draftcost.step_ms_for_batch(record, batch)
    assert got == pytest.approx(ms if batch != 4 else 1.0 + 3 / 7)
    assert how in text
    # a bandwidth floor is no measurement: its step is worded as estimated, by its flag or by the caller
    for estimate, rec in ((None, {**record, "estimate": True}), (True, record)):
        _, text = draftcost.step_ms_for_batch(rec, batch, estimate=estimate)
        assert "measured" not in text and "estimated" in text, text


def test_recorded_files_load_and_reject(tmp_path: Path) -> None:
    good = tmp_path / "pair.json"
    good.write_text(json.dumps(draftcost.floor_record(context=2048)))
    data = draftcost.load_recorded(good)
    assert [d["draft"] for d in data["drafts"]] == [KIMI_SMALL.split(":", 1)[1], "example: own Kimi-K2.5 draft"]
    one = data["drafts"][0]["results"][0]
    assert one["step_ms"] == pytest.approx(2_140_739_584 / 4.8e12 * 1000)  # the floor at H200's 4.8 TB/s
    bad = tmp_path / "bad.json"
    bad.write_text('{"drafts": [{"results": [{"batch": "one"}]}]}')
    with pytest.raises(DataError, match="numeric"):
        draftcost.load_recorded(bad)
    bad.write_text("not json")
    with pytest.raises(DataError):
        draftcost.load_recorded(bad)
    with pytest.raises(InputError):
        draftcost.load_recorded(tmp_path / "missing.json")
    for path in draftcost.recorded_files():  # every shipped file loads
        assert draftcost.load_recorded(path)["drafts"]


def test_speedup_cli_takes_draft_cost_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pair = tmp_path / "pair.json"
    pair.write_text(json.dumps(draftcost.floor_record(batches=(1, 8))))
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    rc = cli.main(
        [
            "speedup",
            "--run-group",
            "example-kimi-k2.5",
            "--db",
            db,
            "--draft-cost",
            str(pair),
            "--max-steps",
            "4",
            "--json",
        ]
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert {d["scenario"].split(" (")[0] for d in out["drafts"]} == {
        KIMI_SMALL.split(":", 1)[1],
        "example: own Kimi-K2.5 draft",
    }
    assert len(out["drafts"]) == 8
    assert (
        cli.main(["speedup", "--run-group", "example-kimi-k2.5", "--db", db, "--draft-step-ms", "0.9", "--json"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["t_draft_ms"] == 0.9


def test_bench_script_tiny_runs_on_cpu(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_draftcost.py"
    spec = importlib.util.spec_from_file_location("bench_draftcost", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rc = mod.main(
        [
            "--tiny",
            "--device",
            "cpu",
            "--batch",
            "1,2",
            "--context",
            "16",
            "--steps",
            "1..2",
            "--repeats",
            "2",
            "--warmup",
            "1",
            "--json",
        ]
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["drafts"]) == 2 and out["reference_gbs"] > 0
    small, big = out["drafts"]
    # the full-vocabulary twin reads more per step at every batch size
    assert [r["batch"] for r in out["big_vs_small"]] == [1, 2]
    assert all(r["bytes_ratio"] > 1 for r in out["big_vs_small"])
    assert big["params"]["lm_head"] > small["params"]["lm_head"]


def _side_table(at: Any) -> Any:
    found = [d.value for d in at.dataframe if "predicted tok/s: " in " ".join(map(str, d.value.columns))]
    assert len(found) == 1
    return found[0]


def test_page_shows_the_pair_side_by_side() -> None:
    at = page_app("../pages/scaling.py", timeout=60)
    at.session_state["sc_tab"] = "Draft cost"  # built only while shown
    at.session_state["sc_dc_figures_open"] = True  # the step-cost figures are built when opened
    at.run()
    assert not at.exception, at.exception
    source = at.selectbox(key="sc_dc_source")
    # recorded (measured) figures come first; the estimate is always offered last
    assert source.options[-1] == "estimate: bandwidth floor at H200 peak (not measured)"
    assert source.value == source.options[0]
    source.set_value(source.options[-1]).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_dc_first").value == "example: own Kimi-K2.5 draft"
    table = _side_table(at)
    assert list(table.index) == list(range(1, 11))
    assert list(table.columns[:4]) == [
        "measured tok/s",
        "measured in run",
        "predicted tok/s: example: own Kimi-K2.5 draft",
        "predicted tok/s: AQ-MedAI/Kimi-K2-Instruct-eagle3",
    ]
    # the example group's measured runs, each named, at the num_steps they ran
    measured = table.dropna(subset=["measured tok/s"])
    assert list(measured.index) == [2] and measured.loc[2, "measured tok/s"] == 94.0  # the story's 2-step run
    assert str(measured.loc[2, "measured in run"]).startswith("#")
    # same acceptance, cheaper step: the 32K-vocabulary draft is faster at every num_steps
    assert (table.iloc[:, 3] > table.iloc[:, 2]).all()
    # the acceptances say which run they start from
    acc = at.number_input(key="sc_dc_acc_0")
    assert acc.help.startswith("Starts at run #") and "measured acceptance" in acc.help
    assert any(c.value.startswith("Acceptances start at run #") for c in at.caption)
    texts = "\n".join(m.value for m in at.markdown)
    assert "**AQ-MedAI/Kimi-K2-Instruct-eagle3**: Predicted best: num_steps=2" in texts
    assert any("Estimate, not a measurement" in c.value for c in at.caption)
    steps = [c.value for c in at.caption if c.value.startswith("step ")]
    assert len(steps) == 2 and all("(estimated at batch" in c for c in steps), steps
    # a lower acceptance for the small draft brings it down
    before = float(table.iloc[1, 3])
    at.number_input(key="sc_dc_acc_0").set_value(1.8).run()
    assert not at.exception
    assert float(_side_table(at).iloc[1, 3]) < before
    # the measured draft typed far below what its run measured: its prediction leaves the run, and the page says so
    at.number_input(key="sc_dc_acc_1").set_value(1.2).run()
    gap = [w.value for w in at.warning if w.value.startswith("The prediction for example: own Kimi-K2.5 draft is ")]
    assert len(gap) == 1 and "below run #" in gap[0] and "at num_steps=2" in gap[0], [w.value for w in at.warning]


def test_the_draft_cost_section_starts_from_your_draft_with_rounded_numbers(hub: Any) -> None:
    from tests.fixtures import aq_config, aq_tensors

    sha = hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    at = page_app("../pages/scaling.py", timeout=60)
    at.query_params["draft"] = "acme/kimi-draft"
    at.query_params["draft_group"] = "example-kimi-k2.5"
    at.session_state["sc_tab"] = "Draft cost"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_dc_source").value == (
        "estimate: bandwidth floor at H200 peak, with your draft (not measured)"
    )
    assert at.selectbox(key="sc_dc_first").value == f"acme/kimi-draft@{sha[:7]}"
    table = _side_table(at)
    assert str(table.columns[2]) == f"predicted tok/s: acme/kimi-draft@{sha[:7]}"
    # the measured 2-step run beside its prediction; within 10% of it here, so no warning
    assert table.loc[2, "measured tok/s"] == 94.0
    assert abs(table.loc[2, str(table.columns[2])] / 94.0 - 1) <= 0.10
    assert not [w for w in at.warning if "The prediction for" in w.value]
    for col in table.columns:
        if col == "measured in run":
            continue
        digits = 1 if "tok/s" in str(col) else 2
        assert all(pd.isna(v) or round(float(v), digits) == float(v) for v in table[col]), col
