"""Dump audit, as a tester walked it: mixed hidden sizes, the verdict the page and CLI lead with, file
statuses, a speculators file with a layer missing, and an empty file's reason. Walk L: file names in
natural order (hs_2 before hs_10), an aux width fix that says what the width means, and the page showing
that fix whole."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch

from comparelib.audit.dumps import DumpReport, audit_dumps, discover_dump_files, iter_samples, natural_key
from tests import dump_fixtures as fx
from tests.dump_fixtures import one_torch_thread  # noqa: F401 - autouse: one torch thread per module
from tests.fixtures import page_app
from tests.fixtures import run_cli as _run_cli

N = fx.N_LAYERS
PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "audit.py")


def run_cli(*args: str) -> Any:
    return _run_cli("audit-dump", *args, env={"OMP_NUM_THREADS": "1"})


def mixed_widths(root: Path, wide: tuple[int, ...] = (3, 4), n_files: int = 5) -> Path:
    """A SpecForge dump whose files ``wide`` come from a target with hidden size 48, the rest from one at 32."""
    fx.build_dump(root, n_files=n_files)
    other = fx.build_dump(root.parent / f"{root.name}-48", n_files=n_files, target=fx.TinyTarget(hidden=48, seed=3))
    for i in wide:
        name = Path("rows_0-2000") / f"data_{i}.ckpt"
        shutil.copy(other / name, root / name)
    return root


def errors(report: DumpReport) -> set[str]:
    return {f.code for f in report.findings if f.severity == "error"}


# --------------------------------------------------------------------------- 1. two hidden sizes in one dump


# (case, audit kwargs, error codes)
MIXED_CASES: list[tuple[str, dict[str, Any], set[str]]] = [
    ("no target given", {}, {"hidden_size_mixed"}),
    ("target hidden size given", {"target_hidden_size": 32}, {"hidden_size", "aux_width"}),
    ("draft config given", {"draft_config": {"target_hidden_size": 32}}, {"hidden_size", "aux_width"}),
]


@pytest.mark.parametrize(("case", "kwargs", "codes"), MIXED_CASES, ids=[c[0] for c in MIXED_CASES])
def test_files_of_two_hidden_sizes_are_broken(tmp_path: Path, case: str, kwargs: dict[str, Any], codes: set[str]):
    report = audit_dumps(mixed_widths(tmp_path / "d"), **kwargs)
    assert errors(report) == codes, [(f.code, f.message) for f in report.findings]
    assert report.verdict == "broken"
    assert report.summary["hidden_size"] == [32, 48]
    narrow = [r["aux_norms"] for r in report.files if r["hidden"] == 32]
    if kwargs:  # norms of the files at the target's width only: a 48-wide file's norms are another model's
        assert report.summary["mean_aux_norms"] == pytest.approx([sum(n[i] for n in narrow) / 3 for i in range(3)])
    else:  # no width to trust: no mean over two targets' states
        assert report.summary["mean_aux_norms"] is None


def test_the_mixed_size_finding_says_which_sizes_which_files_and_what_to_do(tmp_path: Path) -> None:
    report = audit_dumps(mixed_widths(tmp_path / "d"))
    (finding,) = [f for f in report.findings if f.code == "hidden_size_mixed"]
    msg = finding.message
    assert "3 files at 32" in msg and "2 files at 48" in msg
    assert "rows_0-2000/data_3.ckpt" in msg and "rows_0-2000/data_4.ckpt" in msg and "data_0" not in msg
    assert "--config" in msg and "re-capture" in msg
    assert "sampled" not in msg  # every file was read
    # 9 of 10 files: at least one of the two 48-wide files is drawn, and the finding says it saw a sample
    part = audit_dumps(mixed_widths(tmp_path / "s", wide=(0, 1), n_files=10), max_files=9)
    (finding,) = [f for f in part.findings if f.code == "hidden_size_mixed"]
    assert "among the files sampled" in finding.message


# (case, files at 48 of n_files (the rest at 32), n_files, status per file, each marked file's reason after
# "hidden size H, ", words of the finding)
MIXED_TABLE_CASES: list[tuple[str, tuple[int, ...], int, list[str], str, str]] = [
    (
        "2 of 5 at 48",
        (3, 4),
        5,
        ["ok", "ok", "ok", "error", "error"],
        "most files (3 of 5) are at 32",
        "3 files at 32, 2 files at 48 (not at 32: rows_0-2000/data_3.ckpt, rows_0-2000/data_4.ckpt)",
    ),
    (
        "4 of 5 at 48",
        (0, 1, 2, 3),
        5,
        ["ok", "ok", "ok", "ok", "error"],
        "most files (4 of 5) are at 48",
        "4 files at 48, 1 file at 32 (not at 48: rows_0-2000/data_4.ckpt)",
    ),
    (  # the 48-wide files are read first: the tie must not make 48 the majority by order
        "tie, 48 read first",
        (0, 1),
        4,
        ["error", "error", "error", "error"],
        "no one size holds most files (2 files at 32, 2 files at 48)",
        "2 files at 32, 2 files at 48 (no one size holds most files)",
    ),
]


@pytest.mark.parametrize(
    ("case", "wide", "n_files", "statuses", "why", "words"), MIXED_TABLE_CASES, ids=[c[0] for c in MIXED_TABLE_CASES]
)
def test_the_file_table_marks_the_files_the_mixed_size_finding_names(
    tmp_path: Path, case: str, wide: tuple[int, ...], n_files: int, statuses: list[str], why: str, words: str
) -> None:
    report = audit_dumps(mixed_widths(tmp_path / "d", wide=wide, n_files=n_files))
    (finding,) = [f for f in report.findings if f.code == "hidden_size_mixed"]
    assert words in finding.message, finding.message
    assert [r["status"] for r in report.files] == statuses
    for row in report.files:
        expected = None if row["status"] == "ok" else f"hidden_size_mixed: hidden size {row['hidden']}, {why}"
        assert row["error"] == expected, row["name"]


def test_cli_marks_the_minority_files_and_exits_1(tmp_path: Path) -> None:
    proc = run_cli(str(mixed_widths(tmp_path / "d")))
    assert proc.returncode == 1, proc.stderr
    rows = {line.split()[0]: line.split()[1] for line in proc.stdout.splitlines() if line.startswith("rows_")}
    assert rows == {f"rows_0-2000/data_{i}.ckpt": "error" if i in (3, 4) else "ok" for i in range(5)}


def test_one_hidden_size_is_not_flagged(tmp_path: Path) -> None:
    report = audit_dumps(fx.build_dump(tmp_path / "d", n_files=4, target=fx.TinyTarget(hidden=48, seed=3)))
    assert "hidden_size_mixed" not in report.codes() and report.verdict == "ok"
    assert report.summary["hidden_size"] == 48 and len(report.summary["mean_aux_norms"]) == 3


# --------------------------------------------------------------------------- 2. one verdict, page and CLI


def batch_of_two(i: int, rec: dict[str, Any]) -> None:
    rec["aux_hidden_state"] = rec["aux_hidden_state"].repeat(2, 1, 1)


# (case, layout, build kwargs, verdict, headline, page banner, CLI exit code)
VERDICT_CASES: list[tuple[str, str, dict[str, Any], str, str, str, int]] = [
    ("clean, two notes", "speculators", {}, "ok", "verdict: ok - no problems found (2 notes)", "success", 0),
    (
        "a warning",
        "specforge",
        {"mutate": fx.odd_dtypes},
        "suspect",
        "verdict: suspect - 1 warning, no errors",
        "warning",
        0,
    ),
    ("an error", "specforge", {"mutate": batch_of_two}, "broken", "verdict: broken - 1 error", "error", 1),
]


@pytest.mark.parametrize(
    ("case", "layout", "build", "verdict", "headline", "banner", "code"),
    VERDICT_CASES,
    ids=[c[0] for c in VERDICT_CASES],
)
def test_page_and_cli_lead_with_the_same_verdict(
    tmp_path: Path,
    case: str,
    layout: str,
    build: dict[str, Any],
    verdict: str,
    headline: str,
    banner: str,
    code: int,
) -> None:
    root = fx.build_dump(tmp_path / "d", layout, n_files=3, **build)
    report = audit_dumps(root)
    assert report.verdict == verdict and report.headline().startswith(headline)
    proc = run_cli(str(root))
    assert proc.returncode == code, proc.stderr
    assert proc.stdout.rstrip().splitlines()[-1] == report.headline()
    at = page_app(PAGE, timeout=60).run()
    at.text_input(key="dumps_folder").set_value(str(root))
    at = at.button(key="dumps_run").click().run()
    assert not at.exception, at.exception
    shown = {kind: [e.value for e in getattr(at, kind)] for kind in ("success", "warning", "error")}
    assert shown[banner] == [report.headline()], shown  # the one banner, with the CLI's words
    assert all(not v for k, v in shown.items() if k != banner), shown  # notes alone are no warning


# --------------------------------------------------------------------------- 4b. a file's status


# (case, build kwargs, expected status per file index, code in file 0's error column)
STATUS_CASES: list[tuple[str, dict[str, Any], list[str], str | None]] = [
    ("clean", {}, ["ok", "ok", "ok"], None),
    ("batch of two", {"mutate": batch_of_two}, ["error", "error", "error"], "bad_shape"),
    ("NaN in file 0", {"mutate": fx.nan_in_first}, ["error", "ok", "ok"], "nan"),
    ("odd dtypes", {"mutate": fx.odd_dtypes}, ["warning", "warning", "warning"], None),
    ("last position supervised (info)", {"mutate": fx.last_position_supervised}, ["ok", "ok", "ok"], None),
]


@pytest.mark.parametrize(("case", "build", "statuses", "code"), STATUS_CASES, ids=[c[0] for c in STATUS_CASES])
def test_a_files_status_is_its_worst_finding(
    tmp_path: Path, case: str, build: dict[str, Any], statuses: list[str], code: str | None
) -> None:
    clean = audit_dumps(fx.build_dump(tmp_path / "clean", n_files=3))
    report = audit_dumps(fx.build_dump(tmp_path / "d", n_files=3, **build))
    assert [r["status"] for r in report.files] == statuses
    first = report.files[0]["error"]
    if code is None:
        assert first is None
    else:
        assert first is not None and first.startswith(f"{code}: ")
    if case == "NaN in file 0":  # a file with an error is still read: its tokens and norms count
        assert report.summary["tokens"] == clean.summary["tokens"] and report.files_read == 3
        assert report.files[0]["aux_norms"] is not None


def test_cli_rows_show_the_status(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=2, mutate=fx.nan_in_first)
    proc = run_cli(str(root))
    assert proc.returncode == 1, proc.stderr  # an error finding: the dump is broken
    rows = {line.split()[0]: line.split()[1] for line in proc.stdout.splitlines() if line.startswith("rows_")}
    assert rows == {"rows_0-2000/data_0.ckpt": "error", "rows_0-2000/data_1.ckpt": "ok"}


# --------------------------------------------------------------------------- 4a. speculators layer count


def keep_three_layers(i: int, rec: dict[str, Any]) -> None:
    """The three aux layers stay, the final layer boundary N goes: the capture listed only the aux ids."""
    rec["hidden_states"] = rec["hidden_states"][:, :3].contiguous()


# (case, aux ids build_dump stacks before the final layer, mutator, words the message must hold)
LAYER_CASES: list[tuple[str, list[int], Any, tuple[str, ...]]] = [
    ("final missing", [2, N // 2, N - 3], keep_three_layers, ("[L, 3, 32]", "writes 4", "missing", "the final")),
    ("one extra", [2, 4, N // 2, N - 3], None, ("[L, 5, 32]", "writes 4", "1 extra layer", "4 aux layers")),
]


@pytest.mark.parametrize(("case", "aux", "mutate", "words"), LAYER_CASES, ids=[c[0] for c in LAYER_CASES])
def test_a_speculators_file_with_the_wrong_layer_count_says_what_is_wrong(
    tmp_path: Path, case: str, aux: list[int], mutate: Any, words: tuple[str, ...]
) -> None:
    root = fx.build_dump(tmp_path / "d", "speculators", n_files=2, aux=aux, mutate=mutate)
    report = audit_dumps(root)
    (finding,) = [f for f in report.findings if f.code == "aux_width"]
    for word in (*words, "eagle_aux_hidden_state_layer_ids"):
        assert word in finding.message, finding.message
    assert "layers' worth" not in finding.message  # not the width arithmetic that miscounted the aux layers
    assert report.verdict == "broken" and report.files[0]["hidden"] == 32


def test_a_width_mismatch_in_a_four_layer_file_keeps_the_width_message(tmp_path: Path) -> None:
    report = audit_dumps(fx.build_dump(tmp_path / "d", "speculators", n_files=2), target_hidden_size=64)
    (finding,) = [f for f in report.findings if f.code == "aux_width"]
    assert "3 x the target hidden size 64 = 192" in finding.message
    assert "three layers of 32, this file's own final hidden state width" in finding.message


# --------------------------------------------------------------------------- 4c. an empty file's reason


def test_an_empty_file_is_skipped_with_a_reason_a_person_can_read(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=2)
    (root / "rows_0-2000" / "data_5.ckpt").write_bytes(b"")
    skipped: list[str] = []
    samples = list(iter_samples(root, skipped=skipped))
    assert [s.name for s in samples] == ["rows_0-2000/data_0.ckpt", "rows_0-2000/data_1.ckpt"]
    (line,) = skipped
    assert line.startswith("rows_0-2000/data_5.ckpt: unreadable") and "empty or truncated" in line
    assert "()" not in line
    audited = audit_dumps(root)  # the audit words the same file the same way
    assert "empty or truncated" in next(r["error"] for r in audited.files if r["name"].endswith("data_5.ckpt"))


# --------------------------------------------------------------------------- walk L: 1. natural order

BAD = (2, 10)  # the files with a wrong aux width: text order put hs_10 before hs_2


def one_aux_layer(i: int, rec: dict[str, Any]) -> None:
    """Files BAD hold one layer where three belong (the aux width is the hidden size)."""
    if i not in BAD:
        return
    if "hidden_states" in rec and "token_ids" in rec:  # speculators: [L, 4, H] -> low + final only
        rec["hidden_states"] = rec["hidden_states"][:, 2:].contiguous()
        return
    key = "aux_hidden_states" if "aux_hidden_states" in rec else "aux_hidden_state"
    rec[key] = rec[key][..., : fx.HIDDEN].contiguous()


def walk_l_dump(root: Path, layout: str, n_files: int = 13) -> Path:
    """``n_files`` files, BAD ones with a wrong aux width; "pt" is walk L's folder of hs_<i>.pt ModelOpt files."""
    if layout != "pt":
        return fx.build_dump(root, layout, n_files=n_files, mutate=one_aux_layer)
    raw = fx.build_dump(root.parent / f"{root.name}-raw", "modelopt", n_files=n_files, mutate=one_aux_layer)
    root.mkdir(parents=True)
    for i in range(n_files):  # build_dump names file i by the sha256 of its conversation id (seed 1)
        rec = torch.load(raw / f"{hashlib.sha256(f'conv-1-{i}'.encode()).hexdigest()}.pt", weights_only=True)
        rec["conversation_id"] = f"hs_{i}"
        torch.save(rec, root / f"hs_{i}.pt")
    return root


# (layout, name of file i)
ORDER_CASES: list[tuple[str, str]] = [
    ("pt", "hs_{i}.pt"),
    ("speculators", "hs_{i}.safetensors"),
    ("specforge", "rows_0-2000/data_{i}.ckpt"),
]


@pytest.mark.parametrize(("layout", "pattern"), ORDER_CASES, ids=[c[0] for c in ORDER_CASES])
def test_files_are_listed_in_natural_order(tmp_path: Path, layout: str, pattern: str) -> None:
    root = walk_l_dump(tmp_path / "d", layout)
    names = [pattern.format(i=i) for i in range(13)]
    (found,) = discover_dump_files(root).values()
    assert [p.relative_to(root).as_posix() for p in found] == names
    report = audit_dumps(root, max_files=13)
    assert [r["name"] for r in report.files] == names
    assert [r["status"] for r in report.files] == ["error" if i in BAD else "ok" for i in range(13)]
    (finding,) = [f for f in report.findings if f.code == "aux_width"]
    bad = [pattern.format(i=i) for i in BAD]  # the first bad file is file 2, and the list runs 2, 10
    assert finding.message.endswith(f"[{bad[0]}; this check fired in 2 of 13 sampled files: {bad[0]}, {bad[1]}]")
    for seed in range(3):  # a sample is listed in the same order
        sample = [r["name"] for r in audit_dumps(root, max_files=5, seed=seed).files]
        assert sample == sorted(sample, key=lambda n: names.index(n))
    assert [s.name for s in iter_samples(root) if s.name not in bad] == [n for n in names if n not in bad]


def test_cli_lists_files_in_natural_order(tmp_path: Path) -> None:
    proc = run_cli(str(walk_l_dump(tmp_path / "d", "pt")), "--max-files", "13")
    assert proc.returncode == 1, proc.stderr
    rows = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("hs_")]
    assert rows == [f"hs_{i}.pt" for i in range(13)]
    (line,) = [line for line in proc.stdout.splitlines() if line.startswith("[error] aux_width")]
    assert line.endswith("[hs_2.pt; this check fired in 2 of 13 sampled files: hs_2.pt, hs_10.pt]")


def test_the_mixed_size_finding_names_files_in_natural_order(tmp_path: Path) -> None:
    report = audit_dumps(mixed_widths(tmp_path / "d", wide=(2, 10), n_files=12), max_files=12)
    (finding,) = [f for f in report.findings if f.code == "hidden_size_mixed"]
    assert "(not at 32: rows_0-2000/data_2.ckpt, rows_0-2000/data_10.ckpt)" in finding.message


# (names in, natural order out)
NATURAL_CASES: list[tuple[list[str], list[str]]] = [
    (["hs_10.pt", "hs_2.pt", "hs_1.pt"], ["hs_1.pt", "hs_2.pt", "hs_10.pt"]),
    (
        ["rows_10000-12000/data_1.ckpt", "rows_2000-4000/data_0.ckpt", "rows_0-2000/data_11.ckpt"],
        ["rows_0-2000/data_11.ckpt", "rows_2000-4000/data_0.ckpt", "rows_10000-12000/data_1.ckpt"],
    ),
    (["hs_1.pt", "hs_01.pt", "hs.pt", "hs_1_2.pt"], ["hs.pt", "hs_01.pt", "hs_1.pt", "hs_1_2.pt"]),
    (["b.pt", "a10.pt", "a9.pt", "10.pt"], ["10.pt", "a9.pt", "a10.pt", "b.pt"]),
]


@pytest.mark.parametrize(("names", "ordered"), NATURAL_CASES)
def test_natural_key(names: list[str], ordered: list[str]) -> None:
    assert sorted(names, key=natural_key) == ordered
    assert sorted((Path("/x") / n for n in names), key=natural_key) == [Path("/x") / n for n in ordered]


# --------------------------------------------------------------------------- walk L: 2. the aux width fix


def aux_of_width(width: int) -> Any:
    def mutate(i: int, rec: dict[str, Any]) -> None:
        aux = rec["aux_hidden_state"]
        g = torch.Generator().manual_seed(i)
        rec["aux_hidden_state"] = torch.randn((*aux.shape[:-1], width), generator=g).to(aux.dtype)

    return mutate


CONFIG_32 = {"target_hidden_size": 32, "eagle_aux_hidden_state_layer_ids": [1, 5, 8]}
NO_IDS = "eagle_aux_hidden_state_layer_ids in its config.json"
# (case, build kwargs, audit kwargs, words the aux_width message must hold)
AUX_WIDTH_CASES: list[tuple[str, dict[str, Any], dict[str, Any], tuple[str, ...]]] = [
    (
        "one layer, no config",
        {"aux": [N // 2]},
        {},
        ("32 wide", "3 x this file's final hidden state width 32 = 96", "32 is one layer's width", NO_IDS),
    ),
    (
        "one layer, config names the ids",
        {"aux": [N // 2]},
        {"draft_config": CONFIG_32},
        ("3 x the target hidden size 32 = 96", "one layer's width", "config names ([1, 5, 8])", "Re-generate"),
    ),
    ("two layers", {"aux": [2, N // 2]}, {}, ("64 wide", "64 is two layers' width", "three", NO_IDS)),
    ("four layers", {"aux": [2, 4, N // 2, N - 3]}, {}, ("128 is four layers' width", "1 more than the three")),
    (
        "another target's three layers",
        {"target": fx.TinyTarget(hidden=48, seed=3)},
        {"draft_config": CONFIG_32},
        ("144 is three layers of 48, this file's own", "hidden size 48, not the draft's target (32)", "Re-capture"),
    ),
    (
        "three layers of another width",
        {"mutate": aux_of_width(120)},
        {"target_hidden_size": 32},
        ("120 is not a whole number of 32-wide layers; it is 3 x 40", "hidden size 40", "re-capture it from"),
    ),
    (
        "no whole layers",
        {"mutate": aux_of_width(100)},
        {"target_hidden_size": 32},
        ("100 is not a whole number of 32-wide layers, nor three equal layers", "check how it was written"),
    ),
]


@pytest.mark.parametrize(("case", "build", "kwargs", "words"), AUX_WIDTH_CASES, ids=[c[0] for c in AUX_WIDTH_CASES])
def test_the_aux_width_fix_says_what_the_width_means(
    tmp_path: Path, case: str, build: dict[str, Any], kwargs: dict[str, Any], words: tuple[str, ...]
) -> None:
    report = audit_dumps(fx.build_dump(tmp_path / "d", n_files=2, **build), **kwargs)
    (finding,) = [f for f in report.findings if f.code == "aux_width"]
    for word in words:
        assert word in finding.message, finding.message
    assert "layers' worth" not in finding.message
    first = "hidden_size" if "hidden_size" in report.codes() else "aux_width"  # a file's first error is its reason
    assert report.files[0]["error"].startswith(f"{first}: ")


def test_the_aux_width_fix_for_a_llama_3_3_70b_dump(tmp_path: Path) -> None:
    """Walk L's numbers: a 70B target (hidden 8192) whose dump holds one layer in the aux slot."""
    ids = torch.arange(6)
    state = torch.randn(6, 8192, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
    rec = {"input_ids": ids, "hidden_states": state, "aux_hidden_states": state.clone(), "conversation_id": "hs_3"}
    torch.save(rec, tmp_path / "hs_3.pt")
    config = {"target_hidden_size": 8192, "eagle_aux_hidden_state_layer_ids": [1, 39, 76]}
    (finding,) = [f for f in audit_dumps(tmp_path, draft_config=config).findings if f.code == "aux_width"]
    assert finding.message.startswith(
        "aux hidden state is 8192 wide, but an EAGLE-3 draft reads 3 x the target hidden size 8192 = 24576"
    )
    assert "8192 is one layer's width" in finding.message
    assert "Re-generate this file with the three aux layer ids your draft's config names ([1, 39, 76])" in (
        finding.message
    )


# --------------------------------------------------------------------------- walk L: 3. the page shows it whole


def test_the_page_shows_the_aux_width_fix_whole_and_files_in_natural_order(tmp_path: Path) -> None:
    root = walk_l_dump(tmp_path / "d", "pt")
    report = audit_dumps(root, max_files=13)
    (finding,) = [f for f in report.findings if f.code == "aux_width"]
    at = page_app(PAGE, timeout=60).run()
    at.text_input(key="dumps_folder").set_value(str(root))
    at.number_input(key="dumps_max_files").set_value(13)
    at = at.button(key="dumps_run").click().run()
    assert not at.exception, at.exception
    texts = [t.value for t in at.text]  # st.text wraps; a dataframe cell cuts the line at its column width
    assert any(finding.message in t for t in texts), texts
    assert "[error] aux_width: " + finding.message in texts  # the CLI's line, word for word
    files = next(d.value for d in at.dataframe if "name" in d.value.columns)
    assert list(files["name"]) == [f"hs_{i}.pt" for i in range(13)]


# --------------------------------------------------------------------------- walk R: a long id is cut visibly

ID_CASES: list[tuple[str, str]] = [
    ("short-id", "'short-id'"),
    ("a" * 64, "'" + "a" * 40 + "…'"),  # a sha256 hex id: cut, and the cut shows
]


@pytest.mark.parametrize(("cid", "shown"), ID_CASES, ids=["short", "sha256"])
def test_a_mismatched_conversation_id_is_cut_with_an_ellipsis(tmp_path: Path, cid: str, shown: str) -> None:
    ids = torch.arange(4)
    state = torch.zeros(4, 16)
    rec = {"input_ids": ids, "hidden_states": state, "aux_hidden_states": torch.zeros(4, 48), "conversation_id": cid}
    torch.save(rec, tmp_path / "hs_0.pt")
    (finding,) = [f for f in audit_dumps(tmp_path).findings if f.code == "conversation_id"]
    assert f"conversation_id {shown} does not match" in finding.message, finding.message
