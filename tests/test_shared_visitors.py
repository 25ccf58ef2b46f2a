"""Visitors of one shared dashboard (``SPECDRAFT_DATA_ROOT`` set, every visitor untrusted) cannot reach each
other's uploads or secrets: typed paths against the uploads folder, the learning curve's shared cache key,
draft names typed on the audit page, imported result files, endpoint credentials and links out of the root.
Pages are driven as two browser sessions (two AppTests); the library through the same functions they call.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import uploadgate  # noqa: F401 - tells comparelib.paths which browser session is asking, as app.py does
from comparelib import paths
from comparelib.errors import BenchError, CompareError, DataError, StoreError
from comparelib.live import importers
from comparelib.live.store import MAX_DRAFT_NAME_CHARS, Store
from tests.fixtures import page_app
from tests.tokenizer_fixture import build_tokenizer

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "hf_Sentinel9SecretToken"
UPLOADS_WORDS = "uploads folder"


def texts(at: AppTest) -> str:
    return "\n".join(
        str(getattr(el, "value", "")) for kind in ("error", "warning", "success", "caption") for el in at.get(kind)
    )


def errors(at: AppTest) -> str:
    return "\n".join(e.value for e in at.error)


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(folder))
    monkeypatch.setattr(paths, "_ISSUED", {})
    return folder


def as_session(monkeypatch: pytest.MonkeyPatch, session: str | None) -> None:
    """Run what follows as browser session ``session`` (None: no session, as the CLI or a worker thread)."""
    monkeypatch.setattr(paths, "_SESSION", [lambda: session])


def tensorboard_log(folder: Path) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(log_dir=str(folder))
    for step in range(50, 1001, 50):
        for i in range(3):
            w.add_scalar(f"train/acc_{i}", 0.9 - 0.5 * (step / 50) ** -0.4, global_step=step)
    w.close()
    return next(folder.glob("*tfevents*"))


def curve_table(at: AppTest) -> Any:
    return next((d.value for d in at.dataframe if "tau_sim" in d.value.columns), None)


def scaling_page() -> AppTest:
    at = page_app("../pages/scaling.py", timeout=120)
    at.session_state["sc_tab"] = "Learning curve"  # built only while shown
    at.session_state["lc_evidence_open"] = True  # the curve's points are built when this fold-out is opened
    return at.run()


# ------------------------------------------------------------------ 1. typed paths never reach the uploads


def test_a_second_session_cannot_read_an_uploaded_training_log(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice uploads a TensorBoard log; Bob types the uploads folder, her upload's folder, its exact path or the
    data root itself (whose walk meets it) and reads none of it. Alice's own upload still gives her curve."""
    running = ["alice"]  # every AppTest has one session id: the test says whose page is running
    monkeypatch.setattr(paths, "_SESSION", [lambda: running[0]])
    events = tensorboard_log(tmp_path / "runs")
    alice = scaling_page()
    alice.file_uploader[0].set_value((events.name, events.read_bytes(), "application/octet-stream"))
    alice.run()
    assert not alice.exception and not alice.error, errors(alice)
    assert curve_table(alice) is not None and len(curve_table(alice)) == 20
    kept = next((root / "uploads").rglob("*tfevents*"))

    running[0] = "bob"
    bob = scaling_page()
    rel = kept.relative_to(root)
    for typed in ("uploads", str(rel.parent), str(rel), str(kept)):
        bob.text_input(key="lc_path").set_value(typed).run()
        assert not bob.exception, (typed, bob.exception)
        assert UPLOADS_WORDS in errors(bob), (typed, texts(bob))
        assert curve_table(bob) is None, typed  # nothing read, nothing served from Alice's cached curve
    # the data root's walk never enters the uploads: not for Alice either, so her typed "." caches nothing of
    # hers that Bob's "." could be served (the walk's result is cached for every session by path and stamp)
    running[0] = "alice"
    alice.text_input(key="lc_path").set_value(".").run()
    assert not alice.exception, alice.exception
    running[0] = "bob"
    bob.text_input(key="lc_path").set_value(".").run()
    assert not bob.exception, bob.exception
    assert "without TensorBoard event files" in errors(bob), texts(bob)
    assert curve_table(bob) is None


def _alice_uploads(monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A dataset upload (streamed) and a training-log upload (kept per content) saved for session alice."""
    as_session(monkeypatch, "alice")
    row = {"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello there"}]}
    data = paths.save_upload(io.BytesIO((json.dumps(row) + "\n").encode()), "private.jsonl")
    log = paths.keep_upload(b"", "events.out.tfevents.1.host")
    return data, log


def _read_dataset(p: str) -> object:
    from comparelib.audit.sources import open_source

    return open_source(p)


def _read_log(p: str) -> object:
    from comparelib.analysis import curves

    return curves.curve([p])


def _read_dumps(p: str) -> object:
    from comparelib.audit import dumps

    return dumps.discover_dump_files(p)


def _read_prompts(p: str) -> object:
    from comparelib.live import prompts

    return prompts.load_prompts(p)


READERS: list[tuple[str, Callable[[str], object]]] = [
    ("dataset", _read_dataset),
    ("training log", _read_log),
    ("dump folder", _read_dumps),
    ("prompt file", _read_prompts),
]


@pytest.mark.parametrize(("what", "read"), READERS, ids=[r[0] for r in READERS])
def test_typed_paths_into_the_uploads_folder_are_refused(
    root: Path, monkeypatch: pytest.MonkeyPatch, what: str, read: Callable[[str], object]
) -> None:
    data, log = _alice_uploads(monkeypatch)
    as_session(monkeypatch, "bob")
    typed = ["uploads", "uploads/", str(root / "uploads"), str(data.parent.relative_to(root))]
    typed += [str(f.relative_to(root)) for f in (data, log)] + [str(data), str(log)]
    for text in typed:
        with pytest.raises(paths.LocalPathRefusedError, match=UPLOADS_WORDS):
            read(text)
    # a folder above the uploads is read without them, for every session (its result is shared)
    for who in ("alice", "bob"):
        as_session(monkeypatch, who)
        try:
            said = repr(read("."))
        except CompareError as exc:
            said = str(exc)
        assert UPLOADS_WORDS not in said and "private.jsonl" not in said and "tfevents.1.host" not in said, said
    as_session(monkeypatch, "bob")
    # no session (the CLI, a worker thread, a Ray worker): the folders stay refused, an upload's exact path reads
    as_session(monkeypatch, None)
    for text in ("uploads", str(data.parent)):
        with pytest.raises(paths.LocalPathRefusedError, match=UPLOADS_WORDS):
            read(text)


def test_each_session_reads_only_its_own_uploads(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, log = _alice_uploads(monkeypatch)
    assert paths.resolve_user_path(str(data)) == data.resolve()  # alice, as her upload widget passes it on
    assert paths.resolve_user_path(str(log)) == log.resolve()
    as_session(monkeypatch, "bob")
    same = paths.keep_upload(b"", "events.out.tfevents.1.host")  # the same bytes: one file, now Bob's too
    assert same == log and paths.resolve_user_path(str(log)) == log.resolve()
    with pytest.raises(paths.LocalPathRefusedError, match=UPLOADS_WORDS):
        paths.resolve_user_path(str(data))
    with pytest.raises(paths.LocalPathRefusedError, match=UPLOADS_WORDS):
        paths.member(data, "dataset file")  # met inside a folder: the same check
    as_session(monkeypatch, "alice")
    paths.discard_upload(data)  # used: deleted, and no longer Alice's to read either
    assert not data.exists() and str(data.resolve()) not in paths._ISSUED
    as_session(monkeypatch, None)
    assert paths.resolve_user_path(str(log)) == log.resolve()  # a worker reads the file its session passed on


def test_an_uploaded_dataset_is_still_audited_on_the_page(root: Path, tmp_path: Path) -> None:
    tok = build_tokenizer(root / "tok")
    row = {"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello there"}]}
    at = page_app("../pages/audit.py", timeout=60).run()
    at.file_uploader(key="audit_upload").set_value(
        ("mine.jsonl", ((json.dumps(row) + "\n") * 3).encode(), "application/json")
    )
    at.text_input(key="audit_tokenizer").set_value(str(tok.relative_to(root)))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, errors(at)
    assert next(m.value for m in at.metric if m.label == "Samples") == "3"
    assert not [p for p in (root / "uploads").rglob("*") if p.is_file()]  # deleted once audited


def test_a_typed_prompt_path_into_the_uploads_is_refused_on_the_page(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, _log = _alice_uploads(monkeypatch)
    monkeypatch.setattr(paths, "_SESSION", [uploadgate._reading_session])  # the page's own session from here on
    at = page_app("../pages/bench.py", timeout=60)
    at.session_state["bench_form_open"] = True
    at.run()
    at.radio(key="bench_prompt_source").set_value("dataset file").run()
    at.text_input(key="bench_prompt_path").set_value(str(data.relative_to(root)))
    at.text_input(key="bench_endpoint").set_value("http://127.0.0.1:1")
    at.button(key="bench_run").click().run()
    assert not at.exception, at.exception
    assert UPLOADS_WORDS in errors(at) and "bench_job" not in at.session_state  # refused before any run starts


# ------------------------------------------------------------------ 2. the learning curve's cache key


def test_a_rewritten_or_deleted_log_under_the_root_is_read_again(root: Path) -> None:
    """The curve is cached across sessions by path and file stamp: a relative path is stamped under the root
    (it was stat'ed relative to the server's working directory, so never, and a rewritten log was served stale)."""
    log = root / "train.csv"
    log.write_text("step,acc_0\n" + "".join(f"{s},{0.5 + s / 1000:.3f}\n" for s in range(10, 110, 10)))
    at = scaling_page()
    at.text_input(key="lc_path").set_value("train.csv").run()
    assert not at.error, errors(at)
    assert len(curve_table(at)) == 10
    log.write_text("step,acc_0\n" + "".join(f"{s},{0.5 + s / 1000:.3f}\n" for s in range(10, 60, 10)))
    at.run()
    assert not at.error, errors(at)
    assert len(curve_table(at)) == 5
    log.unlink()
    at.run()
    assert "no such file" in errors(at) and curve_table(at) is None


def test_a_path_outside_the_root_is_never_stat_ed(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "outside.csv"
    outside.write_text("step,acc_0\n10,0.5\n")
    seen: list[str] = []
    real_stat = os.stat

    def stat(path: Any, *args: Any, **kw: Any) -> os.stat_result:
        seen.append(os.fspath(path) if isinstance(path, (str, os.PathLike)) else repr(path))
        return real_stat(path, *args, **kw)

    at = scaling_page()
    monkeypatch.setattr(os, "stat", stat)
    at.text_input(key="lc_path").set_value(str(outside)).run()
    monkeypatch.undo()
    assert "outside the data root" in errors(at)
    assert str(outside) not in seen


# ------------------------------------------------------------------ 3 and 4. the audit's "Draft name"


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        (f"mydraft HF_TOKEN={TOKEN}", "mydraft HF_TOKEN=***"),
        (TOKEN, "***"),
        (f"  {TOKEN}  ", "***"),
        ("acme/kimi-draft", "acme/kimi-draft"),
        ("x" * MAX_DRAFT_NAME_CHARS, "x" * MAX_DRAFT_NAME_CHARS),
    ],
    ids=["key-value", "bare", "padded", "hub-id", "at-the-cap"],
)
def test_a_token_typed_as_draft_name_is_masked_before_it_is_stored(tmp_path: Path, typed: str, stored: str) -> None:
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.save_data_volume(draft=typed, samples=3, tokens=9, source=f"data.jsonl token={TOKEN}")
    (vol,) = store.data_volumes()
    assert vol["draft"] == stored and TOKEN not in vol["source"]
    raw = store.engine.connect().execute(__import__("sqlalchemy").text("SELECT draft, source FROM data_volumes"))
    assert TOKEN not in repr(list(raw))


@pytest.mark.parametrize("typed", ["x" * (MAX_DRAFT_NAME_CHARS + 1), "y" * 2_000_000], ids=["cap+1", "2M"])
def test_an_over_long_draft_name_is_refused(tmp_path: Path, typed: str) -> None:
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    with pytest.raises(StoreError, match=f"the limit is {MAX_DRAFT_NAME_CHARS}"):
        store.save_data_volume(draft=typed, samples=3)
    assert store.data_volumes() == []


def test_a_control_character_refusal_does_not_echo_a_token(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    with pytest.raises(StoreError, match="control characters") as info:
        store.save_data_volume(draft=f"mine\x1b[31m {TOKEN}", samples=3)
    assert TOKEN not in str(info.value)


def test_old_rows_are_listed_masked_and_cut(tmp_path: Path) -> None:
    """Rows stored before the cap and the masking reach no sidebar in clear or at full length."""
    import sqlalchemy as sa

    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.save_data_volume(draft="placeholder", samples=1)
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE data_volumes SET draft = :d"), {"d": f"old {TOKEN} " + "z" * 100_000})
    (vol,) = store.data_volumes()
    assert TOKEN not in vol["draft"] and len(vol["draft"]) < 1000


def attached() -> list[str]:
    """The draft names visitors attached (the built-in example's volume left out)."""
    return [v["draft"] for v in Store().data_volumes() if v["kind"] != "example"]


def _audited_page(root: Path) -> AppTest:
    tok = build_tokenizer(root / "tok")
    row = {"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello there"}]}
    (root / "train.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    at = page_app("../pages/audit.py", timeout=60).run()
    at.text_input(key="audit_source").set_value("train.jsonl")
    at.text_input(key="audit_tokenizer").set_value(str(tok.relative_to(root)))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, errors(at)
    return at


def test_the_audit_page_stores_and_shows_a_typed_token_masked(root: Path) -> None:
    at = _audited_page(root)
    at.text_input(key="audit_attach_draft").set_value(f"mydraft HF_TOKEN={TOKEN}")
    at.button(key="audit_attach").click().run()
    assert not at.exception and not at.error, errors(at)
    assert "mydraft HF_TOKEN=***" in texts(at) and TOKEN not in texts(at)
    assert attached() == ["mydraft HF_TOKEN=***"]
    other = page_app("../pages/overview.py", timeout=60).run()  # another visitor's sidebar lists stored names
    options = [str(o) for o in other.selectbox(key="draft_volume").options]
    assert "mydraft HF_TOKEN=***" in options and not any(TOKEN in o for o in options)


def test_the_audit_page_refuses_an_over_long_draft_name(root: Path) -> None:
    at = _audited_page(root)
    at.text_input(key="audit_attach_draft").set_value("d" * 2_000_000)
    at.button(key="audit_attach").click().run()
    assert not at.exception
    assert f"the limit is {MAX_DRAFT_NAME_CHARS}" in errors(at) and not at.success
    assert attached() == []


# ------------------------------------------------------------------ 5 and 8. imported result files

SGLANG_RUN = {
    "backend": "sglang",
    "completed": 10,
    "output_throughput": 500.0,
    "duration": 12.5,
    "max_concurrency": 8,
    "total_output_tokens": 2560,
    "median_ttft_ms": 40.0,
    "accept_length": 3.1,
    "server_info": {"version": "0.5.23", "speculative_algorithm": "EAGLE3", "speculative_num_steps": 3},
}


def test_import_messages_and_stored_fields_name_the_upload_not_the_temp_path(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    temp = tmp_path / "tmpmaq_acf4" / "result"
    temp.parent.mkdir()
    temp.write_text("[" * 100_000)
    with pytest.raises(CompareError) as info:
        importers.import_file(store, temp, name="imp_deep.json")
    assert "imp_deep.json" in str(info.value) and str(tmp_path) not in str(info.value)
    temp.write_bytes(b'{"completed": 1, "output_throughput": \xff\xfe}')
    with pytest.raises(DataError) as info:
        importers.import_file(store, temp, name="latin.json")
    message = str(info.value)
    assert "latin.json is not UTF-8 text" in message and "codec" not in message and str(tmp_path) not in message
    temp.write_text(json.dumps({**SGLANG_RUN, "completed": -5}))
    with pytest.raises(DataError, match="completed") as info:
        importers.import_file(store, temp, name="bad.json")
    assert str(tmp_path) not in str(info.value)
    temp.write_text(json.dumps(SGLANG_RUN))
    (rid,) = importers.import_file(store, temp, name="../../run 1.json")
    run = store.runs()[-1]
    assert run.id == rid and run.params["source_file"] == "run 1.json" and run.notes["imported_from"] == "run 1.json"
    assert str(tmp_path) not in json.dumps(run.params) + json.dumps(run.notes) + str(run.endpoint)


def test_the_bench_page_import_names_the_upload(root: Path) -> None:
    at = page_app("../pages/bench.py", timeout=60)
    at.session_state["import_open"] = True
    at.run()
    at.file_uploader(key="import_file").set_value(("latin.json", b'{"completed": \xff}', "application/json")).run()
    at.button(key="import_run").click().run()
    assert not at.exception
    assert "latin.json is not UTF-8 text" in errors(at)
    assert "/tmp" not in errors(at) and "codec" not in errors(at)
    at.file_uploader(key="import_file").set_value(("sg.json", json.dumps(SGLANG_RUN).encode(), "application/json"))
    at.run()
    at.button(key="import_run").click().run()
    assert not at.exception and not at.error, errors(at)
    run = Store().runs()[-1]
    assert (
        run.kind == "imported" and run.params["source_file"] == "sg.json" and run.notes["imported_from"] == "sg.json"
    )


BAD_FIELDS = [
    ("completed", -5),
    ("completed", 1.5),
    ("completed", "10"),
    ("completed", True),
    ("duration", math.nan),
    ("duration", math.inf),
    ("duration", -1.0),
    ("duration", "12s"),
    ("max_concurrency", 1e30),
    ("max_concurrency", 0),
    ("max_concurrency", -8),
    ("total_output_tokens", -1),
    ("num_prompts", 2.5),
]


@pytest.mark.parametrize(("field", "value"), BAD_FIELDS)
def test_impossible_counts_and_durations_are_refused_by_name(field: str, value: object) -> None:
    with pytest.raises(DataError, match=f"^{field} is "):
        importers.check_record({**SGLANG_RUN, field: value})


@pytest.mark.parametrize(
    ("field", "value"),
    [("max_concurrency", None), ("max_concurrency", 1), ("completed", 10.0), ("duration", 0), ("completed", 0)],
)
def test_usable_counts_still_import(field: str, value: object) -> None:
    assert importers.check_record({**SGLANG_RUN, field: value}) == importers.SGLANG


def test_vllm_failed_count_is_checked_too() -> None:
    vllm = {"completed": 5, "failed": -2, "output_throughput": 10.0, "endpoint_type": "openai", "num_prompts": 7}
    with pytest.raises(DataError, match="^failed is -2"):
        importers.check_record(vllm)


# ------------------------------------------------------------------ 6. credentials in the endpoint URL


def test_credentials_in_the_endpoint_url_say_what_works() -> None:
    from comparelib.live.servers import normalise_endpoint

    with pytest.raises(BenchError) as info:
        normalise_endpoint("http://user:pw@127.0.0.1:30000/")
    message = str(info.value)
    assert "API key option" not in message and "pw" not in message
    assert "BenchOptions(api_key=" in message and "send no credentials" in message


# ------------------------------------------------------------------ 7. a link in the root that leads out


def test_a_link_out_of_the_root_is_a_path_never_a_hub_id(root: Path, tmp_path: Path) -> None:
    """A draft or tokenizer named by a link in the root that leads out was looked up on the Hub ("HTTP 404 ...
    try again later"). It is refused as a path, and a link to an existing folder reads like a dangling one."""
    from comparelib.audit.tokens import load_tokenizer
    from comparelib.models import hub, sources

    build_tokenizer(tmp_path / "outside")
    (tmp_path / "outside" / "config.json").write_text("{}")
    (root / "linkA").symlink_to(tmp_path / "outside")
    (root / "linkB").symlink_to(tmp_path / "missing")
    for read in (hub.parse_ref, load_tokenizer):
        for typed in ("{}", "{}/sub", str(root / "{}")):
            said = []
            for name in ("linkA", "linkB"):
                with pytest.raises(paths.LocalPathRefusedError) as info:
                    read(typed.format(name))
                said.append(str(info.value).replace(name, "LINK"))
            assert said[0] == said[1]  # whether the target exists is not told
            assert "outside the data root" in said[0] and "symbolic link" in said[0], said[0]
            assert "404" not in said[0] and "Hub" not in said[0] and str(tmp_path / "outside") not in said[0]
    assert sources.is_local_path("linkA") and sources.is_local_path("linkB")  # the sidebar takes them as local
