"""Imported results a fresh walk brought: unusable values, a stated config over the file's own, and runs
imported at different concurrency compared as if alike."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from comparelib.analysis import speedup
from comparelib.errors import DataError
from comparelib.live.importers import import_file
from comparelib.live.store import Store
from tests.fixtures import sglang_record
from tests.test_importers import vllm_record


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield s
    s.close()


def _write(path: Path, record: dict) -> Path:
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


BAD_VALUES = [
    # (which tool, field, value, text the message names)
    (
        "vllm",
        "spec_decode_per_position_acceptance_rates",
        [0.8, None, "x"],
        "spec_decode_per_position_acceptance_rates",
    ),
    ("vllm", "spec_decode_per_position_acceptance_rates", [0.8, 1.4], "between 0 and 1"),
    ("vllm", "output_throughput", "fast", "output_throughput is 'fast'"),
    ("vllm", "output_throughput", None, "output_throughput is None"),
    ("vllm", "output_throughput", -5.0, "non-negative"),
    ("vllm", "spec_decode_acceptance_length", -1.0, "at least 1"),
    ("sglang", "accept_length", 0.5, "at least 1"),
    ("sglang", "server_info", "oops", "server_info is 'oops'"),
]


@pytest.mark.parametrize(("tool", "field", "value", "says"), BAD_VALUES)
def test_an_unusable_value_imports_nothing_and_names_the_field(
    store: Store, tmp_path: Path, tool: str, field: str, value: object, says: str
) -> None:
    """A bad per-position rate was a traceback after the run was written (left 'running'); "fast", negative
    throughput and an impossible acceptance were stored as measured."""
    record = vllm_record() if tool == "vllm" else sglang_record()
    record[field] = value
    with pytest.raises(DataError) as err:
        import_file(store, _write(tmp_path / "r.json", record))
    assert says in str(err.value), str(err.value)
    assert store.runs() == []  # nothing written, not even an unfinished run


def test_a_stated_config_fills_gaps_and_never_makes_a_baseline_speculative(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    base = vllm_record(spec=False, detailed=False)
    path.write_text(json.dumps(base) + "\n" + json.dumps(vllm_record()), encoding="utf-8")
    ids = import_file(store, path, spec={"speculative_algorithm": "EAGLE3", "num_steps": 7, "draft_model": "my/d"})
    runs = {r.id: r for r in store.runs()}
    baseline, spec = runs[ids[0]], runs[ids[1]]
    assert baseline.is_baseline and baseline.speculative_algorithm is None and baseline.num_steps is None
    assert spec.speculative_algorithm == "EAGLE3" and spec.draft_model == "my/d"  # gaps in vLLM's record: filled
    assert spec.num_steps == len(vllm_record()["spec_decode_per_position_acceptance_rates"])  # the file's own k


def test_imported_runs_at_different_concurrency_are_not_compared(store: Store, tmp_path: Path) -> None:
    """sglang.bench_serving saves max_concurrency: a baseline at 1 against speculative runs at 32 gave 22x."""
    base = sglang_record(accept=None)
    base["server_info"] = {**base.get("server_info", {}), "speculative_algorithm": None}
    base.update(max_concurrency=1, output_throughput=150.0)
    spec = sglang_record()
    spec.update(max_concurrency=32, output_throughput=3300.0)
    ids = [import_file(store, _write(tmp_path / f"{i}.json", r), group="g")[0] for i, r in enumerate((base, spec))]
    runs = store.runs(group="g")
    b, s = (next(r for r in runs if r.id == i) for i in ids)
    assert b.is_baseline and not s.is_baseline
    ratio, why = speedup.speedup_against(s, b)
    assert ratio is None and why is not None and "different concurrency: 32 against 1" in why, why
    assert speedup.best_pair(runs) is None


def test_an_imported_runs_setting_key_carries_its_batch_size(store: Store, tmp_path: Path) -> None:
    """Imported runs state max_concurrency only: their setting key had no bs=, so a run at 32 was set against
    published results at batch 1 on Acceptance vs data and Overview."""
    from comparelib.models.registry import run_setting

    spec = sglang_record()
    spec.update(max_concurrency=32)
    [rid] = import_file(store, _write(tmp_path / "s.json", spec), group="g")
    [run] = [r for r in store.runs(group="g") if r.id == rid]
    key, _ = run_setting(run)
    assert "bs=32" in key.split(","), key
