"""Equal training volumes are "the same volume", not "1.00x more data" (walk BJ, minor)."""

from __future__ import annotations

import pytest

from tests.fixtures import cli_in_process

DRAFT = "lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge"  # 1.4M, as its default reference


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "1.4M (published): the same volume."),
        (("--samples", "1400000"), "1.4M (published): the same volume."),
        (("--samples", "700000"), "2.0x less data."),
    ],
)
def test_training_volume_line(args: tuple[str, ...], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "overview", f"registry:{DRAFT}", *args)
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("- Training volume:"))
    assert said in line, line
    assert "1.00x" not in line, line
