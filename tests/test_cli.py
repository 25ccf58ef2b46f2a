"""The CLI's contract: bad input is one line on stderr and exit code 2; findings a script must stop on, 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests import dump_fixtures as fx
from tests.dump_fixtures import one_torch_thread  # noqa: F401 - autouse: one torch thread per module
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


# --------------------------------------------------------------------------- audit-dump: findings vs input

# (case, dump layout, build_dump kwargs, extra args, exit code): 1 is a broken dump, 2 input it cannot use
AUDIT_DUMP_EXITS: list[tuple[str, str, dict[str, Any], list[str], int]] = [
    ("ok", "speculators", {}, [], 0),
    ("suspect (a warning)", "specforge", {"mutate": fx.odd_dtypes}, [], 0),
    ("broken (NaN)", "specforge", {"mutate": fx.nan_in_first}, [], 1),
    ("broken, --json", "specforge", {"mutate": fx.nan_in_first}, ["--json"], 1),
    ("ok, --json", "speculators", {}, ["--json"], 0),
    ("unusable input", "specforge", {}, ["--max-files", "0"], 2),
]


@pytest.mark.parametrize(
    ("case", "layout", "build", "extra", "code"), AUDIT_DUMP_EXITS, ids=[c[0] for c in AUDIT_DUMP_EXITS]
)
def test_audit_dump_exit_code_says_whether_the_dump_is_broken(
    tmp_path: Path, case: str, layout: str, build: dict[str, Any], extra: list[str], code: int
) -> None:
    root = fx.build_dump(tmp_path / "d", layout, n_files=2, **build)
    proc = run_cli("audit-dump", str(root), *extra, env={"OMP_NUM_THREADS": "1"})
    assert proc.returncode == code, (proc.stdout[-500:], proc.stderr)
    if code == 2:
        assert proc.stderr.startswith("error:") and not proc.stdout
    elif "--json" in extra:  # the report is printed whatever the verdict: a script reads it after the code
        assert json.loads(proc.stdout)["verdict"] == ("broken" if code else "ok")
    else:
        assert proc.stdout.rstrip().splitlines()[-1].startswith("verdict: ")


def test_audit_dump_help_documents_the_exit_codes() -> None:
    proc = run_cli("audit-dump", "--help")
    assert proc.returncode == 0
    epilog = proc.stdout[proc.stdout.index("exit status:") :]
    for line in ("0  verdict ok or suspect", "1  verdict broken", "2  unusable input"):
        assert line in epilog, epilog
