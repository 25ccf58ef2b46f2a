"""The results store on SQLite and PostgreSQL: round trips, crash safety, concurrency, secrets, examples."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from comparelib.analysis.speedup import comparison_frame, speedup_against
from comparelib.errors import StoreError
from comparelib.live.store import (
    FRAME_COLUMNS,
    SCHEMA_VERSION,
    Forgetter,
    Store,
    may_forget_curve,
    requests_to_frame,
)
from comparelib.redact import is_secret_key, strip_url
from tests.fixtures import cli_in_process, run_cli

ROOT = Path(__file__).resolve().parent.parent
PG_ENV = "SPECDRAFT_TEST_PG_URL"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: a temp SQLite file, or a uniquely named PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'db' / 'results.sqlite'}"
        return
    admin_url = os.environ.get(PG_ENV)
    if not admin_url:
        pytest.skip(f"{PG_ENV} is not set (tests/run.sh starts a throwaway PostgreSQL and sets it)")
    name = f"specdraft_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store(store_url)
    yield s
    s.close()


SERVER_CONFIG = {
    "engine": "sglang",
    "version": "0.5.9",
    "model": "moonshotai/Kimi-K2.5",
    "speculative_algorithm": "EAGLE3",
    "draft_model": "/models/draft",
    "num_steps": 3,
    "topk": 1,
    "num_draft_tokens": 4,
    "raw": {
        "api_key": "sk-live-abcdefghijklmnopqrstuvwxyz",
        "speculative_num_steps": 3,
        "max_total_tokens": 8192,
        "nested": {"hf_token": "hf_abcdefghijklmnopqrstuvwxyz0123", "tokenizer_path": "/models/tok"},
    },
}


def _request(i: int, ok: bool = True) -> dict:
    return {
        "index": i,
        "ok": ok,
        "error": None if ok else "HTTP 500",
        "started_at": 1_700_000_000.0 + i,
        "prompt_tokens": 20,
        "output_tokens": 64 if ok else None,
        "ttft_s": 0.05 if ok else None,
        "e2e_s": 0.68 if ok else None,
        "tpot_s": 0.01 if ok else None,
        "n_chunks": 22 if ok else 0,
        "chunk_gaps_s": [0.03] * 21 if ok else [],
        "spec_verify_ct": 21 if ok else None,
        "accept_length": 64 / 21 if ok else None,
    }


SUMMARY = {
    "requests": 3,
    "errors": 1,
    "duration_s": 1.5,
    "output_tokens": 128,
    "output_tokens_per_s": 85.3,
    "request_throughput": 2.0,
    "accept_length": 3.05,
    "accept_length_mean": 3.04,
    "accept_per_position": None,
    "ttft_ms": {"p50": 50.0, "p90": 55.0, "p99": 60.0, "mean": 51.0},
    "tpot_ms": {"p50": 10.0, "p90": 11.0, "p99": 12.5, "mean": 10.2},
    "e2e_ms": {"p50": 680.0, "p99": 700.0},
    "itl_ms": {"p50": 30.0},
}


def test_round_trip(store: Store) -> None:
    rid = store.start_run(
        endpoint="http://127.0.0.1:30000",
        server_config=SERVER_CONFIG,
        labels=["NCCL_PROTO=LL", "3-step"],
        params={"concurrency": 2, "requests": 3, "max_tokens": 64},
        group="sweep-a",
    )
    store.add_snapshot(rid, "before", {"server_info": {"version": "0.5.9"}, "metrics": {"x": 1.0}})
    for i, ok in enumerate([True, False, True]):
        store.add_request(rid, _request(i, ok))
    store.add_snapshot(rid, "after", {"metrics": {"x": 2.0}})
    store.finish_run(rid, SUMMARY)

    rec = store.run(rid)
    assert rec.status == "finished" and rec.kind == "measured" and rec.group == "sweep-a"
    assert (rec.speculative_algorithm, rec.num_steps, rec.topk, rec.num_draft_tokens) == ("EAGLE3", 3, 1, 4)
    assert rec.is_baseline is False
    assert (rec.requests, rec.errors) == (3, 1)
    assert rec.output_tokens_per_s == pytest.approx(85.3)
    assert (rec.ttft_p50_ms, rec.ttft_p99_ms, rec.tpot_p50_ms, rec.tpot_p99_ms) == (50.0, 60.0, 10.0, 12.5)
    assert rec.accept_length == pytest.approx(3.05) and rec.accept_length_mean == pytest.approx(3.04)
    assert rec.params["concurrency"] == 2 and rec.labels == ["NCCL_PROTO=LL", "3-step"]
    assert rec.summary["tpot_ms"]["p90"] == 11.0

    reqs = store.requests(rid)
    assert list(reqs["index"]) == [0, 1, 2]
    assert list(reqs["ok"]) == [True, False, True]
    assert reqs.loc[1, "error"] == "HTTP 500"
    assert reqs.loc[0, "chunk_gaps_s"] == [0.03] * 21
    assert reqs.loc[0, "spec_verify_ct"] == 21

    snaps = store.snapshots(rid)
    assert [s["phase"] for s in snaps] == ["before", "after"]
    assert snaps[1]["payload"]["metrics"]["x"] == 2.0

    frame = store.runs_frame()
    assert list(frame.columns) == FRAME_COLUMNS
    assert all(not isinstance(v, (dict, list)) for v in frame.iloc[0].tolist())
    assert store.groups() == ["sweep-a"]
    assert store.runs(group="nope") == []


def test_dataclass_inputs_are_accepted(store: Store) -> None:
    from dataclasses import dataclass, field

    @dataclass
    class Cfg:
        engine: str = "vllm"
        speculative_algorithm: str | None = None
        raw: dict = field(default_factory=dict)

    @dataclass
    class Req:
        index: int = 0
        ok: bool = True
        error: str | None = None
        output_tokens: int | None = 10
        chunk_gaps_s: list = field(default_factory=lambda: [0.1, float("nan")])

    rid = store.start_run(endpoint="http://h", server_config=Cfg(), labels=[])
    store.add_request(rid, Req())
    rec = store.run(rid)
    assert rec.engine == "vllm" and rec.is_baseline
    assert store.requests(rid).loc[0, "chunk_gaps_s"] == [0.1, None]  # NaN never reaches the JSON column


def test_secrets_are_stripped(store: Store, store_url: str) -> None:
    rid = store.start_run(
        endpoint="http://user:hunter2pass@10.0.0.1:8000/v1?api_key=qqqsecretqqq&x=1",
        server_config=SERVER_CONFIG,
        params={"max_tokens": 64, "authorization": "Bearer abcdef", "token": "t0k3nvalue"},
        notes={"password": "pw-in-notes", "comment": "hf_abcdefghijklmnopqrstuvwxyz0123"},
    )
    store.add_snapshot(rid, "before", {"server_info": {"api_key": "sk-live-abcdefghijklmnopqrstuvwxyz", "port": 1}})
    rec = store.run(rid)
    assert rec.endpoint == "http://10.0.0.1:8000/v1?x=1"
    assert rec.server_config["raw"]["speculative_num_steps"] == 3
    assert rec.server_config["raw"]["max_total_tokens"] == 8192  # token counts are not secrets
    assert rec.server_config["raw"]["nested"] == {"tokenizer_path": "/models/tok"}
    assert rec.params == {"max_tokens": 64}
    assert rec.notes == {"comment": "***"}
    with store.engine.connect() as conn:
        dump = json.dumps(
            [
                [str(v) for v in row]
                for t in ("runs", "snapshots")
                for row in conn.execute(sa.text(f"SELECT * FROM {t}")).all()
            ]
        )
    for secret in ("hunter2pass", "qqqsecretqqq", "sk-live", "hf_abc", "t0k3n", "pw-in-notes", "abcdef"):
        assert secret not in dump


SECRET_KEYS = [
    ("api_key", True),
    ("API-KEY", True),
    ("hf_token", True),
    ("token", True),
    ("access_token", True),
    ("password", True),
    ("Authorization", True),
    ("client_secret", True),
    ("max_tokens", False),
    ("num_draft_tokens", False),
    ("completion_tokens", False),
    ("tokenizer_path", False),
    ("speculative_token_map", False),
    ("eos_token", False),
    ("output_tokens_per_s", False),
]


@pytest.mark.parametrize(("key", "secret"), SECRET_KEYS)
def test_secret_key_rule(key: str, secret: bool) -> None:
    assert is_secret_key(key) is secret


def test_strip_url_keeps_plain_urls() -> None:
    assert strip_url("http://127.0.0.1:30000") == "http://127.0.0.1:30000"
    assert strip_url("https://a:b@host/x?token=zz") == "https://host/x"


def test_examples_load_once_with_only_measured_points(store: Store) -> None:
    store.ensure_examples()
    store.ensure_examples()
    runs = store.runs()
    assert len(runs) == 3
    assert all(r.kind == "example" and "example" in r.labels and r.group == "example-kimi-k2.5" for r in runs)
    assert sorted(r.output_tokens_per_s for r in runs) == [62.9, 88.8, 94.0]
    base, nccl, eagle = sorted(runs, key=lambda r: r.output_tokens_per_s)
    assert base.is_baseline and nccl.is_baseline and not eagle.is_baseline
    assert {"NCCL_PROTO=LL", "NCCL_ALGO=Ring", "NCCL_P2P_LEVEL=SYS"} <= set(nccl.labels)
    assert "NCCL_PROTO=LL" not in base.labels
    assert (eagle.speculative_algorithm, eagle.num_steps, eagle.num_draft_tokens) == ("EAGLE3", 2, 3)
    assert eagle.topk is None  # not recorded in the session
    assert eagle.accept_length == pytest.approx(2.1) and "accept_length" in eagle.notes["approximate"]
    assert eagle.notes["verify_ms"] == [21, 28] and eagle.notes["verify_share_min"] == 0.95
    assert all(r.requests == 0 and r.accept_length_mean is None for r in runs)
    vols = store.data_volumes()
    expected = [("example: own Kimi-K2.5 draft", 37000, "example")]
    assert [(v["draft"], v["samples"], v["kind"]) for v in vols] == expected
    assert store.runs(include_examples=False) == []
    # speedup over the tuned baseline
    assert speedup_against(eagle, nccl) == (pytest.approx(94.0 / 88.8), None)
    frame = comparison_frame([nccl, eagle], baseline=nccl)
    assert list(frame["speedup"].round(4)) == [1.0, round(94.0 / 88.8, 4)]


def test_examples_from_two_processes_load_once(store_url: str) -> None:
    code = (
        "import sys; from comparelib.live.store import Store; s = Store(sys.argv[1]); s.ensure_examples(); print('ok')"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, store_url], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and outs == ["ok\n", "ok\n"]
    s = Store(store_url)
    assert len(s.runs()) == 3 and len(s.data_volumes()) == 1
    s.close()


WRITER = textwrap.dedent(
    """
    import sys
    from comparelib.live.store import Store
    url, n, hold = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "hold"
    store = Store(url)
    rid = store.start_run(endpoint="http://127.0.0.1:1", server_config={"engine": "sglang"}, labels=[sys.argv[4]],
                          params={"requests": n})
    print(rid, flush=True)
    for i in range(n):
        store.add_request(rid, {"index": i, "ok": True, "error": None, "output_tokens": 10 + i, "ttft_s": 0.01,
                                "e2e_s": 0.1, "chunk_gaps_s": [0.01] * 9})
        print(i, flush=True)
    if hold:
        sys.stdin.readline()  # a run still in flight: the test kills us here
    store.finish_run(rid, {"requests": n, "errors": 0, "output_tokens_per_s": 1.0})
    print("done", flush=True)
    """
)


def test_killed_run_keeps_written_requests(store_url: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, store_url, "7", "hold", "killed"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        rid = int(proc.stdout.readline())
        for i in range(7):
            assert int(proc.stdout.readline()) == i  # request i is committed
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    s = Store(store_url)
    rec = s.run(rid)
    assert rec.status == "running"  # never finished: shown as running / incomplete
    assert rec.requests == 7 and rec.errors == 0
    reqs = s.requests(rid)
    assert list(reqs["index"]) == list(range(7))
    assert list(reqs["output_tokens"]) == [10 + i for i in range(7)]
    s.close()


def test_two_runs_in_two_processes(store_url: str) -> None:
    n = 40
    Store(store_url).close()  # schema first, so both writers start on equal terms
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, store_url, str(n), "go", f"p{k}"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for k in range(2)
    ]
    outs = [p.communicate(timeout=180)[0].split() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    s = Store(store_url)
    for out in outs:
        rid = int(out[0])
        assert out[-1] == "done"
        rec = s.run(rid)
        assert rec.status == "finished" and rec.requests == n
        assert sorted(s.requests(rid)["index"]) == list(range(n))
    s.close()


def test_two_runs_in_two_threads(store: Store) -> None:
    n = 60
    barrier = threading.Barrier(2)
    ids: dict[str, int] = {}
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            rid = store.start_run(endpoint="http://127.0.0.1:1", server_config={"engine": "vllm"}, labels=[name])
            ids[name] = rid
            barrier.wait(timeout=30)
            for i in range(n):
                store.add_request(rid, {"index": i, "ok": i % 10 != 0, "error": None if i % 10 else "cut"})
        except BaseException as exc:  # noqa: BLE001 - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(f"t{k}",)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    for rid in ids.values():
        rec = store.run(rid)
        assert (rec.requests, rec.errors, rec.status) == (n, n // 10, "running")
        assert sorted(store.requests(rid)["index"]) == list(range(n))


def test_sqlite_is_wal_and_default_path_is_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "deep" / "home"
    monkeypatch.setenv("SPECDRAFT_HOME", str(home))
    s = Store()
    assert (home / "results.sqlite").exists()
    with s.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
    assert s.schema_version() == SCHEMA_VERSION
    s.close()
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'other.sqlite'}")
    Store().close()
    assert (tmp_path / "other.sqlite").exists()


BAD_URLS = [
    ("not a url", "not a database URL"),
    ("nosuchdialect://u:pw@h/db", "cannot use database URL"),
    ("postgresql+psycopg2://alice:s3cretpw@127.0.0.1:1/db", "cannot open the results database"),
    ("sqlite:////proc/no/such/dir/r.sqlite", "cannot"),
]


@pytest.mark.parametrize(("url", "message"), BAD_URLS)
def test_bad_urls_raise_store_error_without_password(url: str, message: str) -> None:
    with pytest.raises(StoreError) as info:
        Store(url)
    text = str(info.value)
    assert message in text
    assert "s3cretpw" not in text and ":pw@" not in text
    if "127.0.0.1" in url:
        assert "alice:***@127.0.0.1:1" in text


def test_unknown_runs_and_newer_schema(store: Store, store_url: str) -> None:
    with pytest.raises(StoreError, match="no run with id 999"):
        store.run(999)
    with pytest.raises(StoreError, match="run 999 does not exist"):
        store.finish_run(999, SUMMARY)
    with pytest.raises(StoreError, match="run 999 does not exist"):
        store.add_request(999, _request(0))
    with pytest.raises(StoreError, match="unknown run status"):
        store.finish_run(1, SUMMARY, status="weird")
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = :v"), {"v": SCHEMA_VERSION + 1})
    with pytest.raises(StoreError, match="newer than this app understands"):
        Store(store_url)


def test_data_volumes(store: Store) -> None:
    vid = store.save_data_volume(draft="my-draft", samples=120_000, tokens=98_000_000, source="sharegpt+ultrachat")
    vols = store.data_volumes()
    assert vols[0]["id"] == vid and vols[0]["tokens"] == 98_000_000 and vols[0]["kind"] == "measured"
    assert vols[0]["created_at"].tzinfo is not None
    with pytest.raises(StoreError):
        store.save_data_volume(draft="", samples=1)


def _curve_form(n: int = 3, *, positions: int = 3) -> dict:
    """A learning curve in its stored form (``curves.to_stored``): its points, how the log was read, what it said."""
    points = [
        {
            "step": 100 * (i + 1),
            "samples_seen": 3200.0 * (i + 1),
            "split": "train" if i % 2 else "eval",
            "acc": [0.7 + i / 1000, 0.6, 0.5][:positions] + [0.4] * max(0, positions - 3),
            "tau_sim": 2.1 + i / 3,
            "epoch": None if i < n - 1 else 2,
            "logged_acc": [] if i else [0.7, 0.6, 0.5, 0.45],
        }
        for i in range(n)
    ]
    read = {"format": "specforge", "files": 1, "notes": ["The train step counter went back from 9 to 1 at line 4."]}
    return {"points": points, "read": read, "split": "auto", "batch_size": 32.0, "epoch_samples": None, "steps": 3}


def test_learning_curves_round_trip_newest_wins_and_forget(store: Store) -> None:
    """A training log's curve kept with a draft: points, reading and notes come back exactly (SQLite and
    PostgreSQL); the newest kept under a name is the draft's; forgetting drops it and the older ones."""
    assert store.learning_curve("acme/d1") is None
    form = _curve_form(5)
    first = store.save_learning_curve(draft="acme/d1", source="train.log", attached_by="alice", **form)
    got = store.learning_curve("acme/d1")
    assert got is not None and got["id"] == first
    assert got["points"] == form["points"] and got["read"] == form["read"]
    assert (got["split"], got["batch_size"], got["epoch_samples"], got["steps"]) == ("auto", 32.0, None, 3)
    assert (got["draft"], got["source"], got["attached_by"]) == ("acme/d1", "train.log", "alice")
    assert got["created_at"].tzinfo is not None
    # the page's per-run look-up reads no points; the cached curve reads them by id
    meta = store.learning_curve("acme/d1", points=False)
    assert meta is not None and "points" not in meta and meta["id"] == first
    by_id = store.learning_curve_by_id(first)
    assert by_id is not None and by_id["points"] == form["points"]

    second = store.save_learning_curve(draft="acme/d1", source="run2.csv", **_curve_form(4))
    other = store.save_learning_curve(draft="acme/d2", source="d2.log", **_curve_form(6))
    newest = store.learning_curve("acme/d1")
    assert newest is not None and (newest["id"], newest["source"], newest["attached_by"]) == (second, "run2.csv", None)
    assert len(newest["points"]) == 4

    # the operator (no visitor asking) forgetting the one shown also drops older ones, never one kept after it
    third = store.save_learning_curve(draft="acme/d1", source="run3.csv", **_curve_form(5))
    assert store.forget_learning_curve("acme/d1", up_to=second, by=None) == 2
    left = store.learning_curve("acme/d1")
    assert left is not None and left["id"] == third
    assert store.forget_learning_curve("acme/d1", by=None) == 1
    assert store.learning_curve("acme/d1") is None and store.learning_curve_by_id(third) is None
    kept = store.learning_curve("acme/d2")
    assert kept is not None and kept["id"] == other  # another draft's is untouched
    # a new curve never takes a forgotten one's id (the page caches a rebuilt curve by id)
    assert store.save_learning_curve(draft="acme/d1", source="run4.csv", **_curve_form(5)) > third


# the rule: (the kept row's attached_by, the ids this browser session kept, the visitor, sign-in on) -> may forget
_ROW_ID = 7
_OWNER_CASES = [
    ("the session that kept it", "anonymous visitor", {_ROW_ID}, "anonymous visitor", False, True),
    ("the session that kept it, signed in as another", "alice@x.org", {_ROW_ID}, "bob@x.org", True, True),
    ("another anonymous session", "anonymous visitor", set(), "anonymous visitor", False, False),
    ("another session that kept another log", "anonymous visitor", {_ROW_ID + 1}, "anonymous visitor", False, False),
    ("anonymous, though sign-in is on", "anonymous visitor", set(), "anonymous visitor", True, False),
    ("the signed-in keeper, in another session", "alice@x.org", set(), "alice@x.org", True, True),
    ("the keeper's name, but sign-in is off", "alice@x.org", set(), "alice@x.org", False, False),
    ("another signed-in visitor", "alice@x.org", set(), "bob@x.org", True, False),
    ("a visitor whose identity differs only in case", "alice@x.org", set(), "Alice@x.org", True, False),
    ("two accounts with neither email nor name", "signed-in user", set(), "signed-in user", True, False),
    ("a row kept by no one named", None, set(), "alice@x.org", True, False),
    ("an empty identity", "", set(), "", True, False),
]


@pytest.mark.parametrize(
    ("attached_by", "kept_here", "visitor", "login", "may"),
    [case[1:] for case in _OWNER_CASES],
    ids=[case[0] for case in _OWNER_CASES],
)
def test_only_the_keeper_may_forget_a_kept_curve(
    attached_by: str | None, kept_here: set[int], visitor: str, login: bool, may: bool
) -> None:
    row = {"id": _ROW_ID, "draft": "acme/d1", "attached_by": attached_by}
    asker = Forgetter(kept_here=frozenset(kept_here), visitor=visitor, login=login)
    assert may_forget_curve(row, asker) is may


def test_forgetting_a_kept_curve_refuses_others_and_keeps_their_older_ones(store: Store) -> None:
    """A visitor's forget drops only what they kept: another's curve is refused with who kept it, and another's
    older curve under the name stays (and is the draft's again)."""
    alice = store.save_learning_curve(draft="acme/d1", source="a.csv", attached_by="alice@x.org", **_curve_form(5))
    anon = store.save_learning_curve(
        draft="acme/d1", source="b.csv", attached_by="anonymous visitor", **_curve_form(4)
    )
    mine = store.save_learning_curve(draft="acme/d1", source="c.csv", attached_by="bob@x.org", **_curve_form(3))
    bob = Forgetter(kept_here=frozenset(), visitor="bob@x.org", login=True)
    stranger = Forgetter(kept_here=frozenset({mine + 100}), visitor="anonymous visitor", login=False)
    with pytest.raises(StoreError, match=r"kept by bob@x\.org on .* UTC; only the browser session that kept it"):
        store.forget_learning_curve("acme/d1", up_to=mine, by=stranger)
    with pytest.raises(StoreError, match="only the browser session that kept it"):
        store.forget_learning_curve("acme/d1", up_to=anon, by=bob)
    assert store.learning_curve_by_id(mine) is not None and store.learning_curve_by_id(anon) is not None
    # bob forgets his: alice's and the anonymous visitor's older ones stay; the newest of them is the draft's again
    assert store.forget_learning_curve("acme/d1", up_to=mine, by=bob) == 1
    left = store.learning_curve("acme/d1")
    assert left is not None and left["id"] == anon
    # the session that kept the anonymous one forgets it (and alice's older one stays: not that session's)
    assert store.forget_learning_curve("acme/d1", up_to=anon, by=Forgetter(kept_here=frozenset({anon}))) == 1
    left = store.learning_curve("acme/d1")
    assert left is not None and left["id"] == alice
    # one forgotten meanwhile: nothing to refuse, nothing dropped
    assert store.forget_learning_curve("acme/d1", up_to=mine, by=stranger) == 0
    assert store.learning_curve_by_id(alice) is not None


_WIDE_POINT = {
    "step": 10**9,
    "samples_seen": 123456789.123,
    "split": "train",
    "acc": [0.1234567890123456] * 64,
    "tau_sim": 1.1234567890123456,
    "logged_acc": [0.1234567890123456] * 64,
}


def test_learning_curves_table_is_added_to_an_older_database(store_url: str) -> None:
    """A database of schema 2 (before learning curves were kept) gets the table in place, its rows untouched."""
    old = Store(store_url)
    old.save_data_volume(draft="old", samples=7)
    with old.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE learning_curves")
        conn.execute(sa.text("UPDATE schema_version SET version = 2"))
    old.close()
    store = Store(store_url)
    assert store.schema_version() == SCHEMA_VERSION == 3
    cid = store.save_learning_curve(draft="acme/d1", source="train.log", **_curve_form(5))
    row = store.learning_curve("acme/d1")
    assert row is not None and row["id"] == cid
    assert [v["draft"] for v in store.data_volumes()] == ["old"]
    store.close()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"draft": ""}, "needs the draft's name"),
        ({"draft": "x" * 201}, "draft name is 201 characters long"),
        ({"split": "test"}, "split must be auto, train or eval"),
        ({"steps": 0}, "steps must be at least 1"),
        ({"batch_size": -1.0}, "batch_size must be a positive number"),
        ({"points": []}, "has no points"),
        ({"points": [{"step": i} for i in range(8193)]}, "8,193 points; the limit is 8,192"),
        # 64 positions on 8,192 points (every chain position kept twice) is over the size cap: said, not stored
        ({"points": [_WIDE_POINT] * 8192}, r"8,192 points, .* MiB as stored; the limit is 8 MiB"),
    ],
)
def test_learning_curve_refused(store: Store, change: dict, message: str) -> None:
    form = {"draft": "acme/d1", "source": "train.log", **_curve_form(5), **change}
    with pytest.raises(StoreError, match=message):
        store.save_learning_curve(**form)
    assert store.learning_curve("acme/d1") is None


def test_learning_curve_masks_a_token_in_its_names(store: Store) -> None:
    token = "hf_abcdefghijklmnopqrstuvwxyz0123"
    store.save_learning_curve(draft=f"acme/d1 HF_TOKEN={token}", source=f"{token}.log", **_curve_form(5))
    row = store.learning_curve(f"acme/d1 HF_TOKEN={token}")
    assert row is not None and token not in row["draft"] and token not in row["source"]


def test_cli_runs_lists_examples_and_measured(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    s = Store(url)
    rid = s.start_run(endpoint="http://127.0.0.1:9", server_config={"engine": "sglang"}, labels=["mine"], group="g1")
    s.close()
    proc = cli_in_process(capsys, "runs", "--db", url, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    kinds = {r["id"]: r["kind"] for r in data}
    assert kinds[rid] == "measured" and sorted(kinds.values()).count("example") == 3
    assert {r["output_tokens_per_s"] for r in data if r["kind"] == "example"} == {62.9, 88.8, 94.0}
    table = cli_in_process(capsys, "runs", "--db", url)
    assert table.returncode == 0 and "running (incomplete)" in table.stdout and "94.00" in table.stdout
    group = cli_in_process(capsys, "runs", "--db", url, "--group", "g1", "--format", "csv")
    lines = group.stdout.strip().splitlines()
    assert lines[0].startswith("id,kind,group") and len(lines) == 2
    latex = cli_in_process(capsys, "runs", "--db", url, "--format", "latex")
    assert "\\begin{tabular}" in latex.stdout and "88.8" in latex.stdout


def test_cli_runs_bad_db_is_one_line() -> None:
    proc = run_cli("runs", "--db", "postgresql+psycopg2://bob:pw123456@127.0.0.1:1/x")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("error:")
    assert "pw123456" not in proc.stderr


def test_requests_in_display_units() -> None:
    s = Store("sqlite://")
    rid = s.start_run(endpoint="http://127.0.0.1:1", server_config={"engine": "sglang"}, labels=[], params={})
    s.add_request(
        rid,
        {"index": 0, "ok": True, "started_at": 0.0, "ttft_s": 0.012, "e2e_s": 0.25, "chunk_gaps_s": [0.01, 0.03]},
    )
    s.add_request(rid, {"index": 1, "ok": False, "error": "timeout", "chunk_gaps_s": []})
    view = requests_to_frame(s.requests(rid))
    assert "chunk_gaps_s" not in view and "ttft_s" not in view
    first, second = view.iloc[0], view.iloc[1]
    assert first["ttft_ms"] == pytest.approx(12.0) and first["e2e_ms"] == pytest.approx(250.0)
    assert first["mean_chunk_gap_ms"] == pytest.approx(20.0)
    assert str(first["started_at"]) == "1970-01-01 00:00:00+00:00"
    assert math.isnan(second["mean_chunk_gap_ms"]) and math.isnan(second["ttft_ms"])  # missing, never 0
