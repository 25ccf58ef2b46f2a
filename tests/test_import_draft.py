"""An imported run stores the draft it measured (walk P).

vLLM results do not record the draft, and the import form had no field for it: the user's own `vllm bench serve`
result (#18) was stored with no draft and then read "1 run of another draft left out: #18 (no draft recorded)" on
every page. The form's Draft field starts from the sidebar's draft; the CLI takes ``--draft``. A draft the file
records (SGLang's server_info) is kept, and the import says so where the two differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from comparelib import settings
from comparelib.live.importers import stated_draft_text
from comparelib.live.store import Store
from tests.fixtures import cli_in_process, page_app, sglang_record
from tests.test_importers import vllm_record

ROOT = Path(__file__).resolve().parents[1]
LABX = "labx/r1d-llama8b-eagle3"
GROUP = "r1d-sweep"
LMSYS = "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B"  # what sglang_record's server_info names


def _file(tmp_path: Path, record: dict, name: str) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def _run(i: int, draft: str | None) -> SimpleNamespace:
    return SimpleNamespace(id=i, draft_model=draft)


NOTE_CASES = [
    # runs' stored drafts, the draft stated, a note naming
    ([LABX], LABX, None),
    (["/data/drafts/r1d-llama8b-eagle3"], LABX, None),  # a folder of its name: the same draft
    (["LABX/R1D-llama8b-eagle3@main"], LABX, None),
    ([None], LABX, None),  # a baseline stores no draft
    ([LMSYS], None, None),  # nothing stated
    ([LMSYS], "  ", None),
    ([LMSYS], LABX, f"The file records its draft (#1 {LMSYS}), not {LABX} given in the Draft field"),
    ([LMSYS, LMSYS], LABX, f"The file records their draft (#1-#2 {LMSYS}), not {LABX}"),
]


@pytest.mark.parametrize(("drafts", "stated", "said"), NOTE_CASES)
def test_a_draft_the_file_records_is_kept_and_said(drafts: list, stated: str | None, said: str | None) -> None:
    note = stated_draft_text([_run(i, d) for i, d in enumerate(drafts, start=1)], stated)
    if said is None:
        assert note is None, note
    else:
        assert note is not None and note.startswith(said), note
        assert "the file's is kept" in note


def _bench_page(draft: str | None) -> AppTest:
    at = page_app(str(ROOT / "pages" / "bench.py"), timeout=90)
    if draft:
        at.query_params["draft"] = draft
        at.query_params["draft_group"] = GROUP
    at.session_state["import_open"] = True
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _import(at: AppTest, path: Path) -> None:
    at.file_uploader(key="import_file").set_value((path.name, path.read_bytes(), "application/json")).run()
    at.button(key="import_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]


def _group_with_baseline(store: Store) -> None:
    rid = store.start_run(
        endpoint="http://vllm:1",
        group=GROUP,
        params={"concurrency": 2, "max_tokens": 256},
        server_config={"engine": "vllm", "model": "meta-llama/Llama-3.1-8B-Instruct"},
    )
    store.finish_run(rid, {"requests": 3, "output_tokens_per_s": 40.0})


def test_your_vllm_result_is_stored_as_your_drafts_run(tmp_path: Path) -> None:
    store = Store(settings.database_url())
    _group_with_baseline(store)
    at = _bench_page(LABX)
    assert at.text_input(key="import_draft").value == LABX
    at.text_input(key="import_spec_algorithm").set_value("EAGLE3")
    at.number_input(key="import_spec_steps").set_value(3)
    _import(at, _file(tmp_path, vllm_record(), "vllm-k3.json"))
    rec = store.runs(group=GROUP)[-1]
    assert rec.kind == "imported" and rec.draft_model == LABX and rec.num_steps == 3
    text = "\n".join(c.value for c in at.caption)
    assert "another draft" not in text and "no draft recorded" not in text, text
    assert not at.info
    assert rec.title in at.multiselect(key="compare_runs").value


def test_a_draft_the_sglang_file_records_wins_and_the_page_says_so(tmp_path: Path) -> None:
    store = Store(settings.database_url())
    at = _bench_page(LABX)
    _import(at, _file(tmp_path, sglang_record(), "sglang.json"))
    rec = store.runs(group=GROUP)[-1]
    assert rec.draft_model == LMSYS
    said = [i.value for i in at.info]
    assert said == [
        f"The file records its draft (#{rec.id} {LMSYS}), not {LABX} given in the Draft field: the file's is kept, as "
        "it names what the server ran. That run counts as your draft's only where that name is your draft's."
    ], said


def test_the_example_leaves_the_draft_field_empty() -> None:
    at = _bench_page(None)
    assert at.text_input(key="import_draft").value == ""


def test_cli_import_takes_draft(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'i.sqlite'}"
    path = _file(tmp_path, vllm_record(), "vllm-k3.json")
    proc = cli_in_process(capsys, "import", str(path), "--db", url, "--draft", LABX, "--spec-algorithm", "EAGLE3")
    assert proc.returncode == 0, proc.stderr
    assert Store(url).runs(include_examples=False)[-1].draft_model == LABX
    assert not proc.stderr
    sg = _file(tmp_path, sglang_record(), "sglang.json")
    proc = cli_in_process(capsys, "import", str(sg), "--db", url, "--draft", LABX)
    assert proc.returncode == 0, proc.stderr
    assert Store(url).runs(include_examples=False)[-1].draft_model == LMSYS
    assert f"not {LABX} given in --draft: the file's is kept" in proc.stderr, proc.stderr
