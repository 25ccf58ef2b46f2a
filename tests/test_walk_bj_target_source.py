"""A published draft whose config names no target: its target is the registry's, and said so (walk BJ, 5).

lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge pasted as your draft read "target
`Qwen/Qwen3-Coder-30B-A3B-Instruct` (named by the draft)" on Overview, where its config names no target and
`params --json` gave ``target_from: "published"``: the registry's entry named it.
"""

from __future__ import annotations

import json

import pytest

from tests.fixtures import cli_in_process, page_app, page_text

DRAFT = "lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge"
TARGET = "Qwen/Qwen3-Coder-30B-A3B-Instruct"
SAID = f"target `{TARGET}` (the registry's entry for this published draft)"


def test_cli_overview_says_the_target_is_the_registrys(capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "overview", f"registry:{DRAFT}")
    assert done.returncode == 0, done.stderr
    assert SAID in done.stdout, done.stdout
    assert "named by the draft" not in done.stdout, done.stdout
    as_json = cli_in_process(capsys, "overview", f"registry:{DRAFT}", "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert "the registry's entry for this published draft" in json.dumps(json.loads(as_json.stdout)), as_json.stdout


def test_overview_page_says_the_target_is_the_registrys() -> None:
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = f"registry:{DRAFT}"
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert SAID in text, text
