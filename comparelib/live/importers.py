"""Results of other benchmark tools into the store: ``sglang.bench_serving`` JSONL and
``vllm bench serve --save-result`` JSON.

Both tools write one flat JSON object per run (SGLang appends one line per run; vLLM writes one
object per file, or one per line with ``--append-result``). Many keys are shared, so the format is
told apart by keys only one of them writes. Per-request arrays (``--output-details`` /
``--save-detailed``) become request rows; summaries become the run's summary.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from comparelib import limits
from comparelib.errors import DataError, InputError
from comparelib.live.store import Store
from comparelib.values import id_span, integer, number

SGLANG = "sglang.bench_serving"
VLLM = "vllm bench serve"

# keys only one of the two tools writes (both write completed, output_throughput, *_ttft_ms, ...)
SGLANG_ONLY = frozenset(
    {
        "total_output_tokens_retokenized",
        "total_throughput",
        "input_throughput",
        "mean_e2e_latency_ms",
        "median_e2e_latency_ms",
        "p99_e2e_latency_ms",
        "std_e2e_latency_ms",
        "accept_length",
        "server_info",
        "concurrency",
        "total_input_text_tokens",
        "total_input_vision_tokens",
        "sharegpt_output_len",
        "random_range_ratio",
        "dataset_name",
    }
)
VLLM_ONLY = frozenset(
    {
        "endpoint_type",
        "total_token_throughput",
        "failed",
        "model_id",
        "tokenizer_id",
        "num_prompts",
        "burstiness",
        "request_goodput",
        "mean_e2el_ms",
        "median_e2el_ms",
        "p99_e2el_ms",
        "date",
        "latencies",
        "start_times",
        "spec_decode_acceptance_length",
        "spec_decode_acceptance_rate",
        "spec_decode_num_drafts",
        "spec_decode_per_position_acceptance_rates",
        "max_concurrent_requests",
        "rtfx",
    }
)
REQUIRED = ("completed", "output_throughput")

_EXPECTED = (
    f"expected {SGLANG} JSONL (one object per line with keys like completed, output_throughput, "
    f"median_ttft_ms, accept_length, server_info) or {VLLM} --save-result JSON (keys like completed, failed, "
    "output_throughput, median_ttft_ms, spec_decode_acceptance_length)"
)


def read_records(path: str | Path, *, name: str | None = None) -> list[dict]:
    """The run objects in a file: one JSON object, a JSON list of objects, or JSON lines.

    ``name``: what messages call the file (an upload's own name: the server's temporary path is never shown)."""
    p = Path(path)
    shown = name if name is not None else str(p)
    try:
        text = limits.read_text_capped(p, shown, limits.DOCUMENT_BYTES)
    except FileNotFoundError:
        raise InputError(f"no such file: {shown}") from None
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{shown} is not UTF-8 text (byte {exc.start + 1:,} cannot be read); save the result as UTF-8 JSON, "
            "as sglang.bench_serving and vllm bench serve write it"
        ) from None
    except OSError as exc:
        raise DataError(f"cannot read {shown}: {exc.strerror or exc.__class__.__name__}") from None
    if not text.strip():
        raise DataError(f"{shown} is empty; {_EXPECTED}")
    try:
        whole = limits.loads(text, shown)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        return [whole]
    if isinstance(whole, list):
        if not all(isinstance(x, dict) for x in whole):
            raise DataError(f"{shown} is a JSON list of non-objects; {_EXPECTED}")
        return list(whole)
    records = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = limits.loads(line, f"{shown} line {n}")
        except json.JSONDecodeError as exc:
            raise DataError(f"{shown} line {n} is not JSON ({exc.msg}); {_EXPECTED}") from None
        if not isinstance(obj, dict):
            raise DataError(f"{shown} line {n} is not a JSON object; {_EXPECTED}")
        records.append(obj)
    return records


def detect_format(record: Mapping[str, Any]) -> str:
    """SGLANG or VLLM, by the keys only one of the tools writes; DataError otherwise."""
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise DataError(f"not a benchmark result: no {', '.join(missing)} key; {_EXPECTED}")
    keys = set(record)
    s, v = len(keys & SGLANG_ONLY), len(keys & VLLM_ONLY)
    if s > v:
        return SGLANG
    if v > s:
        return VLLM
    raise DataError(f"cannot tell which tool wrote this result (keys: {', '.join(sorted(keys)[:12])}); {_EXPECTED}")


def check_record(record: Mapping[str, Any]) -> str:
    """``detect_format``, then the values the store and the answers read: a DataError naming the field when one
    is unusable (a run with throughput "fast", negative, or an impossible acceptance was imported as measured;
    a bad per-position rate was a traceback after the run had been written)."""
    fmt = detect_format(record)
    tps = record.get("output_throughput")
    if isinstance(tps, bool) or not isinstance(tps, (int, float)) or not math.isfinite(tps) or tps < 0:
        raise DataError(f"output_throughput is {tps!r}: expected a non-negative number of output tokens per second")
    accept_key = "accept_length" if fmt == SGLANG else "spec_decode_acceptance_length"
    acc = record.get(accept_key)
    # 0 is what a server with nothing verified yet may report; below 1 otherwise is impossible (bonus token)
    if acc is not None and (
        isinstance(acc, bool) or not isinstance(acc, (int, float)) or not math.isfinite(acc) or (acc < 1 and acc != 0)
    ):
        raise DataError(
            f"{accept_key} is {acc!r}: an acceptance length is a number of at least 1 (bonus token included)"
        )
    rates = record.get("spec_decode_per_position_acceptance_rates")
    if rates is not None and not (
        isinstance(rates, list)
        and all(isinstance(r, (int, float)) and not isinstance(r, bool) and 0 <= r <= 1 for r in rates)
    ):
        raise DataError(
            f"spec_decode_per_position_acceptance_rates is {str(rates)[:80]}: expected a list of rates between 0 and 1"
        )
    info = record.get("server_info")
    if fmt == SGLANG and info is not None and not isinstance(info, Mapping):
        raise DataError(f"server_info is {str(info)[:40]!r}: expected the object sglang.bench_serving saves")
    for key, (what, low, high) in _COUNTS.items():
        _check_whole(record, key, what, low, high)
    duration = record.get("duration")
    if duration is not None and (
        isinstance(duration, bool)
        or not isinstance(duration, (int, float))
        or not math.isfinite(duration)
        or duration < 0
    ):
        raise DataError(
            f"duration is {str(duration)[:40]}: expected the run's length in seconds, a number of 0 or more"
        )
    return fmt


# whole-number fields the store and the answers read (the summary's counts, the run's params), with their bounds:
# far above any benchmark's (10**9 requests, 10**15 tokens) and within what every database integer holds
_COUNTS: dict[str, tuple[str, int, int]] = {
    "completed": ("the number of requests that completed", 0, 10**9),
    "failed": ("the number of requests that failed", 0, 10**9),
    "num_prompts": ("the number of prompts sent", 0, 10**9),
    "max_concurrency": ("the client's concurrency limit", 1, 10**9),
    "total_output_tokens": ("the number of output tokens", 0, 10**15),
}


def _check_whole(record: Mapping[str, Any], key: str, what: str, low: int, high: int) -> None:
    """``record[key]`` absent, null or a whole number in low..high (1.0e6 as JSON may write it); else a DataError."""
    value = record.get(key)
    if value is None:
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value != int(value)
        or not low <= value <= high
    ):
        raise DataError(f"{key} is {str(value)[:40]}: expected {what}, a whole number from {low} to {high:,}")


def _percentiles(record: Mapping[str, Any], metric: str) -> dict[str, float]:
    out = {}
    for name, key in (
        ("mean", f"mean_{metric}_ms"),
        ("p50", f"median_{metric}_ms"),
        ("p90", f"p90_{metric}_ms"),
        ("p95", f"p95_{metric}_ms"),
        ("p99", f"p99_{metric}_ms"),
    ):
        value = number(record.get(key))
        if value is not None:
            out[name] = value
    return out


def _server_info(record: Mapping[str, Any]) -> dict:
    info = record.get("server_info")
    if not isinstance(info, Mapping):
        return {}
    # PD-disaggregated servers wrap the payload per role
    decode = info.get("decode")
    if isinstance(decode, list) and decode and isinstance(decode[0], Mapping):
        info = decode[0]
    return dict(info)


def _engine_of(backend: Any, default: str) -> str:
    b = str(backend or "").lower()
    if b.startswith("sglang"):
        return "sglang"
    if b.startswith("vllm"):
        return "vllm"
    return default


def _server_config(fmt: str, record: Mapping[str, Any], spec: Mapping[str, Any] | None) -> dict:
    if fmt == SGLANG:
        info = _server_info(record)
        cfg = {
            "engine": "sglang" if info else _engine_of(record.get("backend"), "openai"),
            "version": info.get("version"),
            "model": info.get("model_path") or info.get("served_model_name"),
            "speculative_algorithm": info.get("speculative_algorithm") or None,
            "draft_model": info.get("speculative_draft_model_path") or None,
            "num_steps": integer(info.get("speculative_num_steps")),
            "topk": integer(info.get("speculative_eagle_topk")),
            "num_draft_tokens": integer(info.get("speculative_num_draft_tokens")),
            "raw": info,
        }
    else:
        per_pos = record.get("spec_decode_per_position_acceptance_rates")
        has_spec = any(str(k).startswith("spec_decode_") for k in record)
        cfg = {
            "engine": _engine_of(record.get("backend"), "vllm") if record.get("backend") else "vllm",
            "version": None,
            "model": record.get("model_id"),
            # vLLM does not report its speculative config; the counters only show speculation was on
            "speculative_algorithm": "unknown" if has_spec else None,
            "draft_model": None,
            "num_steps": len(per_pos) if isinstance(per_pos, list) and per_pos else None,
            "topk": None,
            "num_draft_tokens": None,
            "raw": {},
        }
    # what the file says wins; a stated value fills a gap (vLLM does not record its speculative config), and
    # never turns a run without speculation into a speculative one
    speculative = bool(cfg.get("speculative_algorithm")) or (fmt == SGLANG and record.get("accept_length") is not None)
    if speculative:
        for key, value in (spec or {}).items():
            if value is not None and value != "" and cfg.get(key) in (None, "", "unknown"):
                cfg[key] = value
    return cfg


def _summary(fmt: str, record: Mapping[str, Any], rows: list[dict]) -> dict:
    completed = integer(record.get("completed")) or 0
    if fmt == VLLM and record.get("failed") is not None:
        errors = integer(record.get("failed")) or 0
    else:
        errors = sum(1 for r in rows if not r["ok"])
    requests = max(completed + errors, len(rows))
    e2e = _percentiles(record, "e2e_latency" if fmt == SGLANG else "e2el")
    if fmt == SGLANG:
        accept = number(record.get("accept_length"))
        per_pos = None
    else:
        accept = number(record.get("spec_decode_acceptance_length"))
        raw_pos = record.get("spec_decode_per_position_acceptance_rates")
        per_pos = [float(x) for x in raw_pos] if isinstance(raw_pos, list) and raw_pos else None
    return {
        "requests": requests,
        "errors": errors,
        "duration_s": number(record.get("duration")),
        "output_tokens": integer(record.get("total_output_tokens")),
        "output_tokens_per_s": number(record.get("output_throughput")),
        "request_throughput": number(record.get("request_throughput")),
        "accept_length": accept,
        "accept_length_mean": None,
        "accept_per_position": per_pos,
        "ttft_ms": _percentiles(record, "ttft"),
        "tpot_ms": _percentiles(record, "tpot"),
        "e2e_ms": e2e,
        "itl_ms": _percentiles(record, "itl"),
    }


def _request_rows(record: Mapping[str, Any]) -> list[dict]:
    """Per-request rows from the detail arrays, when the tool saved them."""
    ttfts = record.get("ttfts")
    outs = record.get("output_lens")
    if not isinstance(ttfts, list) and not isinstance(outs, list):
        return []
    n = max(len(x) for x in (ttfts, outs) if isinstance(x, list))

    def at(name: str, i: int) -> Any:
        arr = record.get(name)
        return arr[i] if isinstance(arr, list) and i < len(arr) else None

    rows = []
    for i in range(n):
        err = at("errors", i)
        ttft = number(at("ttfts", i))
        out = integer(at("output_lens", i))
        gaps_raw = at("itls", i)
        gaps = [float(g) for g in gaps_raw if number(g) is not None] if isinstance(gaps_raw, list) else []
        ok = not err and ttft is not None and ttft > 0
        e2e = number(at("latencies", i))
        if e2e is None and ok and ttft is not None:
            e2e = ttft + sum(gaps)
        tpot = (
            (e2e - ttft) / (out - 1)
            if ok and ttft is not None and e2e is not None and out is not None and out > 1
            else None
        )
        rows.append(
            {
                "index": i,
                "ok": bool(ok),
                "error": (str(err) if err else (None if ok else "failed (no first token)")),
                "started_at": number(at("start_times", i)),
                "prompt_tokens": integer(at("input_lens", i)),
                "output_tokens": out,
                "ttft_s": ttft if ok else None,
                "e2e_s": e2e if ok else None,
                "tpot_s": tpot,
                "n_chunks": (len(gaps) + 1) if ok else 0,
                "chunk_gaps_s": gaps,
                "spec_verify_ct": None,
                "accept_length": None,
            }
        )
    return rows


_PARAM_KEYS = (
    "backend",
    "dataset_name",
    "request_rate",
    "max_concurrency",
    "num_prompts",
    # sglang.bench_serving writes no num_prompts: the requests it completed stand for the number run (walk AD: its
    # 16 were taken as unrecorded and set against this app's 16 as a difference)
    "completed",
    "random_input_len",
    "random_output_len",
    "random_range_ratio",
    "sharegpt_output_len",
    "burstiness",
    "tag",
    "label",
    "date",
)


def _created_at(record: Mapping[str, Any]) -> datetime | None:
    date = record.get("date")
    if isinstance(date, str):
        try:
            return datetime.strptime(date, "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
        except ValueError:
            return None
    return None


def import_record(
    store: Store,
    record: Mapping[str, Any],
    *,
    source: str,
    labels: Sequence[str] = (),
    group: str | None = None,
    spec: Mapping[str, Any] | None = None,
) -> int:
    """One run object into the store as kind="imported"; returns its run id."""
    fmt = detect_format(record)
    rows = _request_rows(record)
    cfg = _server_config(fmt, record, spec)
    tool_label = record.get("label") if fmt == VLLM else record.get("tag")
    all_labels = [*labels, *([str(tool_label)] if tool_label else [])]
    params = {k: record[k] for k in _PARAM_KEYS if k in record}
    params.update({"format": fmt, "source_file": source})
    notes: dict[str, Any] = {"imported_from": source, "format": fmt}
    if fmt == SGLANG and record.get("accept_length") is not None:
        notes["accept_length_source"] = "server /server_info avg_spec_accept_length (cumulative since last flush)"
    if fmt == VLLM and record.get("spec_decode_acceptance_length") is not None:
        notes["accept_length_source"] = "vLLM /metrics counter delta over the run: 1 + accepted / drafts"
    run_id = store.start_run(
        endpoint=f"imported: {Path(source).name}",
        server_config=cfg,
        labels=all_labels,
        params=params,
        group=group,
        kind="imported",
        notes=notes,
        created_at=_created_at(record),
    )
    store.add_requests(run_id, rows)
    info = _server_info(record)
    if info:
        store.add_snapshot(run_id, "imported", {"server_info": info})
    store.finish_run(run_id, _summary(fmt, record, rows), status="finished")
    return run_id


def stated_spec(
    algorithm: str | None = None,
    *,
    draft_model: str | None = None,
    num_steps: int | None = None,
    topk: int | None = None,
    num_draft_tokens: int | None = None,
) -> dict[str, Any]:
    """The speculative config stated for an import (the CLI's flags, the page's fold-out), only what was given.

    vLLM results do not carry it; ``import_record`` lets it fill gaps only. "none" or "baseline" as the
    algorithm states none (a stated value never makes a run without speculation speculative)."""
    algo = (algorithm or "").strip()
    given: dict[str, Any] = {
        "speculative_algorithm": None if algo.lower() in ("", "none", "baseline") else algo,
        "draft_model": (draft_model or "").strip() or None,
        "num_steps": None if num_steps is None else int(num_steps),
        "topk": None if topk is None else int(topk),
        "num_draft_tokens": None if num_draft_tokens is None else int(num_draft_tokens),
    }
    return {k: v for k, v in given.items() if v is not None}


def stated_draft_text(runs: Sequence[Any], stated: str | None, *, field: str = "the Draft field") -> str | None:
    """What an import says when its file records another draft than the one stated (``field`` names where: the
    page's Draft field, the CLI's --draft): the file's is kept, as every value a file records is; None when they
    agree (``draft.draft_match``: a folder and the Hub id of one name are one draft) or nothing was stated. A run
    without speculation stores no draft, and says nothing."""
    from comparelib.models.draft import draft_match

    wanted = (stated or "").strip()
    if not wanted:
        return None
    differ = [
        r
        for r in runs
        if str(getattr(r, "draft_model", None) or "").strip() not in ("", wanted)
        and not draft_match(r.draft_model, wanted)
    ]
    if not differ:
        return None
    by: dict[str, list[int]] = {}
    for r in differ:
        by.setdefault(str(r.draft_model).strip(), []).append(int(r.id))
    said = "; ".join(f"{id_span(ids)} {name}" for name, ids in by.items())
    one = len(differ) == 1
    return (
        f"The file records {'its' if one else 'their'} draft ({said}), not {wanted} given in {field}: the file's is "
        f"kept, as it names what the server ran. {'That run counts' if one else 'Those runs count'} as your draft's "
        "only where that name is your draft's."
    )


def imported_text(ids: Sequence[int], source: str) -> str:
    """What an import says it did: "imported run #10 from x.json", "imported runs #10, #11 from x.json"."""
    if not ids:
        return f"imported no runs from {source}"
    numbers = ", ".join(f"#{i}" for i in ids)
    return f"imported {'run' if len(ids) == 1 else 'runs'} {numbers} from {source}"


def import_file(
    store: Store,
    path: str | Path,
    *,
    labels: Sequence[str] = (),
    group: str | None = None,
    spec: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> list[int]:
    """Every run in a sglang.bench_serving JSONL or vllm bench serve JSON file; returns the new run ids.

    The whole file is checked before anything is written, so a bad line imports nothing. ``name`` (an
    upload's own file name) is what messages say and what the runs store as ``source_file`` /
    ``imported_from``, instead of ``path``, the server's temporary copy.
    """
    shown = (os.path.basename(name) or "upload") if name is not None else str(path)
    records = read_records(path, name=shown)
    for n, rec in enumerate(records, start=1):
        try:
            check_record(rec)
        except DataError as exc:
            where = f"{shown} (record {n})" if len(records) > 1 else shown
            raise DataError(f"{where}: {exc}") from None
    return [import_record(store, rec, source=shown, labels=labels, group=group, spec=spec) for rec in records]
