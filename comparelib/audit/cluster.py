"""Audits that outgrow one process, run as Ray Data pipelines that end in the same results.

The single-process audit (``scan``, ``dumps``) is the default and imports no Ray. Here the same
per-row (``scan.Tally.check``/``count``) and per-file (``dumps.check_file``) logic runs on Ray
workers: files are read in parallel, each worker holds one tokenizer (an actor of a
``map_batches`` pool), and the driver merges the per-block partials into the same ``AuditResult``
/ ``DumpReport``. Counts, sums, the length Counter (so every percentile) and the exact-duplicate
hashes merge exactly; near duplicates come from the MinHash signatures of a merged uniform
reservoir (exact while the rows fit in it). Workers read with the same data root and byte caps as
one process: the driver's SPECDRAFT_DATA_ROOT and SPECDRAFT_MAX_* travel with the job, and paths
are resolved again on the worker. A file a worker cannot read becomes a finding with its path.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import os
import pickle
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from comparelib import limits, paths
from comparelib.audit import conversations as conv_mod
from comparelib.audit import dumps as dumps_mod
from comparelib.audit import scan
from comparelib.audit.result import AuditResult
from comparelib.audit.sources import REMOTE_SCHEMES, file_rows, open_source
from comparelib.audit.tokens import TokenizerBundle, count_prepared, load_tokenizer
from comparelib.errors import CompareError, ConfigError, InputError

if TYPE_CHECKING:
    import torch

ENV_ADDRESS = "SPECDRAFT_RAY_ADDRESS"
BLOCK_ROWS = 20_000  # rows per partial a worker sends back: progress steps, and a worker's memory bound
NEAR_DUP_BOUND = (
    "near duplicates: MinHash (64 permutations, word 3-grams) with LSH at Jaccard >= 0.8 over a "
    "uniform reservoir; each pair's Jaccard estimate has a standard error of sqrt(J(1-J)/64) "
    "(0.05 at J = 0.8); exact reservoir (every row) while the valid rows fit in its cap, a lower bound beyond"
)
LENGTH_BOUND = "length percentiles: exact (integer-length histograms merge without error)"
DumpProgressFn = Callable[[int, int], None]


def address_from_env() -> str | None:
    """SPECDRAFT_RAY_ADDRESS for the app: unset or empty runs audits in one process."""
    return (os.environ.get(ENV_ADDRESS) or "").strip() or None


def scannable(source: str) -> bool:
    """Whether the Ray path reads ``source``: a local file or folder, or an s3:// / gs:// URI (no network used)."""
    text = str(source).strip()
    if text.startswith(REMOTE_SCHEMES):
        return True
    try:
        return paths.resolve_user_path(text, "dataset").exists()
    except CompareError:
        return False


def _job_env() -> dict[str, str]:
    """The settings a worker must read the way the driver does: data root and byte caps (never tokens)."""
    return {
        k: v
        for k, v in os.environ.items()
        if k == "SPECDRAFT_DATA_ROOT" or k.startswith("SPECDRAFT_MAX_") or k == "SPECDRAFT_HOME"
    }


def _apply_env(env: Mapping[str, str]) -> None:
    for key in [k for k in os.environ if k not in env and (k in _job_env())]:
        del os.environ[key]  # a reused worker process must not keep another job's root or caps
    os.environ.update(env)


def connect(address: str) -> Any:
    """The ``ray`` module, connected: ``local`` starts a 2-CPU cluster here, else ``ray.init(address)``."""
    try:
        import ray
        import ray.data
    except ImportError:
        raise ConfigError(
            "--ray needs Ray Data, which is optional: pip install -r requirements-ray.txt (or leave --ray unset)"
        ) from None
    if not ray.is_initialized():
        try:
            if address == "local":
                ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
            else:
                ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ConfigError(
                f"cannot join the Ray cluster at {address!r}: {' '.join(str(exc).split())[:300]}. "
                "Start one with `ray start --head` (workers: `ray start --address HEAD:6379`), or use --ray local"
            ) from None
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # no per-dataset INFO lines on stderr
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False  # progress is ours (CLI line, page bar)
    ctx.print_on_execution_start = False
    return ray


def _pool(ray: Any, workers: int | None) -> int:
    if workers is not None:
        if int(workers) < 1:
            raise InputError("--ray-workers must be at least 1")
        return int(workers)
    return max(1, int(ray.available_resources().get("CPU", 1)))


def _worker_id() -> str:
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


def _peak_rss_kb() -> int:
    """This worker's peak resident memory (Linux VmHWM; 0 where /proc is absent)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            return next((int(line.split()[1]) for line in fh if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0


def _runner(
    ray: Any, address: str, workers: int, processes: set[str], retried: int, blocks: int, rss_kb: int = 0
) -> dict[str, Any]:
    note = None
    if retried or len(processes) > workers:
        note = (
            f"Ray restarted a lost worker ({len(processes)} worker processes served a pool of {workers}; "
            f"{retried} block(s) arrived twice): their files were read again and counted once"
        )
    return {
        "engine": "ray",
        "ray_version": ray.__version__,
        "address": address,
        "workers": workers,
        "worker_processes": len(processes),
        "blocks": blocks,
        "retried_blocks": retried,
        "retry_note": note,
        "worker_peak_rss_mb": round(rss_kb / 1024, 1) if rss_kb else None,
        "sketches": [LENGTH_BOUND, NEAR_DUP_BOUND],
    }


# --------------------------------------------------------------------------- conversations


class _ScanWorker:
    """One per Ray worker: the tokenizer is unpickled once, then each file is read, checked and counted."""

    def __init__(
        self, bundle: TokenizerBundle, fmt: str, max_len: int, near_cap: int, seed: int, env: dict[str, str]
    ) -> None:
        os.environ["RAYON_NUM_THREADS"] = "1"  # one core per worker; the pool is the parallelism
        _apply_env(env)
        self.bundle, self.fmt, self.max_len, self.near_cap, self.seed = bundle, fmt, max_len, near_cap, seed
        self.worker = _worker_id()

    def __call__(self, batch: dict[str, Any]) -> Iterator[dict[str, Any]]:
        for k, path, name in zip(batch["k"], batch["path"], batch["name"], strict=True):
            yield from self._file(int(k), str(path), str(name))  # a local path or a remote URI

    def _out(self, k: int, part: int, tally: scan.Tally, done: bool) -> dict[str, Any]:
        import numpy as np

        return {
            "k": np.array([k]),
            "part": np.array([part]),
            "done": np.array([done]),
            "tally": np.array([pickle.dumps(tally)], dtype=object),
            "worker": np.array([self.worker], dtype=object),
            "rss_kb": np.array([_peak_rss_kb()]),
        }

    def _file(self, k: int, path: str, name: str) -> Iterator[dict[str, Any]]:
        part = 0
        tally = scan.Tally(self.near_cap, hash((self.seed, k, part)))
        load = limits.json_loader("a row")
        items: list[Any] = []
        n_texts = 0
        try:
            for line, raw in file_rows(path, k):  # the data root (and the caps) hold on the worker
                prepared = tally.check(line, raw, self.fmt, self.bundle, load)
                if prepared is not None:
                    items.append(prepared)
                    n_texts += len(prepared.segments) if prepared.segments is not None else 4
                    if n_texts >= scan.CHUNK_TEXTS:
                        tally.count(items, count_prepared(self.bundle, items), self.max_len)
                        items, n_texts = [], 0
                if tally.rows_read >= BLOCK_ROWS:
                    tally.count(items, count_prepared(self.bundle, items), self.max_len)
                    items, n_texts = [], 0
                    yield self._out(k, part, tally, False)
                    part += 1
                    tally = scan.Tally(self.near_cap, hash((self.seed, k, part)))
            tally.count(items, count_prepared(self.bundle, items), self.max_len)
        except Exception as exc:  # noqa: BLE001 - bad input is a finding on its file, not a crashed job
            if items:
                tally.count(items, count_prepared(self.bundle, items), self.max_len)
            msg = str(exc) if isinstance(exc, CompareError) else f"{type(exc).__name__}: {exc}"
            tally.file_errors.append({"file": name, "error": " ".join(msg.split())[:300]})
        yield self._out(k, part, tally, True)


def _readable_rows(files: list[str]) -> Iterator[tuple[int, Any]]:
    """Rows for format detection on the driver; a file that fails here is left to its worker to report."""
    for k, f in enumerate(files):
        try:
            yield from file_rows(f, k)
        except (CompareError, OSError):
            continue


def audit(
    source: str,
    *,
    address: str,
    tokenizer: str | TokenizerBundle | None = None,
    max_length: int = scan.DEFAULT_MAX_LENGTH,
    fmt: str = "auto",
    seed: int = 0,
    near_dup_cap: int = 10_000,
    workers: int | None = None,
    progress: scan.ProgressFn | None = None,
) -> AuditResult:
    """``scan.audit`` of local files or folders as a Ray Data pipeline; the same AuditResult, plus ``runner``."""
    if max_length is None or int(max_length) < 1:
        raise InputError("max_length must be a positive number of tokens")
    fmt = conv_mod.check_format(fmt or "auto")
    src = open_source(str(source), lenient=True)
    if src.kind == "hub" or not src.files:
        raise InputError(
            "--ray reads local files and folders (shared storage mounted on every node) and s3:// / gs:// "
            "URIs; audit a Hub dataset without --ray, or download it first"
        )
    # on the driver: workers get it pickled, and need no Hub access
    bundle = tokenizer if isinstance(tokenizer, TokenizerBundle) else load_tokenizer(tokenizer)
    detected, _rows = scan.detect(itertools.islice(_readable_rows(src.files), 2000), fmt)
    ray = connect(address)
    pool = _pool(ray, workers)
    t0 = time.perf_counter()
    names = [
        f[len(src.name) :].lstrip("/") if f.startswith(src.name) and f != src.name else f.rsplit("/", 1)[-1]
        for f in src.files
    ]
    items = [{"k": k, "path": str(f), "name": n} for k, (f, n) in enumerate(zip(src.files, names, strict=True))]
    ds = ray.data.from_items(items, override_num_blocks=len(items)).map_batches(
        _ScanWorker,
        fn_constructor_kwargs={
            "bundle": bundle,
            "fmt": detected,
            "max_len": int(max_length),
            "near_cap": near_dup_cap,
            "seed": seed,
            "env": _job_env(),
        },
        batch_size=1,
        compute=ray.data.ActorPoolStrategy(size=pool),
        num_cpus=1,
    )
    total = scan.Tally(near_dup_cap, seed)
    seen: set[tuple[int, int]] = set()
    processes: set[str] = set()
    retried = files_done = rss_kb = 0
    last = 0.0
    for row in ds.iter_rows():
        key = (int(row["k"]), int(row["part"]))
        processes.add(str(row["worker"]))
        rss_kb = max(rss_kb, int(row["rss_kb"]))
        if key in seen:  # a restarted worker sent a block again: counted once
            retried += 1
            continue
        seen.add(key)
        total.merge(pickle.loads(row["tally"]))
        files_done += bool(row["done"])
        now = time.perf_counter()
        if progress is not None and now - last >= 0.25:
            last = now
            elapsed = now - t0
            rate = total.rows_read / elapsed if elapsed > 0 else 0.0
            frac = files_done / len(items)
            progress(total.rows_read, rate, elapsed * (1 / frac - 1) if frac > 0 else None)
    elapsed = time.perf_counter() - t0
    if progress is not None:
        progress(total.rows_read, total.rows_read / max(1e-9, elapsed), 0.0)
    total.file_errors.extend({"file": name, "error": " ".join(why.split())[:300]} for name, why in src.refused)
    result = scan.finish(total, src, bundle, detected, int(max_length), notes=[], elapsed=elapsed, seed=seed)
    result.runner = _runner(ray, address, pool, processes, retried, len(seen), rss_kb)
    return result


# --------------------------------------------------------------------------- dumps


class _DumpWorker:
    """One per Ray worker: the plan (with the embedding, if any) is unpickled once, then files are checked."""

    def __init__(self, plan: dumps_mod.DumpPlan, env: dict[str, str]) -> None:
        import torch

        torch.set_num_threads(1)
        _apply_env(env)
        self.plan = plan
        self.worker = _worker_id()

    def __call__(self, batch: dict[str, Any]) -> Iterator[dict[str, Any]]:
        import numpy as np

        for i, path in zip(batch["i"], batch["path"], strict=True):
            p = Path(str(path))
            try:
                check = dumps_mod.check_file(p, self.plan)
            except Exception as exc:  # noqa: BLE001 - a file's bad content is a finding on that file
                check = dumps_mod.FileCheck.failed(self.plan.name(p), f"{type(exc).__name__}: {exc}")
            yield {
                "i": np.array([int(i)]),
                "check": np.array([pickle.dumps(check)], dtype=object),
                "worker": np.array([self.worker], dtype=object),
            }


def audit_dumps(
    folder: str | Path,
    *,
    address: str,
    draft_config: Mapping[str, Any] | None = None,
    target_hidden_size: int | None = None,
    vocab_size: int | None = None,
    embedding: torch.Tensor | None = None,
    max_files: int = 8,
    seed: int = 0,
    full: bool = False,
    workers: int | None = None,
    progress: DumpProgressFn | None = None,
) -> dumps_mod.DumpReport:
    """``dumps.audit_dumps`` with the files checked on Ray workers; the same DumpReport, plus ``runner``."""
    plan = dumps_mod.plan_dumps(
        folder,
        draft_config=draft_config,
        target_hidden_size=target_hidden_size,
        vocab_size=vocab_size,
        embedding=embedding,
        max_files=max_files,
        seed=seed,
        full=full,
    )
    ray = connect(address)
    pool = _pool(ray, workers)
    shipped = dataclasses.replace(plan, paths=[], chosen=[], findings=[])  # workers need the checks, not the lists
    items = [{"i": i, "path": str(p)} for i, p in enumerate(plan.chosen)]
    ds = ray.data.from_items(items, override_num_blocks=min(len(items), 8 * pool)).map_batches(
        _DumpWorker,
        fn_constructor_kwargs={"plan": shipped, "env": _job_env()},
        batch_size=1,
        compute=ray.data.ActorPoolStrategy(size=pool),
        num_cpus=1,
    )
    checks: dict[int, dumps_mod.FileCheck] = {}
    processes: set[str] = set()
    retried = 0
    for row in ds.iter_rows():
        i = int(row["i"])
        processes.add(str(row["worker"]))
        if i in checks:
            retried += 1
            continue
        checks[i] = pickle.loads(row["check"])
        if progress is not None:
            progress(len(checks), len(items))
    report = dumps_mod.report_dumps(plan, [checks[i] for i in range(len(items))])
    report.runner = _runner(ray, address, pool, processes, retried, len(checks))
    return report
