"""A new user's CLI walk: `compare --target` as the Compare page's target field, `runs --group` with a typo,
`import` with nonsense numbers, and what `params` says of an MTP module and of a target with native MTP layers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.models import architectures
from tests.fixtures import TINY_DEEPSEEK, run_cli
from tests.hub_emulator import HubEmulator
from tests.test_target_as_draft_compare import LLAMA_DRAFT, LLAMA_TARGET, QWEN_DRAFT


def _folder(path: Path, config: object) -> Path:
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- compare --target


@pytest.mark.parametrize(
    ("extra", "published_target"),
    [([], LLAMA_TARGET), (["--target-all"], "qwen3-8b")],
    ids=["published keeps its own", "--target-all"],
)
def test_compare_target_is_your_drafts_target(tmp_path: Path, extra: list[str], published_target: str) -> None:
    """As the page's field: your draft is sized against --target; a published draft keeps the target it was
    trained for unless --target-all (before: `compare` had no --target, and argparse refused it)."""
    mine = _folder(tmp_path / "my-draft", QWEN_DRAFT)
    target = _folder(tmp_path / "qwen3-8b", architectures.known_target("Qwen/Qwen3-8B"))
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    proc = run_cli(
        "compare",
        str(mine),
        f"registry:{LLAMA_DRAFT}",
        "--target",
        str(target),
        "--format",
        "json",
        "--db",
        db,
        *extra,
    )
    assert proc.returncode == 0, proc.stderr
    own, published = json.loads(proc.stdout)
    assert own["target"] == "qwen3-8b" and own["draft_to_target"] is not None
    assert published["target"] == published_target
    kept = f"registry:{LLAMA_DRAFT} keeps the target it was trained for"
    assert (kept in proc.stderr) == (not extra), proc.stderr


def test_compare_target_all_needs_a_target() -> None:
    proc = run_cli("compare", f"registry:{LLAMA_DRAFT}", "--target-all")
    assert proc.returncode == 2 and proc.stderr.startswith("error: --target-all needs --target")


# --------------------------------------------------------------------------- runs --group, import numbers


def test_runs_of_an_unknown_group_is_an_error_naming_the_groups(tmp_path: Path) -> None:
    """`runs --group nosuch` printed "no runs stored" and exited 0, as if the store were empty."""
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    proc = run_cli("runs", "--group", "nosuch", "--db", db)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert not proc.stdout
    assert proc.stderr.startswith("error: unknown group 'nosuch'")
    assert "groups in the store: example-kimi-k2.5" in proc.stderr
    ok = run_cli("runs", "--group", "example-kimi-k2.5", "--db", db)
    assert ok.returncode == 0 and "example-kimi-k2.5" in ok.stdout


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--num-steps", "-3"),
        ("--num-steps", "0"),
        ("--num-steps", "65"),
        ("--topk", "0"),
        ("--num-draft-tokens", "-1"),
    ],
)
def test_import_refuses_nonsense_stated_numbers(tmp_path: Path, flag: str, value: str) -> None:
    """`import --num-steps -3` was stored as the run's num_steps; now one line and exit 2, nothing stored."""
    from tests.test_importers import vllm_record

    result = tmp_path / "result.json"
    result.write_text(json.dumps(vllm_record()), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    proc = run_cli("import", str(result), "--db", db, flag, value)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.startswith(f"error: {flag} must be a whole number from 1 to") and f"got {value}" in proc.stderr
    listed = run_cli("runs", "--no-examples", "--db", db)
    assert "no runs stored" in listed.stdout


# --------------------------------------------------------------------------- params: MTP wording


def test_params_says_why_an_mtp_module_has_no_serving_verdict(tmp_path: Path) -> None:
    """An MTP module with --target was told the rules need "an EAGLE-3 draft and its target (--target)"."""
    mtp = _folder(tmp_path / "mtp", {**TINY_DEEPSEEK, "architectures": ["DeepseekV3ForCausalLMNextN"]})
    target = _folder(tmp_path / "target", TINY_DEEPSEEK)
    proc = run_cli("params", str(mtp), "--target", str(target))
    assert proc.returncode == 0, proc.stderr
    line = next(s for s in proc.stdout.splitlines() if s.startswith("will it serve"))
    assert "(--target)" not in line, line
    assert "the engines' rules here are for EAGLE-3 drafts" in line
    assert "an MTP module is served by the target's own weights" in line


def test_a_target_with_native_mtp_is_not_its_own_published_draft(hub: HubEmulator) -> None:
    """The registry describes DeepSeek-V3's own MTP layers under deepseek-ai/DeepSeek-V3: the notice listed the
    target among its "published drafts"."""
    hub.add_model("deepseek-ai/DeepSeek-V3", architectures.known_target("deepseek-ai/DeepSeek-V3"))
    proc = run_cli("params", "deepseek-ai/DeepSeek-V3", "--json")
    assert proc.returncode == 0, proc.stderr
    notice = json.loads(proc.stdout)["target_notice"]
    assert notice["drafts"] == [] and notice["native_mtp"] is True
    assert "Published drafts for it: deepseek-ai/DeepSeek-V3" not in notice["note"]
    assert "its own MTP layers (native)" in notice["note"]
