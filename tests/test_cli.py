"""The CLI's contract: bad input is one line on stderr and exit code 2."""

from __future__ import annotations

from tests.fixtures import run_cli


def test_unknown_command_exits_2_with_one_line() -> None:
    proc = run_cli("no-such-command")
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error:")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert "specdraft compare" in proc.stdout
