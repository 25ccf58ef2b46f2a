"""'Per-request results' opens on the newest run that has per-request rows (walk S, finding 8b).

The walk's group held measured runs #4-#13 (rows stored) and a summary-only ``vllm bench serve`` import #14 of the
same draft (64 requests in its summary, no rows): the picker opened on #14 and said "no per-request rows".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from comparelib import settings
from comparelib.live.importers import import_record
from comparelib.live.store import Store
from tests.fixtures import bench_config, page_app
from tests.test_importers import vllm_record

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "bench.py")
DRAFT = "walks-lab/llama33-70b-eagle3-speculators"
TARGET = "meta-llama/Llama-3.1-8B-Instruct"  # vllm_record's model_id
GROUP = "walks-s"


def _row(i: int) -> dict:
    return {"index": i, "ok": True, "error": None, "output_tokens": 8, "ttft_s": 0.02, "e2e_s": 0.1, "tpot_s": 0.01}


def _measured(store: Store, steps: int | None, rows: int) -> int:
    cfg = bench_config("vllm", TARGET, steps, draft=DRAFT if steps else None, topk=None, ndt=None)
    rid = store.start_run(endpoint="http://127.0.0.1:8000", server_config=cfg, group=GROUP)
    for i in range(rows):
        store.add_request(rid, _row(i))
    store.finish_run(rid, {"requests": rows, "output_tokens_per_s": 50.0})
    return rid


def _summary_import(store: Store) -> int:
    spec = {"speculative_algorithm": "EAGLE3", "draft_model": DRAFT, "num_steps": 3}
    return import_record(store, vllm_record(detailed=False), source="bench.json", group=GROUP, spec=spec)


@pytest.mark.parametrize(
    ("layout", "want"),
    [
        # measured runs with rows, then a newer summary-only import of the same draft: the newest measured run
        (["base", "spec", "import"], 1),
        (["base", "spec", "import", "import"], 1),
        # only the baseline has rows: it, not the import
        (["base", "import"], 0),
        (["spec", "import"], 0),
        # no run has rows: the newest run whose summary counts requests (the page says it has none)
        (["bare", "import"], 1),
        (["bare"], None),
    ],
)
def test_requests_run_is_the_newest_with_rows(layout: list[str], want: int | None) -> None:
    from comparelib.analysis.speedup import requests_run

    store = Store(settings.database_url())
    ids = []
    for kind in layout:
        if kind == "import":
            ids.append(_summary_import(store))
        else:
            ids.append(_measured(store, 3 if kind == "spec" else None, rows=0 if kind == "bare" else 4))
    runs = [r for r in store.runs() if r.group == GROUP]
    imported = [r for r in runs if r.kind == "imported"]
    assert all(r.requests > 0 and r.request_rows == 0 for r in imported)  # its summary counts 2, no rows stored
    got = requests_run(runs, DRAFT)
    assert (got.id if got else None) == (ids[want] if want is not None else None)


def test_page_opens_on_the_newest_run_with_rows() -> None:
    store = Store(settings.database_url())
    _measured(store, None, rows=4)
    spec_id = _measured(store, 3, rows=4)
    _summary_import(store)
    store.close()
    at = page_app(PAGE, timeout=60)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="requests_run").value.startswith(f"#{spec_id} "), at.selectbox(key="requests_run").value
    assert not any("no per-request rows" in i.value for i in at.info)
