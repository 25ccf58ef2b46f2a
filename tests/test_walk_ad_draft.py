"""Walk AD: the sidebar's draft keeps what the user chose, and a refused source attaches nothing.

1. With an audit attached and 250,000 samples typed in, the user clicked "Use the 250,000 typed in instead", pasted
   another draft, then theirs again: the sidebar read "895 samples, attached from Dataset audit ..." again and the
   link had draft_vol back. Switching back brings back what was attached when the user left: the typed number.
2. A non-Hub URL (https://evil.example.com/coderlab/q3coder-30b-eagle3), refused with "only Hugging Face Hub URLs are
   fetched", took the audit stored under coderlab/q3coder-30b-eagle3 and put draft_vol in the link.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib import settings
from comparelib.live.store import Store
from comparelib.models.draft import OwnDraft
from tests.test_draft_volume import _ok, _sidebar

ROOT = Path(__file__).resolve().parents[1]
A_ID = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
B_ID = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
A, B = f"registry:{A_ID}", f"registry:{B_ID}"
MINE = "coderlab/q3coder-30b-eagle3"


def _store() -> Store:
    store = Store(settings.database_url())
    store.save_data_volume(draft=A_ID, samples=895, tokens=91_936, source="a.jsonl")
    store.save_data_volume(draft=B_ID, samples=321, tokens=19_000, source="b.jsonl")
    store.save_data_volume(draft=MINE, samples=895, tokens=91_936, source="code-sft")
    rid = store.start_run(
        endpoint="http://sglang:1",
        group="g-a",
        params={"concurrency": 1},
        server_config={"engine": "sglang", "model": "meta-llama/Llama-3.1-8B-Instruct"},
    )
    store.finish_run(rid, {"requests": 4, "output_tokens_per_s": 90.0})
    return store


def _use(at: AppTest, source: str, **picked: object) -> AppTest:
    at.sidebar.text_input(key="draft_source").set_value(source)
    for key, value in picked.items():
        widget = at.sidebar.number_input(key=key) if key == "draft_samples" else at.sidebar.selectbox(key=key)
        widget.set_value(value)
    return _ok(at.sidebar.button[0].click().run())


def _query(at: AppTest) -> dict[str, str]:
    keys = ("draft", "draft_vol", "draft_group", "draft_samples", "draft_target")
    return {k: at.query_params[k] for k in keys if k in at.query_params}


def _md(at: AppTest) -> str:
    return "\n".join(m.value for m in at.main.markdown)


# -- 1. switching back restores the state the user left


def test_switching_back_keeps_the_audit_the_user_took_off() -> None:
    _store()
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    _use(at, A, draft_samples=250_000)  # takes its own stored audit, over the typed number
    assert _query(at) == {"draft": A, "draft_vol": A_ID, "draft_samples": "250000"}
    _ok(at.sidebar.button(key="draft_use_typed").click().run())
    assert _query(at) == {"draft": A, "draft_samples": "250000"}
    assert "Training data in use: 250,000 samples, typed in." in _sidebar(at)

    _use(at, B)
    assert _query(at) == {"draft": B, "draft_vol": B_ID}
    _use(at, A)  # back: the typed 250,000, as the user left it, not the audit taken off
    assert _query(at) == {"draft": A, "draft_samples": "250000"}, _query(at)
    said = _sidebar(at)
    assert "Training data in use: 250,000 samples, typed in." in said, said
    assert "895 samples" not in said, said
    assert at.sidebar.selectbox(key="draft_volume").value == "(none)"
    assert "(typed in)" in _md(at), _md(at)

    # picking the audit again for this draft is remembered as well
    _use(at, A, draft_volume=A_ID)
    assert _query(at) == {"draft": A, "draft_vol": A_ID, "draft_samples": "250000"}
    _use(at, B)
    _use(at, A)
    assert _query(at) == {"draft": A, "draft_vol": A_ID, "draft_samples": "250000"}, _query(at)


def test_a_draft_never_detached_still_takes_its_own_audit_on_the_way_back() -> None:
    _store()
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    _use(at, A, draft_samples=250_000)
    _use(at, B)
    _use(at, A)
    assert _query(at) == {"draft": A, "draft_vol": A_ID, "draft_samples": "250000"}


# -- 2. a refused source attaches nothing

REFUSED = [
    f"https://evil.example.com/{MINE}",
    f"http://127.0.0.1:18950/{MINE}",
    f"{MINE}@../../main",
    "file:///etc/passwd",
]


@pytest.mark.parametrize("source", REFUSED)
def test_a_refused_source_has_nothing_attached(source: str) -> None:
    d = OwnDraft.parse(source, volume=MINE, samples=250_000, group="g-a", target="Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert d.refusal, source
    assert (d.volume, d.group, d.target) == (None, None, None)
    assert d.with_(volume=MINE, group="g-a").volume is None
    assert d.own_volume([{"id": 1, "draft": MINE, "samples": 895, "kind": "measured"}]) is None
    assert "draft_vol" not in d.to_query() and "draft_group" not in d.to_query()


@pytest.mark.parametrize(
    "source", [MINE, f"https://huggingface.co/{MINE}", f"{MINE}@main", f"registry:{A_ID}", "example"]
)
def test_a_source_read_keeps_what_is_attached(source: str) -> None:
    d = OwnDraft.parse(source, volume=MINE, group="g-a")
    assert d.refusal is None
    assert (d.volume, d.group) == (MINE, "g-a")


def test_a_refused_source_in_the_sidebar_gains_no_audit_group_or_target() -> None:
    _store()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = MINE
    at.query_params["draft_target"] = "Qwen/Qwen3-Coder-30B-A3B-Instruct"
    _ok(at.run())
    _use(at, f"https://evil.example.com/{MINE}", draft_group="g-a")
    assert _query(at) == {"draft": f"https://evil.example.com/{MINE}"}, _query(at)
    assert "Training data in use" not in _sidebar(at)
    said = _sidebar(at)
    assert "Nothing is attached to it" in said and "only Hugging Face Hub URLs are fetched" in said, said


def test_a_link_naming_a_refused_source_loses_its_attachments() -> None:
    _store()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in {"draft": f"https://evil.example.com/{MINE}", "draft_vol": MINE, "draft_group": "g-a"}.items():
        at.query_params[key] = value
    _ok(at.run())
    assert _query(at) == {"draft": f"https://evil.example.com/{MINE}"}, _query(at)


def test_an_audit_saved_while_a_refused_source_is_the_draft_is_stored_not_attached(tmp_path: Path) -> None:
    from tests.test_draft_volume import _dataset, _go
    from tests.tokenizer_fixture import build_tokenizer

    data, tok = _dataset(tmp_path / "train.jsonl"), build_tokenizer(tmp_path / "tok")
    evil = f"https://evil.example.com/{MINE}"
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = evil
    _ok(at.run())
    _go(at, "audit")
    _ok(at.run())
    at.text_input(key="audit_source").set_value(str(data))
    at.text_input(key="audit_tokenizer").set_value(str(tok))
    _ok(at.button(key="audit_run").click().run())
    at.text_input(key="audit_attach_draft").set_value(MINE)
    _ok(at.button(key="audit_attach").click().run())
    assert any("Saved 12 samples" in s.value and MINE in s.value for s in at.success)
    captions = " ".join(c.value for c in at.main.caption)
    assert "Attached to your draft" not in captions, captions
    assert "Not attached to your draft" in captions and "only Hugging Face Hub URLs are fetched" in captions, captions
    assert _query(at) == {"draft": evil}, _query(at)


def test_a_run_measured_while_a_refused_source_is_the_draft_does_not_say_its_group_is_attached(
    fake_server: object,
) -> None:
    evil = f"https://evil.example.com/{MINE}"
    server = fake_server("sglang", ttft_s=0.0, chunk_delay_s=0.0, output_tokens=8, speculative_algorithm=None)  # type: ignore[operator]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = evil
    _ok(at.run())
    at.session_state["bench_form_open"] = True
    _ok(at.switch_page("pages/bench.py").run())
    at.text_input(key="bench_endpoint").set_value(server.url)
    at.text_input(key="bench_group").set_value("g-evil")
    for key, value in (("bench_concurrency", 1), ("bench_requests", 2), ("bench_max_tokens", 8), ("bench_warmup", 0)):
        at.number_input(key=key).set_value(value)
    at.button(key="bench_run").click().run()
    job = at.session_state["bench_job"]
    assert job.done.wait(60), "the benchmark thread did not finish"
    _ok(at.run())
    assert Store(settings.database_url()).runs(group="g-evil"), "the run was stored"
    assert not any("is now attached" in c.value for c in at.caption), [c.value for c in at.caption]
    assert _query(at) == {"draft": evil}, _query(at)
