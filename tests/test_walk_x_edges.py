"""Walk X's edges: what the Live benchmark exports, its sweep chart and eval-draft said that the user's own runs and
dumps did not support."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from comparelib import export, tables

# ---------------------------------------------------------------- 1. every runs export tells the runs apart

# walk X's group walkx-l31, as its CSV export carried it: batch-1 and batch-4 baselines, a batch-1 chain (#7) and
# tree (#9) at num_steps 3, and the same two at batch 4 (#11, #13)
WALK_X_RUNS_CSV = """\
id,kind,group,status,engine,batch,speculative_algorithm,draft,num_steps,topk,num_draft_tokens,output_tokens_per_s,\
accept_length,accept_length_mean,ttft_p50_ms,ttft_p99_ms,tpot_p50_ms,tpot_p99_ms,requests,errors,is_baseline,labels,\
draft_model,model
4,measured,walkx-l31,finished,sglang,1,,—,,,,43.8,,,41.3,44.7,22.6,22.9,8,0,True,baseline,,meta-llama/Llama-3.1-8B-Instruct
5,measured,walkx-l31,finished,sglang,4,,—,,,,175.8,,,41.7,43.3,22.5,22.6,16,0,True,baseline,,meta-llama/Llama-3.1-8B-Instruct
7,measured,walkx-l31,finished,sglang,1,EAGLE3,walkx/l31-eagle3,3,1,4,96.9,3.0,3.0,41.1,43.0,10.0,10.1,8,0,False,chain,\
walkx/l31-eagle3,meta-llama/Llama-3.1-8B-Instruct
9,measured,walkx-l31,finished,sglang,1,EAGLE3,walkx/l31-eagle3,3,4,8,114.7,4.0,4.0,41.1,130.4,8.4,8.4,8,0,False,tree,\
walkx/l31-eagle3,meta-llama/Llama-3.1-8B-Instruct
11,measured,walkx-l31,finished,sglang,4,EAGLE3,walkx/l31-eagle3,3,1,4,387.6,3.0,3.0,82.1,149.9,9.5,10.1,16,0,False,\
chain4,walkx/l31-eagle3,meta-llama/Llama-3.1-8B-Instruct
13,measured,walkx-l31,finished,sglang,4,EAGLE3,walkx/l31-eagle3,3,4,8,455.4,4.0,4.0,41.3,42.0,8.4,8.5,16,0,False,\
tree4,walkx/l31-eagle3,meta-llama/Llama-3.1-8B-Instruct
"""

# what tells each run apart (batch, topk, draft tokens), as the page table and the CSV carry it
SETTINGS = {
    4: ("1", "", ""),
    5: ("4", "", ""),
    7: ("1", "1", "4"),
    9: ("1", "4", "8"),
    11: ("4", "1", "4"),
    13: ("4", "4", "8"),
}


def _walk_x_frame(**changes: dict[int, Any]) -> pd.DataFrame:
    frame = pd.read_csv(io.StringIO(WALK_X_RUNS_CSV))
    for col, by_id in changes.items():
        frame[col] = frame[col].astype(object)
        for rid, value in by_id.items():
            frame.loc[frame["id"] == rid, col] = value
    return frame


def _cells(text: str, fmt: str) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a rendered LaTeX tabular or Markdown table, cells stripped, LaTeX escapes undone."""
    if fmt == "latex":
        body = text.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
        head = text.split("\\toprule\n", 1)[1].split("\\midrule", 1)[0]

        def split(line: str) -> list[str]:
            return [
                c.strip().replace("\\_", "_").replace("{,}", ",")
                for c in line.rstrip().removesuffix("\\\\").split("&")
            ]

        return split(head.strip()), [split(line) for line in body.strip().splitlines()]
    lines = text.strip().splitlines()

    def cut(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    return cut(lines[0]), [cut(line) for line in lines[2:]]


@pytest.mark.parametrize("fmt", ["latex", "md"])
def test_the_runs_export_carries_batch_topk_and_draft_tokens(fmt: str) -> None:
    """Walk X: the LaTeX runs table read "EAGLE3 & 3" for the batch-1 chain #7 and tree #9 alike, and a batch-4 run
    like a batch-1 one but for its numbers."""
    header, rows = _cells(export.render(_walk_x_frame(), fmt, table=tables.RUNS), fmt)
    for col in ("batch", "topk", "num_draft_tokens", "draft"):
        assert col in header, (fmt, header)
    by_id = {int(r[header.index("id")]): r for r in rows}
    got = {rid: tuple(r[header.index(c)] for c in ("batch", "topk", "num_draft_tokens")) for rid, r in by_id.items()}
    assert got == SETTINGS, got
    # no two runs read the same once the measured numbers are set aside
    measured = {"id", "output_tokens_per_s", "accept_length", "accept_length_mean", "requests", "errors"}
    measured |= {h for h in header if "(ms)" in h or h.endswith("_ms")}
    settings = [tuple(c for h, c in zip(header, r, strict=True) if h not in measured) for r in rows]
    spec = [s for s, r in zip(settings, rows, strict=True) if int(r[header.index("id")]) not in (4, 5)]
    assert len(set(spec)) == len(spec), spec


LATEX_VARIED_CASES = [
    # name, changes to the walk's frame, the column the LaTeX table must then carry (None: carries neither)
    ("one engine, one target", {}, None),
    ("a vLLM run beside SGLang's", {"engine": {9: "vllm", 13: "vllm"}}, "engine"),
    ("runs of two targets", {"model": {11: "meta-llama/Llama-3.1-70B-Instruct"}}, "model"),
]


@pytest.mark.parametrize(("name", "changes", "column"), LATEX_VARIED_CASES, ids=[c[0] for c in LATEX_VARIED_CASES])
def test_the_latex_runs_table_names_the_engine_or_target_where_runs_differ_in_it(
    name: str, changes: dict[str, dict[int, Any]], column: str | None
) -> None:
    header, rows = _cells(export.render(_walk_x_frame(**changes), "latex", table=tables.RUNS), "latex")
    for col in ("engine", "model"):
        assert (col in header) == (col == column), (name, header)
    if column:
        values = {r[header.index(column)] for r in rows}
        assert len(values) == 2, values


def test_the_cli_runs_latex_carries_the_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`runs --format latex` renders through the same table: batch, topk and draft tokens in its header."""
    from comparelib import cli
    from comparelib.live.store import Store

    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    Store(url).close()
    rc = cli.main(["runs", "--db", url, "--format", "latex"])
    out = capsys.readouterr().out
    assert rc == 0
    header, rows = _cells(out, "latex")
    assert {"batch", "topk", "num_draft_tokens"} <= set(header), header
    assert len(rows) == 3, rows  # the built-in examples


# ---------------------------------------------------------------- 2. the sweep chart's tok/s ticks are formatted


def _runs(bases: tuple[float, ...], spec: tuple[float, ...]) -> list[Any]:
    from tests.test_charts_sweep_series import _run

    runs = [_run(1 + i, v, bs=1 + 3 * i, labels=("baseline",)) for i, v in enumerate(bases)]
    runs += [_run(10 + k, v, bs=1, steps=k + 2, al=2.0 + 0.4 * k) for k, v in enumerate(spec)]
    return runs


ROUND_LABEL = re.compile(r"^-?\d{1,3}(,\d{3})*(\.\d{1,2})?k?$")

TICK_CASES = [
    # name, baselines' tok/s, speculative runs' tok/s, log axis?
    ("walk X: only a baseline", (43.773125,), (), False),
    ("one run, no baseline", (), (96.91234,), False),
    ("two baselines 0.7 apart", (43.773125, 44.5), (), False),
    ("a baseline and a close sweep", (43.773125,), (88.54, 96.93, 93.01), False),
    ("batch 1 and batch 4 (log)", (43.773125, 175.8), (88.5, 96.9, 387.6), True),
    ("under 1 tok/s (log)", (0.5,), (1.5, 3.0), True),
    ("thousands, one baseline", (12_345.678,), (), False),
]


@pytest.mark.parametrize(("name", "bases", "spec", "log"), TICK_CASES, ids=[c[0] for c in TICK_CASES])
def test_the_sweep_charts_tok_s_ticks_are_round_and_labelled(
    name: str, bases: tuple[float, ...], spec: tuple[float, ...], log: bool
) -> None:
    """Walk X: with only a baseline the y axis read one raw tick, "43.773125". Every case: the axis states its tick
    values and their format, they hold every point, and the drawn labels are round numbers, at least two."""
    from comparelib import charts
    from comparelib.analysis import speedup

    runs = _runs(bases, spec)
    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert built is not None
    layers = built[0].to_dict()["layer"]
    ys = [n["encoding"]["y"] for n in layers if "title" in n.get("encoding", {}).get("y", {})]
    assert ys, layers
    values = [*bases, *spec]
    for y in ys:
        assert (y["scale"].get("type") == "log") == log, y
        ticks, fmt = y["axis"].get("values"), y["axis"].get("format")
        assert ticks and fmt, y
        lo, hi = y["scale"]["domain"]
        assert len(ticks) >= 2 and ticks == sorted(ticks) and all(lo <= t <= hi for t in ticks), (ticks, lo, hi)
        assert lo <= min(values) and max(values) <= hi, (lo, hi, values)
    svg = charts.chart_to_svg(built[0])
    labels = [t for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg) if re.match(r"^-?[\d.,]+[a-zµ]?$", t)]
    x_labels = {str(i) for i in range(11)} if spec else set()
    y_labels = [t for t in labels if t not in x_labels]
    assert len(y_labels) >= 2, labels
    assert all(ROUND_LABEL.match(t) for t in labels), labels  # "43.773125" and "500m" are not
    assert not any(f"{v:g}" in y_labels for v in values if f"{v:g}" != f"{round(v, 1):g}"), y_labels


# ---------------------------------------------------------------- 3. eval-draft's teacher count reads against tokens

H, V, INTER = 32, 96, 64


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Walk X's setup: a random one-layer draft, a target holding only the dump fixture's embedding, norm and
    lm_head, and dumps of that target in the speculators layout (no loss mask) and SpecForge's."""
    import torch
    from safetensors.torch import save_file

    from tests.dump_fixtures import TinyTarget, build_dump

    root = tmp_path_factory.mktemp("walkx")
    t = TinyTarget()
    g = torch.Generator().manual_seed(5)

    def r(*s: int) -> torch.Tensor:
        return (torch.randn(*s, generator=g) * 0.1).contiguous()

    draft = root / "draft"
    draft.mkdir()
    ones = torch.ones(H)
    save_file(
        {
            "fc.weight": r(H, 3 * H),
            "midlayer.self_attn.q_proj.weight": r(32, 2 * H),
            "midlayer.self_attn.k_proj.weight": r(16, 2 * H),
            "midlayer.self_attn.v_proj.weight": r(16, 2 * H),
            "midlayer.self_attn.o_proj.weight": r(H, 32),
            "midlayer.mlp.gate_proj.weight": r(INTER, H),
            "midlayer.mlp.up_proj.weight": r(INTER, H),
            "midlayer.mlp.down_proj.weight": r(H, INTER),
            "midlayer.input_layernorm.weight": ones.clone(),
            "midlayer.hidden_norm.weight": ones.clone(),
            "midlayer.post_attention_layernorm.weight": ones.clone(),
            "norm.weight": ones.clone(),
            "lm_head.weight": t.embedding.clone().contiguous(),
        },
        str(draft / "model.safetensors"),
    )
    shape = {"hidden_size": H, "intermediate_size": INTER, "num_attention_heads": 4, "num_key_value_heads": 2}
    shape |= {"head_dim": 8, "vocab_size": V, "rms_norm_eps": 1e-6, "max_position_embeddings": 4096}
    shape |= {"rope_theta": 10000.0, "model_type": "llama"}
    cfg = {"architectures": ["LlamaForCausalLMEagle3"], "num_hidden_layers": 1, **shape}
    (draft / "config.json").write_text(json.dumps(cfg))
    target = root / "target"
    target.mkdir()
    save_file(
        {
            "model.embed_tokens.weight": t.embedding.contiguous(),
            "model.norm.weight": ones.clone(),
            "lm_head.weight": t.embedding.clone().contiguous(),
        },
        str(target / "model.safetensors"),
    )
    (target / "config.json").write_text(
        json.dumps({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 12, **shape})
    )
    return {
        "draft": draft,
        "target": target,
        "speculators": build_dump(root / "spec", "speculators", n_files=4, target=t),
        "specforge": build_dump(root / "sf", "specforge", n_files=4, target=t),
    }


@pytest.mark.parametrize("layout", ["speculators", "specforge"])
def test_eval_draft_counts_its_teacher_tokens_against_tokens_never_more_than_rows_reads(
    layout: str, tiny: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk X: eval-draft on a tiny random draft said `teacher_rows` 296 beside `rows` 280: the recomputed count
    ran over every position of each file (its fused pass over all), `rows` counts only where a cycle could start.
    The JSON now says `teacher_tokens`: positions (of `tokens`) where the dump's token differs from the target's at a
    counted step, so the dump-token chain is needed there; no key named rows exceeds `rows`."""
    from comparelib import cli

    rc = cli.main(
        ["eval-draft", str(tiny["draft"]), "--dumps", str(tiny[layout]), "--target", str(tiny["target"]),
         "--steps", "3", "--json"]
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert "teacher_rows" not in out, sorted(out)
    assert 0 < out["teacher_tokens"] <= out["tokens"], (out["teacher_tokens"], out["tokens"])
    # a random draft on the target's tokens against dump tokens the target did not write: most positions differ
    assert out["teacher_tokens"] >= out["tokens"] // 2, out
    for key, value in out.items():
        if "rows" in key and isinstance(value, int):
            assert value <= out["rows"], (key, value, out["rows"])
    said = f"teacher_tokens: at {out['teacher_tokens']:,} of the {out['tokens']:,} tokens"
    assert any(n.startswith(said) for n in out["notes"]), out["notes"]
    rc = cli.main(["eval-draft", str(tiny["draft"]), "--dumps", str(tiny[layout]), "--target", str(tiny["target"]),
                   "--steps", "3"])  # fmt: skip
    text = capsys.readouterr().out
    assert rc == 0 and said in text and f"(rows, {out['rows']:,}, counts only" in text, text


def test_teacher_target_needs_no_dump_token_chain(tiny: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    from comparelib import cli

    rc = cli.main(
        ["eval-draft", str(tiny["draft"]), "--dumps", str(tiny["specforge"]), "--target", str(tiny["target"]),
         "--steps", "3", "--teacher", "target", "--json"]
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["teacher_tokens"] == 0, out["teacher_tokens"]


def test_the_live_benchmark_page_draws_a_lone_baselines_group_on_round_ticks(tmp_path: Path) -> None:
    """AppTest of the page: walk X's group held only a baseline (43.773125 tok/s) and its sweep chart's one y tick
    read "43.773125". The chart the page draws states round tick values around it and a format for them."""
    from comparelib import settings
    from comparelib.live.importers import import_file
    from comparelib.live.store import Store
    from tests.fixtures import page_app, sglang_record

    rec = sglang_record()
    for key in ("speculative_algorithm", "speculative_draft_model_path", "speculative_num_steps"):
        rec["server_info"].pop(key)
    rec["server_info"].pop("speculative_eagle_topk")
    rec["server_info"].pop("speculative_num_draft_tokens")
    rec["server_info"].pop("internal_states")
    rec["output_throughput"] = 43.773125
    path = tmp_path / "base.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    store = Store(settings.database_url())
    import_file(store, path, labels=["baseline"], group="walkx-base")
    store.close()
    at = page_app(str(Path(__file__).resolve().parent.parent / "pages" / "bench.py"), timeout=60)
    at.run()
    at.selectbox(key="sweep_group").set_value("walkx-base").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (chart,) = at.get("vega_lite_chart")  # tok/s only: a baseline has no acceptance length
    spec = json.loads(chart.proto.spec)
    ys = [n["encoding"]["y"] for n in spec["layer"] if "title" in n.get("encoding", {}).get("y", {})]
    assert ys
    for y in ys:
        ticks, fmt = y["axis"]["values"], y["axis"]["format"]
        assert fmt == ",.0f" and ticks == [41.0, 42.0, 43.0, 44.0, 45.0, 46.0], (fmt, ticks)
        assert y["scale"]["domain"] == [41.0, 46.0], y["scale"]
