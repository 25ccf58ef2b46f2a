"""Walk AD 3, through Compare, ``params`` and the page: a draft folder whose safetensors header holds q_proj and
o_proj of another shape than its config builds (otherlab/q3-8b-eagle3) gets the lint's checkpoint-shape error, "at
load" rows and no config that serves it; runs served with a checkpoint the loaders only cut are no conflict.
The engines' loaders themselves: tests/test_walk_ad_checkpoint_shapes.py."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from comparelib.models import comparison
from comparelib.models import serving as serving_model
from tests.fixtures import cli_in_process, eagle3_tensors, routed_compare, stored_run
from tests.hub_emulator import _safetensors_header
from tests.test_walk_ad_checkpoint_shapes import OPROJ, QPROJ, TARGET, _config


def _folder(tmp_path: Path, tensors: dict[str, tuple[tuple[int, ...], str]]) -> str:
    path = tmp_path / "q3-8b-eagle3"
    path.mkdir()
    (path / "config.json").write_text(json.dumps(_config()))
    (path / "README.md").write_text(f"---\nbase_model: {TARGET}\n---\n# other\n")
    head, data = _safetensors_header(tensors)
    with open(path / "model.safetensors", "wb") as f:  # the header and a sparse data section of its true size
        f.write(head)
        f.truncate(len(head) + data)
    assert os.path.getsize(path / "model.safetensors") == len(head) + data
    return str(path)


def _walk_tensors() -> dict[str, tuple[tuple[int, ...], str]]:
    return eagle3_tensors(4096, 12288, 151936, 32000, kv_dim=1024)  # q_proj 8192 wide, o_proj 8192 in


def _right_tensors() -> dict[str, tuple[tuple[int, ...], str]]:
    t = _walk_tensors()
    t[QPROJ], t[OPROJ] = ((4096, 8192), "BF16"), ((4096, 4096), "BF16")
    return t


@pytest.mark.parametrize(("tensors", "fails"), [(_walk_tensors, True), (_right_tensors, False)])
def test_compare_entry_lint_headline_and_rows(tmp_path: Path, tensors: Any, fails: bool) -> None:
    entry = comparison.load_entry(_folder(tmp_path, tensors()), target=TARGET)
    assert entry.checkpoint is not None and entry.checkpoint.matches_config is not fails
    head = comparison.lint_headline(entry)
    assert head.startswith("Act on this first [error, checkpoint-shape]") is fails, head
    assert ("Nothing to act on" in head) is not fails, head
    statuses = {v.label: v.status for v in entry.serving}
    assert set(statuses.values()) == ({"fails"} if fails else {"ok"}), statuses
    adv = serving_model.advice(**entry.serving_args)
    assert adv.possible is not fails


def test_params_command_says_it(tmp_path: Path, capsys: Any) -> None:
    done = cli_in_process(capsys, "params", _folder(tmp_path, _walk_tensors()), "--target", TARGET)
    out = done.stdout
    assert f"shape {QPROJ}: config [4096, 8192], checkpoint [8192, 8192]" in out, out
    (error,) = [line for line in out.splitlines() if line.startswith("[error] checkpoint-shape: The checkpoint's ")]
    assert f"{QPROJ} is [8192, 8192] but the config builds [4096, 8192]" in error, error
    assert f"{OPROJ} is [4096, 8192] but the config builds [4096, 4096]" in error, error
    serve = [line for line in out.splitlines() if line.startswith("  SGLang 0.5.23: ")]
    assert serve and serve[0].startswith("  SGLang 0.5.23: fails: at load: "), serve
    assert f"{QPROJ} shape [8192, 8192] vs config [4096, 8192]" in serve[0], serve
    assert "will it serve: SGLang 0.5.23 does not load this checkpoint as trained" in out, out


def test_compare_page_offers_no_config_for_it(tmp_path: Path) -> None:
    at = routed_compare(_folder(tmp_path, _walk_tensors()), target=TARGET)
    markdown = [str(m.value) for m in at.markdown]
    assert not [m for m in markdown if m.startswith("Config that serves the trained blocks")], markdown
    assert [m for m in markdown if m.startswith("No config serves the trained blocks")], markdown
    errors = [str(e.value) for e in at.error]
    assert [e for e in errors if "[error, checkpoint-shape]" in e], errors
    frames = [d.value for d in at.dataframe]
    rows = next(f for f in frames if "starts?" in f.columns).set_index("engine")
    assert all(s.startswith("no: at load: ") for s in rows["starts?"]), rows["starts?"].tolist()


@pytest.mark.parametrize(("cut", "conflict"), [(True, False), (False, True)])
def test_runs_served_with_a_cut_checkpoint_are_no_conflict_with_the_rows(
    tmp_path: Path, cut: bool, conflict: bool
) -> None:
    """A loader that cuts the checkpoint without an error starts the engine: a run served with it is what the rows
    say (a draft that is not the one trained), not a sign that the server loaded another config. A loader that
    raises does not start: a run served with the draft then is."""
    t = _walk_tensors()
    if not cut:
        t = _right_tensors()
        t["norm.weight"] = ((2048,), "BF16")  # the default loader asserts on it
    folder = _folder(tmp_path, t)
    entry = comparison.load_entry(folder, target=TARGET)
    assert {v.status for v in entry.serving} == {"fails"}
    assert all(v.load_cut is cut for v in entry.serving), [v.load_cut for v in entry.serving]
    run = stored_run(3, 3, 120.0, 1.4, engine="sglang", draft=folder, model=TARGET)
    said = comparison.served_against_rules(entry, [run])
    assert bool(said) is conflict, said
