"""The results store: every benchmark run, its per-request rows and server snapshots.

A SQLite file by default (WAL, busy timeout, one short write transaction per request so a killed
run keeps everything already measured and two runs at once do not step on each other); any
SQLAlchemy URL (PostgreSQL) by setting. Dicts go into JSON columns; what gets charted or filtered
is also kept in flat numeric columns.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.pool import StaticPool

from comparelib import redact, settings
from comparelib.errors import DataError, StoreError
from comparelib.models.registry import algorithm_label, draft_label, speculation_label
from comparelib.values import integer, number, plain, run_param

if TYPE_CHECKING:
    import pandas as pd

SCHEMA_VERSION = 3  # 2: data_volumes.attached_by (who attached a volume; created_at says when); 3: learning_curves
EXAMPLE_FILE = settings.BUILTIN_DIR / "examples" / "kimi_k25_session.json"
KINDS = ("measured", "imported", "example")
STATUSES = ("running", "finished", "failed", "interrupted")

_LOG = logging.getLogger(__name__)
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
    sa.Column("attached_by", sa.Text),
)

learning_curves_table = sa.Table(
    "learning_curves",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("draft", sa.Text, nullable=False, index=True),
    sa.Column("source", sa.Text, nullable=False),  # the log's file name, as uploaded or given
    # how the log was read (``curves.curve``): the curve is rebuilt from its points with these
    sa.Column("split", sa.String(8), nullable=False),
    sa.Column("batch_size", sa.Float),
    sa.Column("epoch_samples", sa.Float),
    sa.Column("steps", sa.Integer),
    sa.Column("points", sa.JSON, nullable=False),  # the curve's points (``curves.to_stored``), never the raw log
    sa.Column("read", sa.JSON, nullable=False),  # what reading the log said (``Curve.stats``: format, notes, ...)
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("attached_by", sa.Text),
    # a forgotten curve's id is never given to a new one: the pages cache a rebuilt curve by its id
    sqlite_autoincrement=True,
)

_REQUEST_FIELDS = (
    "prompt_tokens",
    "output_tokens",
    "ttft_s",
    "e2e_s",
    "tpot_s",
    "n_chunks",
    "spec_verify_ct",
    "accept_length",
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
    # rows in the requests table (``requests`` is the summary's count: an import of a summary has none stored)
    request_rows: int = 0

    @property
    def title(self) -> str:
        """A short human name for pickers: id, kind, spec config, labels. The algorithm is named as every page
        names it (``registry.algorithm_label``): SGLang's NEXTN, reported as EAGLE with the target as draft, reads
        "MTP (NEXTN)", not "EAGLE". ``run_titles`` adds the engine and batch where runs would read alike."""
        return self.titled()

    def titled(self, *, engine: bool = False, batch: bool = False) -> str:
        """``title``, with the run's engine and batch (concurrency, "bs=16" as the sweep chart's legend) before its
        setting where asked: "#4 vllm bs=16 EAGLE-3 steps=3"."""
        algo = None if self.is_baseline else algorithm_label(self)
        spec = "baseline" if self.is_baseline else (algo or "speculative")
        if self.num_steps is not None:
            spec += f" steps={self.num_steps}"
        if self.topk is not None:
            spec += f" topk={self.topk}"
        if self.num_draft_tokens is not None:
            spec += f" ndt={self.num_draft_tokens}"
        tag = " [example]" if self.kind == "example" else (" [imported]" if self.kind == "imported" else "")
        bs = integer(run_param(self, "concurrency")) if batch else None
        name = self.engine if engine and self.engine not in ("", "unknown") else None
        where = "".join(f"{x} " for x in (name, None if bs is None else f"bs={bs}") if x)
        labels = [lab for lab in self.labels if lab != "example"]
        extra = f" ({', '.join(labels)})" if labels else ""
        return f"#{self.id}{tag} {where}{spec}{extra}"

    @property
    def draft(self) -> str:
        """The draft it was served with, as the runs table names it (``registry.draft_label``): "—" for a
        baseline, "MTP (NEXTN)" for the target's own layers, a repo id or folder name."""
        return draft_label(self)


def run_titles(runs: Sequence[RunRecord]) -> dict[int, str]:
    """Each run's ``title`` by id, with every run's engine where two of ``runs`` would read alike but for their id and
    were served by different engines, and every run's batch (concurrency) where two such runs were measured at
    different batches: without them, runs of one draft and setting at batch 1 and 16 read alike in Compare runs
    ("#3 EAGLE-3 steps=3", "#4 EAGLE-3 steps=3"). Said only where needed, so the run column stays narrow enough for
    the comparison's key columns at 1400 px."""
    alike: dict[str, list[RunRecord]] = {}
    for r in runs:
        alike.setdefault(r.title.removeprefix(f"#{r.id}"), []).append(r)

    def differ(value: Callable[[RunRecord], Any]) -> bool:
        return any(len({value(r) for r in rs}) > 1 for rs in alike.values())

    engine = differ(lambda r: r.engine)
    batch = differ(lambda r: integer(run_param(r, "concurrency")))
    return {r.id: r.titled(engine=engine, batch=batch) for r in runs}


# ---------------------------------------------------------------- secrets and JSON hygiene

_SURROGATES = re.compile(r"[\ud800-\udfff]")


def valid_text(value: str) -> str:
    """Text that any database and Streamlit can hold: lone surrogates become U+FFFD, NUL is dropped."""
    if _SURROGATES.search(value):
        value = _SURROGATES.sub("\ufffd", value)
    return value.replace("\x00", "") if "\x00" in value else value


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0/C1 controls (ESC sequences reach terminals), bidi overrides and isolates, line separators."""
MAX_LABEL_CHARS = 100
MAX_LABELS = 32
MAX_GROUP_CHARS = 200  # the column is String(200); PostgreSQL would refuse more
MAX_DRAFT_NAME_CHARS = 200  # a Hub id is at most 96; a local folder's name fits too (every sidebar lists it)
MAX_CURVE_POINTS = 8192  # two splits of curves.MAX_POINTS_PER_SPLIT: what reading a log keeps at most
MAX_CURVE_JSON_BYTES = 8 * 1024 * 1024  # one kept learning curve as stored (typically 0.1-2 MiB)
CURVE_SPLITS = ("auto", "train", "eval")
_MAX_CHARS = {"label": MAX_LABEL_CHARS, "group": MAX_GROUP_CHARS, "draft name": MAX_DRAFT_NAME_CHARS}


def shown_label(value: Any) -> str:
    """A stored label as printed and exported: cut (old rows), controls replaced, secrets masked."""
    text = str(value)
    cut = len(text) > 4 * MAX_LABEL_CHARS
    text = redact.mask_text(_CONTROL.sub("\ufffd", valid_text(text[: 4 * MAX_LABEL_CHARS])))
    return text + "\u2026" if cut else text


def checked_text(value: Any, what: str) -> str:
    """A user-given name (label, group, draft, source) refused unless it is short, plain UTF-8 text."""
    text = str(value)
    limit = _MAX_CHARS.get(what)
    if limit is not None and len(text) > limit:
        raise StoreError(f"{what} is {len(text):,} characters long; the limit is {limit:,}: shorten it")
    if _CONTROL.search(text.replace("\x00", "")):
        typed = ascii(redact.mask_text(text)[:80])  # a token typed with the name is not echoed back
        raise StoreError(f"{what} {typed} holds control characters; retype it with plain characters")
    bad = _SURROGATES.search(text)
    if bad is not None or "\x00" in text:
        shown = redact.mask_text(valid_text(text)).replace("\ufffd", "?")[:80]
        raise StoreError(
            f"{what} {shown!r} is not valid UTF-8 text (it holds undecodable bytes such as 0xff or a "
            f"NUL); retype it with plain characters"
        )
    return text


def draft_name(value: Any) -> str:
    """A draft name as a training volume is stored under it: refused when over MAX_DRAFT_NAME_CHARS or not
    plain text, and a credential typed into it (``mydraft HF_TOKEN=hf_...``) masked, as labels and groups are:
    every session's sidebar lists these names."""
    return redact.mask_text(checked_text(str(value).strip(), "draft name"))


def _decode_text(raw: bytes) -> str:
    """SQLite text_factory: UTF-8, with undecodable bytes shown as U+FFFD instead of failing the query."""
    return raw.decode("utf-8", "replace")


def _tidy(value: Any) -> Any:
    """A value read back from a JSON column with every string made valid text (lone surrogates, NUL)."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list):
        return [_tidy(v) for v in value]
    if isinstance(value, dict):
        return {valid_text(str(k)): _tidy(v) for k, v in value.items()}
    return value


def _loads_json(text: Any) -> Any:
    """JSON column reader that never raises: a corrupt value reads as None, strings come back valid."""
    try:
        return _tidy(json.loads(text))
    except (TypeError, ValueError, RecursionError):
        return None


def _text_or_none(value: Any) -> str | None:
    return None if value is None else valid_text(str(value))


def _when(value: Any) -> datetime | None:
    """A stored timestamp (datetime, or SQLite text in any ISO form); None when unreadable."""
    if isinstance(value, datetime):
        return _aware(value)
    if isinstance(value, str):
        try:
            return _aware(datetime.fromisoformat(value.strip()))
        except ValueError:
            return None
    return None


def clean(value: Any) -> Any:
    """Plain JSON (:func:`comparelib.values.plain`) fit to store: credential keys dropped, strings valid
    UTF-8 text with credentials masked."""
    return _scrubbed(plain(value))


def _scrubbed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _scrubbed(v) for k, v in value.items() if not redact.is_secret_key(k)}
    if isinstance(value, list):
        return [_scrubbed(v) for v in value]
    if isinstance(value, str):
        return redact.redact(valid_text(value))
    return value


def _as_dict(obj: Any) -> dict:
    if obj is None:
        return {}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, Mapping):
        return dict(obj)
    raise DataError(f"expected a dataclass or a mapping, got {type(obj).__name__}")


def _pct(block: Any, *keys: str) -> float | None:
    if not isinstance(block, Mapping):
        return None
    for key in keys:
        if key in block:
            return number(block[key])
    return None


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


# ---------------------------------------------------------------- the store


ANONYMOUS = "anonymous visitor"  # who kept a log, attached a volume, when no one is signed in (app.visitor)
UNNAMED_SIGN_IN = "signed-in user"  # a signed-in visitor whose identity gives neither email nor name (app.visitor)


@dataclasses.dataclass(frozen=True)
class Forgetter:
    """Who asks to forget a kept learning curve, as a page knows them: the ids of the curves their browser session
    kept (``save_learning_curve``'s answers), who they are (app.visitor()) and whether sign-in is on
    (SPECDRAFT_REQUIRE_LOGIN: only then is that an identity, not a name anyone could type)."""

    kept_here: frozenset[int] = frozenset()
    visitor: str | None = None
    login: bool = False


def may_forget_curve(kept: Mapping[str, Any], by: Forgetter) -> bool:
    """Whether ``by`` may forget ``kept`` (a ``learning_curve`` row: id, attached_by): the browser session that kept
    it, or with sign-in on the signed-in visitor whose identity is its attached_by. Not another session, and not the
    names every anonymous or unnamed visitor shares: on a shared dashboard no visitor deletes another's log."""
    if int(kept["id"]) in by.kept_here:
        return True
    who = (by.visitor or "").strip()
    return (
        by.login and bool(who) and who not in (ANONYMOUS, UNNAMED_SIGN_IN) and who == (kept.get("attached_by") or "")
    )


def curve_keepers(kept: Mapping[str, Any], *, login: bool) -> str:
    """Who may forget ``kept`` (``may_forget_curve``), in words: 'the browser session that kept it', and with
    sign-in on its keeper's identity too."""
    who = (kept.get("attached_by") or "").strip()
    if login and who and who not in (ANONYMOUS, UNNAMED_SIGN_IN):
        return f"{who}, signed in, or the browser session that kept it"
    return "the browser session that kept it"


class Store:
    """Runs, requests, snapshots, data volumes and kept learning curves in one SQLAlchemy database."""

    def __init__(self, url: str | None = None) -> None:
        if url is not None and not url.strip():
            raise StoreError(
                "empty database URL; leave it out to use the default, or give e.g. sqlite:///path/results.sqlite"
            )
        raw = url or settings.database_url()
        try:
            parsed = sa.make_url(raw)
        except sa_exc.ArgumentError:
            raise StoreError(
                f"not a database URL: {redact.database_url(raw)!s}; use e.g. sqlite:///path/results.sqlite or "
                "postgresql+psycopg2://user@host/db"
            ) from None
        if parsed.drivername in ("postgresql", "postgres"):
            # SQLAlchemy 2.1 picks psycopg 3 for the plain scheme; the pinned driver is psycopg2
            parsed = parsed.set(drivername="postgresql+psycopg2")
        self.url = parsed
        self.display_url = redact.database_url(parsed)
        self._secrets = redact.url_secrets(parsed)
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
        kwargs["json_deserializer"] = _loads_json
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
        return redact.mask_text(text, *getattr(self, "_secrets", ()))[:300]

    def _setup_sqlite(self) -> None:
        @event.listens_for(self.engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (IMMEDIATE for writes)
            # Text written by another tool may hold bytes that are not UTF-8: read it, never fail on it.
            dbapi_conn.text_factory = _decode_text
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
                    elif row.version < SCHEMA_VERSION:
                        self._migrate(conn, int(row.version))
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

    @staticmethod
    def _migrate(conn: sa.Connection, version: int) -> None:
        """Bring an older database up to SCHEMA_VERSION in place (inside the schema transaction)."""
        columns = {c["name"] for c in sa.inspect(conn).get_columns("data_volumes")}
        if "attached_by" not in columns:
            conn.execute(sa.text("ALTER TABLE data_volumes ADD COLUMN attached_by TEXT"))
        conn.execute(schema_version.update().where(schema_version.c.id == 1).values(version=SCHEMA_VERSION))

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
        # secrets typed into a label (--api-key sk-..., HF_TOKEN=hf_...) are masked like server_info
        label_list = [redact.mask_text(checked_text(x, "label").strip()) for x in labels if str(x).strip()]
        if len(label_list) > MAX_LABELS:
            raise StoreError(f"{len(label_list)} labels given; the limit is {MAX_LABELS}")
        if group is not None:
            group = redact.mask_text(checked_text(group, "group"))
        if kind == "example" and "example" not in label_list:
            label_list.insert(0, "example")
        spec = cfg.get("speculative_algorithm") or None
        row = {
            "created_at": _aware(created_at) or _utcnow(),
            "endpoint": redact.strip_url(valid_text(str(endpoint or ""))),
            "engine": str(cfg.get("engine") or "unknown"),
            "kind": kind,
            "run_group": (group or None),
            "status": status,
            "example_key": example_key,
            "speculative_algorithm": str(spec) if spec else None,
            "draft_model": cfg.get("draft_model") or None,
            "model": cfg.get("model") or None,
            "engine_version": (str(cfg["version"]) if cfg.get("version") is not None else None),
            "num_steps": integer(cfg.get("num_steps")),
            "topk": integer(cfg.get("topk")),
            "num_draft_tokens": integer(cfg.get("num_draft_tokens")),
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
        extra = {
            k: v
            for k, v in data.items()
            if k not in {"index", "ok", "error", "started_at", "chunk_gaps_s", *_REQUEST_FIELDS}
        }
        row = {
            "run_id": int(run_id),
            "idx": int(data.get("index", 0) or 0),
            "ok": bool(data.get("ok", False)),
            "error": (valid_text(redact.mask_text(data["error"]))[:2000] if data.get("error") else None),
            "started_at": number(data.get("started_at")),
            "prompt_tokens": integer(data.get("prompt_tokens")),
            "output_tokens": integer(data.get("output_tokens")),
            "ttft_s": number(data.get("ttft_s")),
            "e2e_s": number(data.get("e2e_s")),
            "tpot_s": number(data.get("tpot_s")),
            "n_chunks": integer(data.get("n_chunks")),
            "spec_verify_ct": integer(data.get("spec_verify_ct")),
            "accept_length": number(data.get("accept_length")),
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
            rows.append(
                {
                    "run_id": int(run_id),
                    "idx": int(data.get("index", 0) or 0),
                    "ok": bool(data.get("ok", False)),
                    "error": (valid_text(redact.mask_text(data["error"]))[:2000] if data.get("error") else None),
                    "started_at": number(data.get("started_at")),
                    **{
                        f: (
                            integer(data.get(f))
                            if f in {"prompt_tokens", "output_tokens", "n_chunks", "spec_verify_ct"}
                            else number(data.get(f))
                        )
                        for f in _REQUEST_FIELDS
                    },
                    "chunk_gaps_s": clean(list(data.get("chunk_gaps_s") or [])),
                    "extra": None,
                }
            )
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
            "requests": integer(data.get("requests")),
            "errors": integer(data.get("errors")),
            "duration_s": number(data.get("duration_s")),
            "output_tokens": integer(data.get("output_tokens")),
            "output_tokens_per_s": number(data.get("output_tokens_per_s")),
            "request_throughput": number(data.get("request_throughput")),
            "accept_length": number(data.get("accept_length")),
            "accept_length_mean": number(data.get("accept_length_mean")),
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
        counts_q = sa.select(
            requests_table.c.run_id,
            sa.func.count().label("n"),
            sa.func.sum(sa.case((requests_table.c.ok.is_(False), 1), else_=0)).label("n_err"),
        )
        if where is not None:  # count only the chosen runs' requests (run_id is indexed), not the whole table
            counts_q = counts_q.where(requests_table.c.run_id.in_(sa.select(runs_table.c.id).where(where)))
        counts = counts_q.group_by(requests_table.c.run_id).subquery()
        # Timestamps come back as the driver gives them and are parsed here, so one unreadable value
        # (a row written by another tool) cannot fail the whole query.
        cols = [
            c if c.name not in ("created_at", "finished_at") else sa.type_coerce(c, sa.Text).label(c.name)
            for c in runs_table.c
        ]
        query = sa.select(*cols, counts.c.n, counts.c.n_err).outerjoin(counts, counts.c.run_id == runs_table.c.id)
        if where is not None:
            query = query.where(where)
        query = query.order_by(runs_table.c.id)
        with self._read() as conn:
            rows = conn.execute(query).mappings().all()
        records = []
        for r in rows:
            try:
                records.append(self._record(dict(r)))
            except Exception:  # noqa: BLE001 - one bad row must never break a page or `runs`
                _LOG.warning(
                    "skipping unreadable run row %r in %s:\n%s", r.get("id"), self.display_url, redact.traceback_text()
                )
        return records

    @staticmethod
    def _record(r: Mapping[str, Any]) -> RunRecord:
        # a run still "running" (or killed) has no summary yet: count what was written
        stored_requests, stored_errors = integer(r["requests"]), integer(r["errors"])
        requests = stored_requests if stored_requests is not None else int(r["n"] or 0)
        errors = stored_errors if stored_errors is not None else int(r["n_err"] or 0)
        raw_labels = r["labels"]
        labels = (
            [shown_label(x) for x in raw_labels[:MAX_LABELS]]
            if isinstance(raw_labels, list)
            else [shown_label(raw_labels)]
            if isinstance(raw_labels, str)
            else []
        )
        algo = _text_or_none(r["speculative_algorithm"]) or None

        def as_dict(value: Any) -> dict:
            return dict(value) if isinstance(value, Mapping) else {}

        return RunRecord(
            id=int(r["id"]),
            created_at=_when(r["created_at"]),  # type: ignore[arg-type]
            endpoint=_text_or_none(r["endpoint"]) or "",
            engine=_text_or_none(r["engine"]) or "unknown",
            kind=_text_or_none(r["kind"]) or "measured",
            group=shown_label(r["run_group"]) if _text_or_none(r["run_group"]) else None,
            labels=labels,
            status=_text_or_none(r["status"]) or "running",
            speculative_algorithm=algo,
            draft_model=_text_or_none(r["draft_model"]),
            model=_text_or_none(r["model"]),
            num_steps=integer(r["num_steps"]),
            topk=integer(r["topk"]),
            num_draft_tokens=integer(r["num_draft_tokens"]),
            is_baseline=algo is None,
            requests=int(requests),
            errors=int(errors),
            output_tokens_per_s=number(r["output_tokens_per_s"]),
            accept_length=number(r["accept_length"]),
            accept_length_mean=number(r["accept_length_mean"]),
            ttft_p50_ms=number(r["ttft_p50_ms"]),
            ttft_p99_ms=number(r["ttft_p99_ms"]),
            tpot_p50_ms=number(r["tpot_p50_ms"]),
            tpot_p99_ms=number(r["tpot_p99_ms"]),
            summary=as_dict(r["summary"]),
            server_config=as_dict(r["server_config"]),
            params=as_dict(r["params"]),
            notes=as_dict(r["notes"]),
            request_rows=int(r["n"] or 0),
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
        query = (
            sa.select(cols.phase, sa.type_coerce(cols.created_at, sa.Text).label("created_at"), cols.payload)
            .where(cols.run_id == int(run_id))
            .order_by(cols.id)
        )
        with self._read() as conn:
            return [
                {
                    "phase": _text_or_none(r["phase"]),
                    "created_at": _when(r["created_at"]),
                    "payload": dict(r["payload"]) if isinstance(r["payload"], Mapping) else {},
                }
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
        ints = {"prompt_tokens", "output_tokens", "n_chunks", "spec_verify_ct"}
        data = [
            {
                "index": integer(r["idx"]),
                "ok": bool(r["ok"]),
                "error": _text_or_none(r["error"]),
                "started_at": number(r["started_at"]),
                **{f: (integer(r[f]) if f in ints else number(r[f])) for f in _REQUEST_FIELDS},
                "chunk_gaps_s": [number(g) for g in r["chunk_gaps_s"]] if isinstance(r["chunk_gaps_s"], list) else [],
            }
            for r in rows
        ]
        return pd.DataFrame(data, columns=columns)

    def groups(self) -> list[str]:
        query = sa.select(runs_table.c.run_group).where(runs_table.c.run_group.is_not(None)).distinct()
        with self._read() as conn:
            return sorted({valid_text(str(g)) for g in conn.execute(query).scalars()})

    def runs_frame(self, **kw: Any) -> pd.DataFrame:
        """One row per run, flat columns only: the table the page, the CLI and exports show."""
        return runs_to_frame(self.runs(**kw))

    # -- data volumes

    def save_data_volume(
        self,
        *,
        draft: str,
        samples: int,
        tokens: int | None = None,
        source: str = "",
        kind: str = "measured",
        example_key: str | None = None,
        attached_by: str | None = None,
    ) -> int:
        """Attach a training volume to a draft: a new row per attach (source, who, when), never an overwrite.

        A published draft keeps its published figure; attached volumes are shown beside it
        (comparison.table).
        """
        if not str(draft).strip():
            raise StoreError("a data volume needs the draft's name")
        draft = draft_name(draft)
        source = redact.mask_text(checked_text(source or "", "source"))
        attached_by = checked_text(attached_by, "attached by") if attached_by else None
        if int(samples) < 0 or (tokens is not None and int(tokens) < 0):
            raise StoreError("samples and tokens must be zero or more")
        with self._write() as conn:
            result = conn.execute(
                data_volumes_table.insert()
                .values(
                    draft=str(draft),
                    samples=int(samples),
                    tokens=None if tokens is None else int(tokens),
                    source=str(source or ""),
                    kind=kind,
                    example_key=example_key,
                    created_at=_utcnow(),
                    attached_by=attached_by,
                )
                .returning(data_volumes_table.c.id)
            )
            return int(result.scalar_one())

    def data_volumes(self) -> list[dict]:
        """Every attached volume (oldest first): draft, samples, tokens, source, kind, who and when."""
        cols = data_volumes_table.c
        query = sa.select(
            cols.id,
            cols.draft,
            cols.samples,
            cols.tokens,
            cols.source,
            cols.kind,
            sa.type_coerce(cols.created_at, sa.Text).label("created_at"),
            cols.attached_by,
        )
        with self._read() as conn:
            raw = [dict(r) for r in conn.execute(query.order_by(cols.id)).mappings()]
        rows = []
        for row in raw:
            samples = integer(row["samples"])
            if row["draft"] is None or samples is None:
                continue  # unreadable row: skipped, never an error on the pages that list volumes
            rows.append(
                {
                    "id": int(row["id"]),
                    "draft": shown_label(row["draft"]),  # rows from before the cap and the masking, cleaned
                    "samples": samples,
                    "tokens": integer(row["tokens"]),
                    "source": _text_or_none(row["source"]) or "",
                    "kind": _text_or_none(row["kind"]) or "measured",
                    "created_at": _when(row["created_at"]),
                    "attached_by": _text_or_none(row["attached_by"]),
                }
            )
        return rows

    # -- learning curves kept with a draft

    def save_learning_curve(
        self,
        *,
        draft: str,
        points: Sequence[Mapping[str, Any]],
        read: Mapping[str, Any] | None = None,
        split: str = "auto",
        batch_size: float | None = None,
        epoch_samples: float | None = None,
        steps: int | None = None,
        source: str = "",
        attached_by: str | None = None,
    ) -> int:
        """Keep a training log's learning curve with a draft (``curves.to_stored`` gives every argument but the
        draft's name, the log's file name and who kept it): a new row per keep, the newest under a name being the
        draft's (``learning_curve``). Its points, never the log, and at most MAX_CURVE_POINTS of them in
        MAX_CURVE_JSON_BYTES."""
        if not str(draft).strip():
            raise StoreError("a learning curve needs the draft's name")
        draft = draft_name(draft)
        source = redact.mask_text(checked_text(source or "", "source"))
        attached_by = checked_text(attached_by, "attached by") if attached_by else None
        if split not in CURVE_SPLITS:
            raise StoreError(f"a learning curve's split must be auto, train or eval, got {split!r}")
        if steps is not None and int(steps) < 1:
            raise StoreError(f"a learning curve's steps must be at least 1, got {steps}")
        for name, value in (("batch_size", batch_size), ("epoch_samples", epoch_samples)):
            if value is not None and not (number(value) is not None and 0 < float(value) < float("inf")):
                raise StoreError(f"a learning curve's {name} must be a positive number, got {value!r}")
        if not points:
            raise StoreError(f"the learning curve for {draft} has no points: nothing to keep")
        if len(points) > MAX_CURVE_POINTS:
            raise StoreError(
                f"the learning curve for {draft} has {len(points):,} points; the limit is {MAX_CURVE_POINTS:,} "
                "(reading a log keeps at most that many)"
            )
        stored_points, stored_read = clean(list(points)), clean(dict(read or {}))
        size = len(json.dumps(stored_points, separators=(",", ":"))) + len(json.dumps(stored_read))
        if size > MAX_CURVE_JSON_BYTES:
            raise StoreError(
                f"the learning curve for {draft} ({len(points):,} points, {size / 2**20:,.1f} MiB as stored; the "
                f"limit is {MAX_CURVE_JSON_BYTES // 2**20} MiB) is too large to keep: its points carry many chain "
                "positions; a log of fewer positions or fewer logged points fits"
            )
        with self._write() as conn:
            result = conn.execute(
                learning_curves_table.insert()
                .values(
                    draft=draft,
                    source=source,
                    split=split,
                    batch_size=None if batch_size is None else float(batch_size),
                    epoch_samples=None if epoch_samples is None else float(epoch_samples),
                    steps=None if steps is None else int(steps),
                    points=stored_points,
                    read=stored_read,
                    created_at=_utcnow(),
                    attached_by=attached_by,
                )
                .returning(learning_curves_table.c.id)
            )
            return int(result.scalar_one())

    def learning_curve(self, draft: str, *, points: bool = True) -> dict[str, Any] | None:
        """The learning curve kept with ``draft`` (the newest stored under its name), None when none is:
        id, draft, source (the log's file name), split, batch_size, epoch_samples, steps, created_at, attached_by,
        and with ``points`` its points and ``read`` (left out otherwise: a cheap look-up, once per page run)."""
        try:
            name = draft_name(draft)
        except StoreError:
            return None  # a name that could never be stored has nothing kept
        return self._learning_curve(learning_curves_table.c.draft == name, points=points)

    def learning_curve_by_id(self, curve_id: int) -> dict[str, Any] | None:
        """One kept learning curve with its points, None when it was forgotten."""
        return self._learning_curve(learning_curves_table.c.id == int(curve_id), points=True)

    def _learning_curve(self, where: Any, *, points: bool) -> dict[str, Any] | None:
        cols = learning_curves_table.c
        chosen = [
            cols.id,
            cols.draft,
            cols.source,
            cols.split,
            cols.batch_size,
            cols.epoch_samples,
            cols.steps,
            sa.type_coerce(cols.created_at, sa.Text).label("created_at"),
            cols.attached_by,
        ]
        if points:
            chosen += [cols.points, cols.read]
        query = sa.select(*chosen).where(where).order_by(cols.id.desc()).limit(1)
        with self._read() as conn:
            row = conn.execute(query).mappings().first()
        if row is None:
            return None
        split = _text_or_none(row["split"])
        out: dict[str, Any] = {
            "id": int(row["id"]),
            "draft": shown_label(row["draft"]),
            "source": _text_or_none(row["source"]) or "",
            "split": split if split in CURVE_SPLITS else "auto",
            "batch_size": number(row["batch_size"]),
            "epoch_samples": number(row["epoch_samples"]),
            "steps": integer(row["steps"]),
            "created_at": _when(row["created_at"]),
            "attached_by": _text_or_none(row["attached_by"]),
        }
        if points:  # unreadable JSON reads as None (``_loads_json``): ``curves.from_stored`` says so
            out["points"] = row["points"] if isinstance(row["points"], list) else None
            out["read"] = dict(row["read"]) if isinstance(row["read"], Mapping) else {}
        return out

    def forget_learning_curve(self, draft: str, *, by: Forgetter | None, up_to: int | None = None) -> int:
        """Drop the learning curves kept with ``draft``: those up to id ``up_to`` (the one a page showed, and
        the older ones), all when None; one kept after it meanwhile stays. How many were dropped.

        ``by``: the visitor asking (a page). The curve at ``up_to`` (else the newest) must be theirs
        (``may_forget_curve``), StoreError otherwise, and of the older ones only theirs are dropped: another's
        stays, and is the draft's again. None: the operator (no page), every one."""
        try:
            name = draft_name(draft)
        except StoreError:
            return 0
        cols = learning_curves_table.c
        cond = cols.draft == name
        if up_to is not None:
            cond = sa.and_(cond, cols.id <= int(up_to))
        with self._write() as conn:
            if by is None:
                return int(conn.execute(learning_curves_table.delete().where(cond)).rowcount or 0)
            query = sa.select(cols.id, sa.type_coerce(cols.created_at, sa.Text).label("created_at"), cols.attached_by)
            rows = [dict(r) for r in conn.execute(query.where(cond).order_by(cols.id.desc())).mappings()]
            for row in rows:
                row["attached_by"] = _text_or_none(row["attached_by"])
            shown = rows[0] if rows and (up_to is None or int(rows[0]["id"]) == int(up_to)) else None
            if shown is not None and not may_forget_curve(shown, by):
                when = _when(shown["created_at"])
                raise StoreError(
                    f"the training log kept with {shown_label(name)} was kept by "
                    f"{shown['attached_by'] or 'an unnamed visitor'}"
                    + (f" on {when.astimezone(UTC):%Y-%m-%d %H:%M} UTC" if when is not None else "")
                    + f"; only {curve_keepers(shown, login=by.login)} can forget it"
                )
            ids = [int(row["id"]) for row in rows if may_forget_curve(row, by)]
            if not ids:
                return 0
            return int(conn.execute(learning_curves_table.delete().where(cols.id.in_(ids))).rowcount or 0)

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
                self.save_data_volume(
                    draft=vol["draft"],
                    samples=int(vol["samples"]),
                    tokens=vol.get("tokens"),
                    source=vol.get("source", doc.get("source", "")),
                    kind="example",
                    example_key=key,
                )
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
                "created_at": _utcnow(),
                "endpoint": doc.get("endpoint", "example (no live endpoint)"),
                "engine": str(cfg.get("engine") or "sglang"),
                "kind": "example",
                "run_group": group,
                "status": "finished",
                "example_key": key,
                "speculative_algorithm": cfg.get("speculative_algorithm") or None,
                "draft_model": cfg.get("draft_model") or None,
                "model": cfg.get("model") or None,
                "engine_version": cfg.get("version"),
                "num_steps": integer(cfg.get("num_steps")),
                "topk": integer(cfg.get("topk")),
                "num_draft_tokens": integer(cfg.get("num_draft_tokens")),
                "labels": ["example", *[x for x in spec.get("labels", []) if x != "example"]],
                "server_config": clean(cfg),
                "params": clean(dict(spec.get("params") or {})),
                "summary": clean(summary),
                "notes": clean(notes),
                "finished_at": _utcnow(),
                "requests": integer(summary.get("requests")),
                "errors": integer(summary.get("errors")),
                "output_tokens_per_s": number(summary.get("output_tokens_per_s")),
                "accept_length": number(summary.get("accept_length")),
                "accept_length_mean": number(summary.get("accept_length_mean")),
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
    "id",
    "kind",
    "group",
    "status",
    "engine",
    "batch",  # the benchmark's concurrency: runs of one draft at batch 1 and 16 are otherwise alike
    "speculative_algorithm",
    "draft",  # RunRecord.draft: a published draft's runs beside yours are told apart
    "num_steps",
    "topk",
    "num_draft_tokens",
    "output_tokens_per_s",
    "accept_length",
    "accept_length_mean",
    "ttft_p50_ms",
    "ttft_p99_ms",
    "tpot_p50_ms",
    "tpot_p99_ms",
    "requests",
    "errors",
    "is_baseline",
    "labels",
    "draft_model",
    "model",
    "endpoint",
    "created_at",
]


def requests_to_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """One run's stored requests in display units: UTC start times, milliseconds, the mean chunk gap. A run
    without a failed request has no error column (an empty one took the width the timings need)."""
    import pandas as pd

    out = frame.drop(columns=["chunk_gaps_s"]).copy()
    if "error" in out and not out["error"].fillna("").astype(str).str.strip().any():
        out = out.drop(columns=["error"])
    out["started_at"] = pd.to_datetime(pd.to_numeric(out["started_at"], errors="coerce"), unit="s", utc=True)
    for col in ("ttft_s", "e2e_s", "tpot_s"):
        out[col.replace("_s", "_ms")] = pd.to_numeric(out.pop(col), errors="coerce") * 1000.0
    out["mean_chunk_gap_ms"] = [
        (sum(g for g in gaps if g is not None) / len(gaps) * 1000.0) if gaps else None
        for gaps in frame["chunk_gaps_s"]
    ]
    return out


def runs_to_frame(records: Sequence[RunRecord]) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for rec in records:
        row = {c: getattr(rec, c) for c in FRAME_COLUMNS if c != "batch"}
        row["batch"] = integer(run_param(rec, "concurrency"))
        row["labels"] = ", ".join(rec.labels)
        row["speculative_algorithm"] = speculation_label(rec)  # "unknown" (vLLM's): what is known instead
        # a built-in example was measured by hand on a day not recorded: its row's insertion time is not a
        # run date, so none is shown (never "today")
        row["created_at"] = (
            _aware(rec.created_at) if isinstance(rec.created_at, datetime) and rec.kind != "example" else None
        )
        rows.append(row)
    frame = pd.DataFrame(rows, columns=FRAME_COLUMNS)
    # a real time (UTC), not text or epoch seconds: tables show it as a date, exports as ISO 8601
    frame["created_at"] = pd.to_datetime(frame["created_at"], utc=True)
    for col in ("batch", "num_steps", "topk", "num_draft_tokens"):
        frame[col] = frame[col].astype("Int64")
    for col in (
        "output_tokens_per_s",
        "accept_length",
        "accept_length_mean",
        "ttft_p50_ms",
        "ttft_p99_ms",
        "tpot_p50_ms",
        "tpot_p99_ms",
    ):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("float64")
    return frame
