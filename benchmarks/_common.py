"""Helpers shared by the benchmark scripts: peak memory of a fresh child process."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def peak_rss_kb() -> int:
    """This process's own peak RSS. VmHWM, not getrusage: ru_maxrss of a forked child starts at the
    parent's peak, which would make every child look as big as the benchmark driver."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def peak_rss_mb() -> float:
    """``peak_rss_kb`` in MiB, rounded to 0.1 (the figure the benchmarks print)."""
    return round(peak_rss_kb() / 1024, 1)


def run_child(script: str | Path, *args: str) -> dict[str, Any]:
    """Run ``script`` with ``args`` in a fresh interpreter (cwd: the repository) and return the JSON
    object on its last stdout line: a child's peak RSS is its own, not the driver's."""
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(proc.stdout.strip().splitlines()[-1])
