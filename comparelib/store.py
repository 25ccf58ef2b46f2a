"""The results store: every benchmark run, its per-request rows and server snapshots.

A SQLite file by default (WAL, busy timeout, one short write transaction per request so a killed
run keeps everything already measured and two runs at once do not step on each other); any
SQLAlchemy URL (PostgreSQL) by setting. Dicts go into JSON columns; what gets charted or filtered
is also kept in flat numeric columns.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import sqlalchemy as sa
from sqlalchemy import event, exc as sa_exc
from sqlalchemy.pool import StaticPool

from comparelib import settings
from comparelib.errors import DataError, StoreError

if TYPE_CHECKING:
    import pandas as pd

SCHEMA_VERSION = 1
EXAMPLE_FILE = settings.DATA_DIR / "examples" / "kimi_k25_session.json"
KINDS = ("measured", "imported", "example")
STATUSES = ("running", "finished", "failed", "interrupted")

metadata = sa.MetaData()

_SCHEMA_LOCK_KEY = 0x5BEC_D2AF  # any constant: one advisory lock for "creating the specdraft schema"

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
)

runs_table = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True)),
    sa.Column("endpoint", sa.Text, nullable=False),
    sa.Column("engine", sa.String(32), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False, index=True),
    sa.Column("run_group", sa.String(200), index=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("example_key", sa.String(100), unique=True),
    sa.Column("speculative_algorithm", sa.String(64)),
    sa.Column("draft_model", sa.Text),
    sa.Column("model", sa.Text),
    sa.Column("engine_version", sa.String(64)),
    sa.Column("num_steps", sa.Integer),
    sa.Column("topk", sa.Integer),
    sa.Column("num_draft_tokens", sa.Integer),
    sa.Column("requests", sa.Integer),
    sa.Column("errors", sa.Integer),
    sa.Column("duration_s", sa.Float),
    sa.Column("output_tokens", sa.BigInteger),
    sa.Column("output_tokens_per_s", sa.Float),
    sa.Column("request_throughput", sa.Float),
    sa.Column("accept_length", sa.Float),
    sa.Column("accept_length_mean", sa.Float),
    sa.Column("ttft_p50_ms", sa.Float),
    sa.Column("ttft_p99_ms", sa.Float),
    sa.Column("tpot_p50_ms", sa.Float),
    sa.Column("tpot_p99_ms", sa.Float),
    sa.Column("labels", sa.JSON, nullable=False),
    sa.Column("server_config", sa.JSON, nullable=False),
    sa.Column("params", sa.JSON, nullable=False),
    sa.Column("summary", sa.JSON, nullable=False),
    sa.Column("notes", sa.JSON, nullable=False),
)

requests_table = sa.Table(
    "requests",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("idx", sa.Integer, nullable=False),
    sa.Column("ok", sa.Boolean, nullable=False),
    sa.Column("error", sa.Text),
    sa.Column("started_at", sa.Float),
    sa.Column("prompt_tokens", sa.Integer),
    sa.Column("output_tokens", sa.Integer),
    sa.Column("ttft_s", sa.Float),
    sa.Column("e2e_s", sa.Float),
    sa.Column("tpot_s", sa.Float),
    sa.Column("n_chunks", sa.Integer),
    sa.Column("spec_verify_ct", sa.Integer),
    sa.Column("accept_length", sa.Float),
    sa.Column("chunk_gaps_s", sa.JSON),
    sa.Column("extra", sa.JSON),
)

snapshots_table = sa.Table(
    "snapshots",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("phase", sa.String(32), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("payload", sa.JSON, nullable=False),
)

data_volumes_table = sa.Table(
    "data_volumes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("draft", sa.Text, nullable=False),
    sa.Column("samples", sa.BigInteger, nullable=False),
    sa.Column("tokens", sa.BigInteger),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("example_key", sa.String(100), unique=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

_REQUEST_FIELDS = (
    "prompt_tokens", "output_tokens", "ttft_s", "e2e_s", "tpot_s", "n_chunks", "spec_verify_ct", "accept_length",
)


@dataclasses.dataclass
class RunRecord:
    """One stored run, flat enough for tables and charts, with the dicts alongside."""

    id: int
    created_at: datetime
    endpoint: str
    engine: str
    kind: str
    group: str | None
    labels: list[str]
    status: str
    speculative_algorithm: str | None
    draft_model: str | None
    model: str | None
    num_steps: int | None
    topk: int | None
    num_draft_tokens: int | None
    is_baseline: bool
    requests: int
    errors: int
    output_tokens_per_s: float | None
    accept_length: float | None
    accept_length_mean: float | None
    ttft_p50_ms: float | None
    ttft_p99_ms: float | None
    tpot_p50_ms: float | None
    tpot_p99_ms: float | None
    summary: dict
    server_config: dict
    params: dict
    notes: dict

    @property
    def title(self) -> str:
        """A short human name for pickers: id, kind, spec config, labels."""
        spec = "baseline" if self.is_baseline else (self.speculative_algorithm or "spec")
        if self.num_steps is not None:
            spec += f" steps={self.num_steps}"
        if self.topk is not None:
            spec += f" topk={self.topk}"
        if self.num_draft_tokens is not None:
            spec += f" ndt={self.num_draft_tokens}"
        tag = " [example]" if self.kind == "example" else (" [imported]" if self.kind == "imported" else "")
        labels = [lab for lab in self.labels if lab != "example"]
        extra = f" ({', '.join(labels)})" if labels else ""
        return f"#{self.id}{tag} {spec}{extra}"


# ---------------------------------------------------------------- secrets and JSON hygiene

_SECRET_KEY = re.compile(
    r"(api[_-]?key|apikey|secret|password|passwd|authorization|credential|private[_-]?key|access[_-]?key"
    r"|cookie|bearer)",
    re.IGNORECASE,
)
_HARMLESS_TOKEN_KEYS = {"bos_token", "eos_token", "pad_token", "unk_token", "sep_token", "cls_token", "mask_token"}
_SECRET_VALUE = re.compile(r"^(hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_\-]{16,}|Bearer\s+\S+)$")


def is_secret_key(key: str) -> bool:
    """Keys whose values are credentials (api_key, hf_token, password, ...), not token counts."""
    k = str(key).strip().lower()
    if k in _HARMLESS_TOKEN_KEYS:
        return False
    if _SECRET_KEY.search(k):
        return True
    return k == "token" or k.endswith("_token") or k.endswith("-token")


def redact_url(url: str) -> str:
    """An endpoint URL without user:password and without credential-looking query parameters."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if not is_secret_key(k)]
        query = urlencode(kept)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def clean(value: Any) -> Any:
    """Plain JSON with secrets removed: dataclasses to dicts, NaN/inf to None, credential keys dropped."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return {str(k): clean(v) for k, v in value.items() if not is_secret_key(str(k))}
    if isinstance(value, (list, tuple, set)):
        return [clean(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return "[redacted]" if _SECRET_VALUE.match(value.strip()) else value
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return clean(value.item())
    return str(value)


def _as_dict(obj: Any) -> dict:
    if obj is None:
        return {}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, Mapping):
        return dict(obj)
    raise DataError(f"expected a dataclass or a mapping, got {type(obj).__name__}")


def _num(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def _int(value: Any) -> int | None:
    out = _num(value)
    return None if out is None else int(out)


def _pct(block: Any, *keys: str) -> float | None:
    if not isinstance(block, Mapping):
        return None
    for key in keys:
        if key in block:
            return _num(block[key])
    return None


def safe_url(url: str | sa.engine.URL) -> str:
    """A database URL fit to show: password masked."""
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not a URL at all: show it minus anything after a colon in userinfo
        return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", str(url))


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


# ---------------------------------------------------------------- the store


class Store:
    """Runs, requests, snapshots and data volumes in one SQLAlchemy database."""

    def __init__(self, url: str | None = None) -> None:
        if url is not None and not url.strip():
            raise StoreError("empty database URL; leave it out to use the default, or give e.g. "
                             "sqlite:///path/results.sqlite")
        raw = url or settings.database_url()
        try:
            parsed = sa.make_url(raw)
        except sa_exc.ArgumentError:
            raise StoreError(
                f"not a database URL: {safe_url(raw)!s}; use e.g. sqlite:///path/results.sqlite or "
                "postgresql+psycopg2://user@host/db"
            ) from None
        self.url = parsed
        self.display_url = parsed.render_as_string(hide_password=True)
        self._sqlite = parsed.get_backend_name() == "sqlite"
        self._lock = threading.Lock()
        kwargs: dict[str, Any] = {"future": True}
        if self._sqlite:
            db = parsed.database
            if db and db != ":memory:" and not db.startswith("file:"):
                try:
                    Path(db).expanduser().parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreError(f"cannot create the folder for {self.display_url}: {exc.strerror}") from None
            kwargs["connect_args"] = {"timeout": 30, "check_same_thread": False}
            if not db or db == ":memory:":
                kwargs["poolclass"] = StaticPool
        else:
            kwargs["pool_pre_ping"] = True
        try:
            self.engine = sa.create_engine(parsed, **kwargs)
        except (sa_exc.ArgumentError, sa_exc.NoSuchModuleError, ImportError) as exc:
            raise StoreError(f"cannot use database URL {self.display_url}: {self._reason(exc)}") from None
        if self._sqlite:
            self._setup_sqlite()
        self._create_schema()

    # -- plumbing

    def _reason(self, exc: BaseException) -> str:
        text = " ".join(str(getattr(exc, "orig", None) or exc).split())
        text = re.sub(r"\(Background on this error.*$", "", text).strip()
        pw = self.url.password if hasattr(self, "url") else None
        if pw:
            text = text.replace(str(pw), "***")
        return text[:300]

    def _setup_sqlite(self) -> None:
        @event.listens_for(self.engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (IMMEDIATE for writes)
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA busy_timeout=30000")
            try:
                cur.execute("PRAGMA journal_mode=WAL")
            except Exception:  # noqa: BLE001 - read-only media or :memory:: keep the default journal
                pass
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(self.engine, "begin")
        def _on_begin(conn: sa.Connection) -> None:
            mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
            conn.exec_driver_sql(f"BEGIN {mode}")

    @contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """One short write transaction; on SQLite it takes the write lock up front (no upgrade deadlocks)."""
        try:
            with self.engine.connect() as conn:
                if self._sqlite:
                    conn = conn.execution_options(sqlite_begin="IMMEDIATE")
                with conn.begin():
                    yield conn
        except sa_exc.IntegrityError:
            raise
        except sa_exc.SQLAlchemyError as exc:
            raise StoreError(f"cannot write to the results database {self.display_url}: {self._reason(exc)}") from None

    @contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        try:
            with self.engine.connect() as conn:
                yield conn
        except sa_exc.SQLAlchemyError as exc:
            raise StoreError(f"cannot read the results database {self.display_url}: {self._reason(exc)}") from None

    def _create_schema(self) -> None:
        try:
            with self.engine.connect() as conn:
                if self._sqlite:
                    conn = conn.execution_options(sqlite_begin="IMMEDIATE")
                with conn.begin():
                    if conn.dialect.name == "postgresql":
                        # Serialise schema creation across processes: PostgreSQL's CREATE TABLE IF NOT
                        # EXISTS is not safe when two sessions race on an empty database.
                        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK_KEY})
                    metadata.create_all(conn)
                    row = conn.execute(sa.select(schema_version.c.version).where(schema_version.c.id == 1)).first()
                    if row is None:
                        conn.execute(schema_version.insert().values(id=1, version=SCHEMA_VERSION))
                    elif row.version > SCHEMA_VERSION:
                        raise StoreError(
                            f"the results database {self.display_url} has schema version {row.version}, newer "
                            f"than this app understands ({SCHEMA_VERSION}); upgrade specdraft compare or use "
                            "another database"
                        )
        except StoreError:
            raise
        except sa_exc.IntegrityError:
            # another process created the schema and its version row at the same moment: fine
            pass
        except (sa_exc.SQLAlchemyError, OSError) as exc:
            raise StoreError(f"cannot open the results database {self.display_url}: {self._reason(exc)}") from None

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def schema_version(self) -> int:
        with self._read() as conn:
            return int(conn.execute(sa.select(schema_version.c.version)).scalar_one())

    # -- writing runs

    def start_run(
        self,
        *,
        endpoint: str,
        server_config: Any,
        labels: Sequence[str] = (),
        params: Mapping[str, Any] | None = None,
        group: str | None = None,
        kind: str = "measured",
        notes: Mapping[str, Any] | None = None,
        created_at: datetime | None = None,
        status: str = "running",
        example_key: str | None = None,
    ) -> int:
        """Create a run in status "running"; the client then adds requests as they complete."""
        if kind not in KINDS:
            raise StoreError(f"unknown run kind {kind!r}; use one of {', '.join(KINDS)}")
        cfg = clean(_as_dict(server_config))
        label_list = [str(x).strip() for x in labels if str(x).strip()]
        if kind == "example" and "example" not in label_list:
            label_list.insert(0, "example")
        spec = cfg.get("speculative_algorithm") or None
        row = {
            "created_at": _aware(created_at) or _utcnow(),
            "endpoint": redact_url(str(endpoint or "")),
            "engine": str(cfg.get("engine") or "unknown"),
            "kind": kind,
            "run_group": (group or None),
            "status": status,
            "example_key": example_key,
            "speculative_algorithm": str(spec) if spec else None,
            "draft_model": cfg.get("draft_model") or None,
            "model": cfg.get("model") or None,
            "engine_version": (str(cfg["version"]) if cfg.get("version") is not None else None),
            "num_steps": _int(cfg.get("num_steps")),
            "topk": _int(cfg.get("topk")),
            "num_draft_tokens": _int(cfg.get("num_draft_tokens")),
            "labels": label_list,
            "server_config": cfg,
            "params": clean(dict(params or {})),
            "summary": {},
            "notes": clean(dict(notes or {})),
        }
        with self._write() as conn:
            result = conn.execute(runs_table.insert().values(**row).returning(runs_table.c.id))
            return int(result.scalar_one())

    def add_request(self, run_id: int, result: Any) -> None:
        """One completed request, committed at once so a killed run keeps it."""
        data = _as_dict(result)
        extra = {k: v for k, v in data.items() if k not in {"index", "ok", "error", "started_at", "chunk_gaps_s",
                                                             *_REQUEST_FIELDS}}
        row = {
            "run_id": int(run_id),
            "idx": int(data.get("index", 0) or 0),
            "ok": bool(data.get("ok", False)),
            "error": (str(data["error"])[:2000] if data.get("error") else None),
            "started_at": _num(data.get("started_at")),
            "prompt_tokens": _int(data.get("prompt_tokens")),
            "output_tokens": _int(data.get("output_tokens")),
            "ttft_s": _num(data.get("ttft_s")),
            "e2e_s": _num(data.get("e2e_s")),
            "tpot_s": _num(data.get("tpot_s")),
            "n_chunks": _int(data.get("n_chunks")),
            "spec_verify_ct": _int(data.get("spec_verify_ct")),
            "accept_length": _num(data.get("accept_length")),
            "chunk_gaps_s": clean(list(data.get("chunk_gaps_s") or [])),
            "extra": clean(extra) or None,
        }
        try:
            with self._write() as conn:
                conn.execute(requests_table.insert().values(**row))
        except sa_exc.IntegrityError:
            raise StoreError(f"run {run_id} does not exist in {self.display_url}") from None

    def add_requests(self, run_id: int, results: Sequence[Any]) -> None:
        """Many rows in one transaction (imports); live runs use add_request per row."""
        if not results:
            return
        rows = []
        for data in (_as_dict(r) for r in results):
            rows.append({
                "run_id": int(run_id),
                "idx": int(data.get("index", 0) or 0),
                "ok": bool(data.get("ok", False)),
                "error": (str(data["error"])[:2000] if data.get("error") else None),
                "started_at": _num(data.get("started_at")),
                **{f: (_int(data.get(f)) if f in {"prompt_tokens", "output_tokens", "n_chunks", "spec_verify_ct"}
                       else _num(data.get(f))) for f in _REQUEST_FIELDS},
                "chunk_gaps_s": clean(list(data.get("chunk_gaps_s") or [])),
                "extra": None,
            })
        with self._write() as conn:
            conn.execute(requests_table.insert(), rows)

    def add_snapshot(self, run_id: int, when: str, payload: Mapping[str, Any]) -> None:
        """Server state before/after a run (server_info, metrics counters), secrets stripped."""
        try:
            with self._write() as conn:
                conn.execute(
                    snapshots_table.insert().values(
                        run_id=int(run_id), phase=str(when), created_at=_utcnow(), payload=clean(dict(payload or {}))
                    )
                )
        except sa_exc.IntegrityError:
            raise StoreError(f"run {run_id} does not exist in {self.display_url}") from None

    def finish_run(self, run_id: int, summary: Any, status: str = "finished") -> None:
        """Store the run's summary and its flat, chartable numbers."""
        if status not in STATUSES:
            raise StoreError(f"unknown run status {status!r}; use one of {', '.join(STATUSES)}")
        data = clean(_as_dict(summary))
        values = {
            "status": status,
            "finished_at": _utcnow(),
            "summary": data,
            "requests": _int(data.get("requests")),
            "errors": _int(data.get("errors")),
            "duration_s": _num(data.get("duration_s")),
            "output_tokens": _int(data.get("output_tokens")),
            "output_tokens_per_s": _num(data.get("output_tokens_per_s")),
            "request_throughput": _num(data.get("request_throughput")),
            "accept_length": _num(data.get("accept_length")),
            "accept_length_mean": _num(data.get("accept_length_mean")),
            "ttft_p50_ms": _pct(data.get("ttft_ms"), "p50", "median"),
            "ttft_p99_ms": _pct(data.get("ttft_ms"), "p99"),
            "tpot_p50_ms": _pct(data.get("tpot_ms"), "p50", "median"),
            "tpot_p99_ms": _pct(data.get("tpot_ms"), "p99"),
        }
        with self._write() as conn:
            done = conn.execute(runs_table.update().where(runs_table.c.id == int(run_id)).values(**values))
            if done.rowcount == 0:
                raise StoreError(f"run {run_id} does not exist in {self.display_url}")

    def delete_run(self, run_id: int) -> None:
        with self._write() as conn:
            conn.execute(requests_table.delete().where(requests_table.c.run_id == int(run_id)))
            conn.execute(snapshots_table.delete().where(snapshots_table.c.run_id == int(run_id)))
            conn.execute(runs_table.delete().where(runs_table.c.id == int(run_id)))

    # -- reading runs

    def _records(self, where: Any = None) -> list[RunRecord]:
        counts = (
            sa.select(
                requests_table.c.run_id,
                sa.func.count().label("n"),
                sa.func.sum(sa.case((requests_table.c.ok.is_(False), 1), else_=0)).label("n_err"),
            )
            .group_by(requests_table.c.run_id)
            .subquery()
        )
        query = sa.select(runs_table, counts.c.n, counts.c.n_err).outerjoin(counts, counts.c.run_id == runs_table.c.id)
        if where is not None:
            query = query.where(where)
        query = query.order_by(runs_table.c.id)
        with self._read() as conn:
            rows = conn.execute(query).mappings().all()
        return [self._record(r) for r in rows]

    @staticmethod
    def _record(r: Mapping[str, Any]) -> RunRecord:
        # a run still "running" (or killed) has no summary yet: count what was written
        requests = r["requests"] if r["requests"] is not None else int(r["n"] or 0)
        errors = r["errors"] if r["errors"] is not None else int(r["n_err"] or 0)
        created = r["created_at"]
        return RunRecord(
            id=int(r["id"]),
            created_at=_aware(created) if isinstance(created, datetime) else created,
            endpoint=r["endpoint"],
            engine=r["engine"],
            kind=r["kind"],
            group=r["run_group"],
            labels=list(r["labels"] or []),
            status=r["status"],
            speculative_algorithm=r["speculative_algorithm"],
            draft_model=r["draft_model"],
            model=r["model"],
            num_steps=r["num_steps"],
            topk=r["topk"],
            num_draft_tokens=r["num_draft_tokens"],
            is_baseline=r["speculative_algorithm"] is None,
            requests=int(requests),
            errors=int(errors),
            output_tokens_per_s=r["output_tokens_per_s"],
            accept_length=r["accept_length"],
            accept_length_mean=r["accept_length_mean"],
            ttft_p50_ms=r["ttft_p50_ms"],
            ttft_p99_ms=r["ttft_p99_ms"],
            tpot_p50_ms=r["tpot_p50_ms"],
            tpot_p99_ms=r["tpot_p99_ms"],
            summary=dict(r["summary"] or {}),
            server_config=dict(r["server_config"] or {}),
            params=dict(r["params"] or {}),
            notes=dict(r["notes"] or {}),
        )

    def runs(self, *, group: str | None = None, include_examples: bool = True) -> list[RunRecord]:
        conds = []
        if group is not None:
            conds.append(runs_table.c.run_group == group)
        if not include_examples:
            conds.append(runs_table.c.kind != "example")
        return self._records(sa.and_(*conds) if conds else None)

    def run(self, run_id: int) -> RunRecord:
        found = self._records(runs_table.c.id == int(run_id))
        if not found:
            raise StoreError(f"no run with id {run_id} in {self.display_url}; `python -m comparelib runs` lists them")
        return found[0]

    def snapshots(self, run_id: int) -> list[dict]:
        cols = snapshots_table.c
        query = sa.select(snapshots_table).where(cols.run_id == int(run_id)).order_by(cols.id)
        with self._read() as conn:
            return [
                {"phase": r["phase"], "created_at": _aware(r["created_at"]), "payload": dict(r["payload"] or {})}
                for r in conn.execute(query).mappings()
            ]

    def requests(self, run_id: int) -> pd.DataFrame:
        """Per-request rows in request order (fields as in bench.RequestResult)."""
        import pandas as pd

        query = (
            sa.select(requests_table)
            .where(requests_table.c.run_id == int(run_id))
            .order_by(requests_table.c.idx, requests_table.c.id)
        )
        with self._read() as conn:
            rows = conn.execute(query).mappings().all()
        columns = ["index", "ok", "error", "started_at", *_REQUEST_FIELDS, "chunk_gaps_s"]
        data = [
            {"index": r["idx"], "ok": bool(r["ok"]), "error": r["error"], "started_at": r["started_at"],
             **{f: r[f] for f in _REQUEST_FIELDS}, "chunk_gaps_s": list(r["chunk_gaps_s"] or [])}
            for r in rows
        ]
        return pd.DataFrame(data, columns=columns)

    def groups(self) -> list[str]:
        query = sa.select(runs_table.c.run_group).where(runs_table.c.run_group.is_not(None)).distinct()
        with self._read() as conn:
            return sorted(str(g) for g in conn.execute(query).scalars())

    def runs_frame(self, **kw: Any) -> pd.DataFrame:
        """One row per run, flat columns only: the table the page, the CLI and exports show."""
        return runs_to_frame(self.runs(**kw))

    # -- data volumes

    def save_data_volume(
        self, *, draft: str, samples: int, tokens: int | None = None, source: str = "", kind: str = "measured",
        example_key: str | None = None,
    ) -> int:
        if not str(draft).strip():
            raise StoreError("a data volume needs the draft's name")
        if int(samples) < 0 or (tokens is not None and int(tokens) < 0):
            raise StoreError("samples and tokens must be zero or more")
        with self._write() as conn:
            result = conn.execute(
                data_volumes_table.insert()
                .values(draft=str(draft), samples=int(samples), tokens=None if tokens is None else int(tokens),
                        source=str(source or ""), kind=kind, example_key=example_key, created_at=_utcnow())
                .returning(data_volumes_table.c.id)
            )
            return int(result.scalar_one())

    def data_volumes(self) -> list[dict]:
        cols = data_volumes_table.c
        query = sa.select(cols.id, cols.draft, cols.samples, cols.tokens, cols.source, cols.kind, cols.created_at)
        with self._read() as conn:
            rows = [dict(r) for r in conn.execute(query.order_by(cols.id)).mappings()]
        for row in rows:
            row["created_at"] = _aware(row["created_at"])
        return rows

    # -- built-in example

    def ensure_examples(self, path: Path | None = None) -> None:
        """Load the built-in example session once; later calls (any process) find it and do nothing."""
        doc = load_example_file(path or EXAMPLE_FILE)
        group = doc["group"]
        for spec in doc["runs"]:
            key = f"{doc['id']}:{spec['key']}"
            if self._has_example(runs_table, key):
                continue
            try:
                self._insert_example_run(spec, key, group, doc)
            except sa_exc.IntegrityError:
                continue  # another process loaded it at the same time
        for vol in doc.get("data_volumes", []):
            key = f"{doc['id']}:{vol['key']}"
            if self._has_example(data_volumes_table, key):
                continue
            try:
                self.save_data_volume(draft=vol["draft"], samples=int(vol["samples"]), tokens=vol.get("tokens"),
                                      source=vol.get("source", doc.get("source", "")), kind="example",
                                      example_key=key)
            except sa_exc.IntegrityError:
                continue

    def _has_example(self, table: sa.Table, key: str) -> bool:
        with self._read() as conn:
            return conn.execute(sa.select(table.c.id).where(table.c.example_key == key)).first() is not None

    def _insert_example_run(self, spec: Mapping[str, Any], key: str, group: str, doc: Mapping[str, Any]) -> None:
        summary = dict(spec.get("summary") or {})
        summary.setdefault("requests", 0)
        summary.setdefault("errors", 0)
        notes = {"example": doc.get("description", ""), "source": doc.get("source", ""), **(spec.get("notes") or {})}
        cfg = {"engine": doc.get("engine", "sglang"), "model": doc.get("model"), **(spec.get("server_config") or {})}
        # start_run + finish_run in one transaction so a half-loaded example never shows
        with self._write() as conn:
            row = {
                "created_at": _utcnow(), "endpoint": doc.get("endpoint", "example (no live endpoint)"),
                "engine": str(cfg.get("engine") or "sglang"), "kind": "example", "run_group": group,
                "status": "finished", "example_key": key,
                "speculative_algorithm": cfg.get("speculative_algorithm") or None,
                "draft_model": cfg.get("draft_model") or None, "model": cfg.get("model") or None,
                "engine_version": cfg.get("version"), "num_steps": _int(cfg.get("num_steps")),
                "topk": _int(cfg.get("topk")), "num_draft_tokens": _int(cfg.get("num_draft_tokens")),
                "labels": ["example", *[x for x in spec.get("labels", []) if x != "example"]],
                "server_config": clean(cfg), "params": clean(dict(spec.get("params") or {})),
                "summary": clean(summary), "notes": clean(notes), "finished_at": _utcnow(),
                "requests": _int(summary.get("requests")), "errors": _int(summary.get("errors")),
                "output_tokens_per_s": _num(summary.get("output_tokens_per_s")),
                "accept_length": _num(summary.get("accept_length")),
                "accept_length_mean": _num(summary.get("accept_length_mean")),
            }
            conn.execute(runs_table.insert().values(**row))


def load_example_file(path: Path) -> dict:
    """The example session document, checked enough that a broken file says what is wrong."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read the built-in example {path}: {exc}") from None
    for key in ("id", "group", "runs"):
        if key not in doc:
            raise DataError(f"the built-in example {path} lacks {key!r}")
    return doc


FRAME_COLUMNS = [
    "id", "kind", "group", "status", "engine", "speculative_algorithm", "num_steps", "topk", "num_draft_tokens",
    "output_tokens_per_s", "accept_length", "accept_length_mean", "ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms",
    "tpot_p99_ms", "requests", "errors", "is_baseline", "labels", "draft_model", "model", "endpoint", "created_at",
]


def runs_to_frame(records: Sequence[RunRecord]) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for rec in records:
        row = {c: getattr(rec, c) for c in FRAME_COLUMNS}
        row["labels"] = ", ".join(rec.labels)
        row["created_at"] = _aware(rec.created_at) if isinstance(rec.created_at, datetime) else None
        rows.append(row)
    frame = pd.DataFrame(rows, columns=FRAME_COLUMNS)
    # a real time (UTC), not text or epoch seconds: tables show it as a date, exports as ISO 8601
    frame["created_at"] = pd.to_datetime(frame["created_at"], utc=True)
    for col in ("num_steps", "topk", "num_draft_tokens"):
        frame[col] = frame[col].astype("Int64")
    for col in ("output_tokens_per_s", "accept_length", "accept_length_mean", "ttft_p50_ms", "ttft_p99_ms",
                "tpot_p50_ms", "tpot_p99_ms"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("float64")
    return frame


def speedup(run: RunRecord, baseline: RunRecord) -> float | None:
    """Output tok/s of ``run`` over ``baseline``; None when either lacks a throughput or the baseline is not
    comparable (another model, engine or setting: ``speedup.baseline_mismatch``)."""
    from comparelib.speedup import speedup_against

    return speedup_against(run, baseline)[0]


COMPARE_METRICS = [
    ("output_tokens_per_s", "output tok/s"),
    ("accept_length", "accept length (pooled)"),
    ("accept_length_mean", "accept length (mean)"),
    ("ttft_p50_ms", "TTFT p50 ms"),
    ("ttft_p99_ms", "TTFT p99 ms"),
    ("tpot_p50_ms", "TPOT p50 ms"),
    ("tpot_p99_ms", "TPOT p99 ms"),
    ("requests", "requests"),
    ("errors", "errors"),
]


def comparison_frame(records: Sequence[RunRecord], baseline: RunRecord | None = None) -> pd.DataFrame:
    """Runs side by side (one row per run) with the speedup of each over ``baseline``."""
    import pandas as pd

    from comparelib.speedup import speedup_against

    rows = []
    for rec in records:
        row: dict[str, Any] = {"run": rec.title, "kind": rec.kind, "status": rec.status, "model": rec.model,
                               "num_steps": rec.num_steps}
        for attr, name in COMPARE_METRICS:
            row[name] = getattr(rec, attr)
        if baseline is not None:
            row["speedup"], row["speedup_note"] = speedup_against(rec, baseline)
        else:
            row["speedup"], row["speedup_note"] = None, "no baseline picked"
        rows.append(row)
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame["num_steps"] = frame["num_steps"].astype("Int64")
        frame["speedup"] = pd.to_numeric(frame["speedup"], errors="coerce").astype("float64")
    return frame
