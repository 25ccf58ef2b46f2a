"""Hidden-state dump audit: each wiring bug is caught, correct dumps pass, pickles are refused."""

from __future__ import annotations

import gzip
import json
import pickle
import subprocess
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import save_file

from comparelib.audit.dumps import DumpReport, audit_dumps, discover_dump_files, load_embedding, read_draft_config
from comparelib.errors import ConfigError, DataError, InputError, UnsafeFileError
from tests import dump_fixtures as fx
from tests.dump_fixtures import one_torch_thread  # noqa: F401 - autouse: one torch thread per module
from tests.fixtures import run_cli as _run_cli

TARGET = fx.TinyTarget()
N = fx.N_LAYERS


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return _run_cli("audit-dump", *args, env={"OMP_NUM_THREADS": "1"})


def problems(report: DumpReport) -> set[str]:
    return {f.code for f in report.findings if f.severity in ("error", "warning")}


# (case id, layout, build kwargs, audit kwargs, expected error+warning codes, verdict)
CASES: list[tuple[str, str, dict[str, Any], dict[str, Any], set[str], str]] = [
    ("specforge-correct", "specforge", {}, {}, set(), "ok"),
    (
        "specforge-correct-with-config",
        "specforge",
        {},
        {"draft_config": {"hidden_size": 32, "vocab_size": fx.VOCAB}, "embedding": TARGET.embedding},
        set(),
        "ok",
    ),
    ("specforge-gz", "specforge", {"compress": True}, {"target_hidden_size": 32}, set(), "ok"),
    ("specforge-fp16", "specforge", {"dtype": torch.float16}, {}, set(), "ok"),
    ("eagle12", "eagle12", {}, {}, set(), "ok"),
    ("modelopt-correct", "modelopt", {}, {"target_hidden_size": 32}, set(), "ok"),
    ("speculators-correct", "speculators", {}, {"target_hidden_size": 32}, set(), "ok"),
    # wiring bugs
    ("embedding-as-low-no-embedding", "specforge", {"aux": [0, N // 2, N - 3]}, {}, {"aux_context_free"}, "broken"),
    (
        "embedding-as-low-with-embedding",
        "specforge",
        {"aux": [0, N // 2, N - 3]},
        {"embedding": TARGET.embedding},
        {"aux_is_embedding"},
        "broken",
    ),
    (
        "modelopt-embedding-as-low",
        "modelopt",
        {"aux": [0, N // 2, N - 3]},
        {"embedding": TARGET.embedding},
        {"aux_is_embedding"},
        "broken",
    ),
    ("speculators-embedding-as-low", "speculators", {"aux": [0, N // 2, N - 3]}, {}, {"aux_context_free"}, "broken"),
    (
        "low-close-to-embedding",
        "specforge",
        {"aux": [0, N // 2, N - 3], "mutate": fx.blur_low_chunk},
        {"embedding": TARGET.embedding},
        {"aux_near_embedding"},
        "suspect",
    ),
    ("same-layer-three-times", "specforge", {"aux": [N // 2] * 3}, {}, {"aux_identical"}, "broken"),
    ("low-equals-mid", "modelopt", {"aux": [2, 2, N - 3]}, {}, {"aux_identical"}, "broken"),
    ("layers-reversed", "specforge", {"aux": [N - 3, N // 2, 2]}, {}, {"aux_norm_order"}, "suspect"),
    ("high-is-final-layer", "specforge", {"aux": [2, N // 2, N], "final": N}, {}, {"aux_high_equals_final"}, "broken"),
    # shapes, values, masks
    ("nan-injected", "specforge", {"mutate": fx.nan_in_first}, {}, {"nan"}, "broken"),
    ("aux-two-layers", "specforge", {"aux": [2, N // 2]}, {}, {"aux_width"}, "broken"),
    (
        "aux-four-layers-vs-config",
        "specforge",
        {"aux": [2, 4, 6, 9]},
        {"draft_config": {"target_hidden_size": 32}},
        {"aux_width"},
        "broken",
    ),
    ("speculators-two-aux", "speculators", {"aux": [2, N // 2]}, {}, {"aux_width"}, "broken"),
    ("hidden-vs-config", "specforge", {}, {"target_hidden_size": 64}, {"hidden_size", "aux_width"}, "broken"),
    ("ids-beyond-vocab", "specforge", {}, {"vocab_size": 40}, {"token_range"}, "broken"),
    ("one-zero-mask", "specforge", {"mutate": fx.zero_mask_first}, {}, {"loss_mask_empty"}, "suspect"),
    (
        "all-zero-masks",
        "specforge",
        {"mutate": fx.zero_mask_all},
        {},
        {"loss_mask_empty", "no_supervised_tokens"},
        "broken",
    ),
    ("mask-length-mismatch", "specforge", {"mutate": fx.short_mask}, {}, {"length_mismatch"}, "broken"),
    ("missing-loss-mask", "specforge", {"mutate": fx.drop_loss_mask}, {}, {"missing_key"}, "broken"),
    ("odd-dtypes", "specforge", {"mutate": fx.odd_dtypes}, {}, {"dtype"}, "suspect"),
    ("modelopt-id-mismatch", "modelopt", {"mutate": fx.wrong_conversation_id}, {}, {"conversation_id"}, "suspect"),
    (
        "config-duplicate-layer-ids",
        "specforge",
        {},
        {"draft_config": {"hidden_size": 32, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 1, 28]}}},
        {"config_layer_ids"},
        "suspect",
    ),
]


@pytest.mark.parametrize(("case", "layout", "build", "audit", "expected", "verdict"), CASES, ids=[c[0] for c in CASES])
def test_audit_cases(
    tmp_path: Path,
    case: str,
    layout: str,
    build: dict[str, Any],
    audit: dict[str, Any],
    expected: set[str],
    verdict: str,
) -> None:
    root = fx.build_dump(tmp_path / case, layout, **build)
    report = audit_dumps(root, **audit)
    assert problems(report) == expected, [(f.code, f.message) for f in report.findings]
    assert report.summary["verdict"] == verdict
    assert report.format == layout
    assert report.files_total == 6 and report.files_read == 6


INFO_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("eagle12", {}, "no_aux"),
    ("speculators", {}, "no_loss_mask"),
    ("specforge", {"mutate": fx.last_position_supervised}, "loss_mask_last"),
    ("modelopt", {}, "no_target_hidden"),
]


@pytest.mark.parametrize(("layout", "build", "code"), INFO_CASES, ids=[c[2] for c in INFO_CASES])
def test_info_findings_do_not_change_the_verdict(
    tmp_path: Path, layout: str, build: dict[str, Any], code: str
) -> None:
    report = audit_dumps(fx.build_dump(tmp_path / "d", layout, **build))
    assert code in report.codes("info")
    assert report.summary["verdict"] == "ok"


def test_library_never_loads_unsafely() -> None:
    source = (Path(__file__).parents[1] / "comparelib" / "audit" / "dumps.py").read_text()
    assert "weights_only=False" not in source and "pickle.load" not in source
    needle = "torch." + "load("  # spelled apart so the house-rule grep doesn't flag this check itself
    calls = [line for line in source.splitlines() if needle in line]
    assert len(calls) >= 2 and all("weights_only=True" in line for line in calls)


def test_correct_dump_rows_and_summary(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d")
    report = audit_dumps(root, target_hidden_size=32, embedding=TARGET.embedding)
    assert not [f for f in report.findings if f.severity == "error"]
    assert len(report.files) == 6
    lengths, supervised = [], 0
    for row in report.files:
        assert row["status"] == "ok" and row["hidden"] == 32 and row["dtype"] == "bfloat16"
        assert row["nan"] == 0 and row["inf"] == 0
        low, mid, high = row["aux_norms"]
        assert low < mid < high
        assert len(row["aux_pairwise_cos"]) == 3 and max(row["aux_pairwise_cos"]) < 0.95
        assert max(row["aux_embedding_cos"]) < 0.5
        assert 0.2 < row["high_final_cos"] < 0.999
        assert 0 < row["loss_mask_share"] < 1
        lengths.append(row["seq_len"])
        supervised += row["supervised_tokens"]
    s = report.summary
    assert s["tokens"] == sum(lengths) and s["supervised_tokens"] == supervised
    assert s["seq_len"]["min"] == min(lengths) and s["seq_len"]["max"] == max(lengths)
    assert s["hidden_size"] == 32 and s["vocab_size"] == fx.VOCAB  # vocab taken from the embedding
    assert len(s["mean_aux_norms"]) == 3 and s["mean_aux_norms"][0] < s["mean_aux_norms"][2]


def test_embedding_wired_dump_names_the_chunk(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", aux=[0, N // 2, N - 3])
    report = audit_dumps(root, embedding=TARGET.embedding)
    assert report.summary["verdict"] == "broken"
    (finding,) = [f for f in report.findings if f.code == "aux_is_embedding"]
    assert "chunk 0" in finding.message and "6 of 6 sampled files" in finding.message
    assert all(row["aux_embedding_cos"][0] > 0.999 for row in report.files)


def test_pickle_files_are_refused_and_never_executed(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d")
    markers = tmp_path / "markers"
    markers.mkdir()
    m1, m2 = fx.add_trap_files(root, markers)
    report = audit_dumps(root, max_files=20)
    assert not m1.exists() and not m2.exists()
    refused = [f for f in report.findings if f.code == "unsafe_pickle"]
    assert refused and "re-save" in refused[0].message and "unpickling" in refused[0].message
    assert report.files_total == 8 and report.files_read == 6
    assert report.summary["files_refused"] == 2 and report.summary["verdict"] == "broken"
    assert {r["name"] for r in report.files if r["status"] == "refused"} == {
        "rows_0-2000/data_90.ckpt",
        "rows_0-2000/data_91.ckpt",
    }
    # Control: the traps are armed, so their absence above is the safe loader's doing.
    control = tmp_path / "control"
    control.mkdir()
    pickle.loads(pickle.dumps(fx.SetstateTrap(str(control / "a"))))
    pickle.loads(pickle.dumps(fx.ReduceTrap(str(control / "b"))))
    assert (control / "a").exists() and (control / "b").exists()


def test_unreadable_files_are_reported_not_raised(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=3)
    (root / "rows_0-2000" / "data_7.ckpt").write_bytes(b"not a torch file")
    with gzip.open(root / "rows_0-2000" / "data_8.ckpt.gz", "wb") as fh:
        fh.write(b"garbage")
    (root / "hs_0.safetensors").write_bytes(b"\x00" * 3)  # a stray file of another layout
    report = audit_dumps(root)
    assert report.files_read == 3 and report.summary["files_unreadable"] == 2
    assert {"unreadable", "mixed_formats"} <= problems(report)
    rows = report.finding_rows()  # the page's findings table
    assert [r["code"] for r in rows] == [f.code for f in report.findings]
    assert report.errors == report.summary["errors"] == sum(r["severity"] == "error" for r in rows) >= 1
    assert {r["file"] for r in rows if r["code"] == "mixed_formats"} == {""}  # folder-wide: no file


def test_sampling_is_seeded_and_bounded(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=10)
    a = audit_dumps(root, max_files=3, seed=5)
    b = audit_dumps(root, max_files=3, seed=5)
    c = [audit_dumps(root, max_files=3, seed=s) for s in range(6)]
    assert a.files_total == 10 and a.files_read == 3
    assert [r["name"] for r in a.files] == [r["name"] for r in b.files]
    assert len({tuple(r["name"] for r in x.files) for x in c}) > 1
    assert a.summary["estimated_total_tokens"] == round(a.summary["tokens"] / 3 * 10)


def test_discovery_ignores_vocab_mapping(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=2)
    (root / "vocab_mapping").mkdir()
    torch.save({"d2t": torch.zeros(4)}, root / "vocab_mapping" / "vocab_mapping.pt")
    assert {k: len(v) for k, v in discover_dump_files(root).items()} == {"ckpt": 2}


def test_single_file_can_be_audited(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=2)
    report = audit_dumps(root / "rows_0-2000" / "data_1.ckpt")
    assert report.files_total == 1 and report.files[0]["name"] == "data_1.ckpt"
    assert report.summary["verdict"] == "ok"


@pytest.mark.parametrize("kind", ["missing", "empty", "no-dumps"])
def test_bad_folder_is_a_data_error(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "x"
    if kind != "missing":
        folder.mkdir()
    if kind == "no-dumps":
        (folder / "README.md").write_text("hi")
        (folder / "notes.ckpt").write_text("not data_<i>")
    with pytest.raises(DataError) as info:
        audit_dumps(folder)
    assert str(folder) in str(info.value)
    assert not isinstance(info.value, UnsafeFileError)


@pytest.mark.parametrize("kwargs", [{"max_files": 0}, {"target_hidden_size": -1}, {"vocab_size": 0}])
def test_bad_options_are_input_errors(tmp_path: Path, kwargs: dict[str, Any]) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=1)
    with pytest.raises(InputError):
        audit_dumps(root, **kwargs)


def test_load_embedding(tmp_path: Path) -> None:
    ckpt = tmp_path / "target"
    ckpt.mkdir()
    save_file({"model.layers.0.mlp.up_proj.weight": torch.zeros(4, 4)}, str(ckpt / "model-00001-of-00002.safetensors"))
    save_file(
        {"model.embed_tokens.weight": TARGET.embedding.to(torch.bfloat16), "lm_head.weight": torch.zeros(2, 2)},
        str(ckpt / "model-00002-of-00002.safetensors"),
    )
    from_folder = load_embedding(ckpt)
    from_file = load_embedding(ckpt / "model-00002-of-00002.safetensors")
    assert from_folder.shape == (fx.VOCAB, fx.HIDDEN) and torch.equal(from_folder, from_file)
    with pytest.raises(DataError, match="embed_tokens"):
        load_embedding(ckpt / "model-00001-of-00002.safetensors")
    with pytest.raises(InputError):
        load_embedding(tmp_path / "nope.safetensors")


def test_read_draft_config(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 32}))
    assert read_draft_config(tmp_path) == {"hidden_size": 32}
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(ConfigError):
        read_draft_config(tmp_path / "bad.json")
    with pytest.raises(InputError):
        read_draft_config(tmp_path / "missing")


# ----------------------------------------------------------------------------- CLI


def test_cli_json(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", aux=[0, N // 2, N - 3])
    cfg = tmp_path / "draft"
    cfg.mkdir()
    (cfg / "config.json").write_text(json.dumps({"hidden_size": 32, "vocab_size": fx.VOCAB}))
    emb = tmp_path / "emb.safetensors"
    save_file({"model.embed_tokens.weight": TARGET.embedding}, str(emb))
    proc = run_cli(str(root), "--config", str(cfg), "--embedding", str(emb), "--max-files", "4", "--json")
    assert proc.returncode == 1, proc.stderr  # broken, and the JSON report is still printed in full
    data = json.loads(proc.stdout)
    assert {"format", "files_total", "files_read", "findings", "summary", "files"} <= set(data)
    assert data["format"] == "specforge" and data["files_total"] == 6 and data["files_read"] == 4
    assert data["summary"]["verdict"] == "broken" and data["summary"]["target_hidden_size"] == 32
    codes = {f["code"] for f in data["findings"]}
    assert "aux_is_embedding" in codes
    assert all(set(f) == {"severity", "code", "message", "file"} for f in data["findings"])
    assert len(data["files"]) == 4 and len(data["files"][0]["aux_norms"]) == 3


def test_cli_text_output(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", "modelopt", n_files=2)
    proc = run_cli(str(root), "--target-hidden", "32")
    assert proc.returncode == 0, proc.stderr
    assert "ModelOpt" in proc.stdout and "verdict: ok" in proc.stdout


@pytest.mark.parametrize("extra", [[], ["--max-files", "0"]])
def test_cli_bad_input_exits_2(tmp_path: Path, extra: list[str]) -> None:
    folder = tmp_path / "missing" if not extra else fx.build_dump(tmp_path / "d", n_files=1)
    proc = run_cli(str(folder), *extra)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
