"""The "Live benchmark" page: offline example data, sweep chart, imports, failing and real runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib import settings
from comparelib.live.importers import import_file
from comparelib.live.store import Store, run_titles
from tests.fixtures import page_app, sglang_record

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "bench.py")


def page(run_form: bool = True) -> AppTest:
    """The page, with "Run a benchmark" opened (its inputs are built only while it is open)."""
    at = page_app(PAGE, timeout=60)
    if run_form:
        at.session_state["bench_form_open"] = True
    return at


def group_page(draft: str, group: str) -> AppTest:
    """The page opened on ``draft`` and its run ``group``, as the sidebar's link opens it (the form closed)."""
    at = page(run_form=False)
    at.query_params["draft"] = draft
    at.query_params["draft_group"] = group
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def runs_table(at: AppTest):
    return next(df.value for df in at.dataframe if "output_tokens_per_s" in df.value.columns)


def wait_for_job(at: AppTest) -> None:
    job = at.session_state["bench_job"]
    assert job.done.wait(60), "the benchmark thread did not finish"
    at.run()


def test_renders_offline_with_the_example_runs() -> None:
    at = page().run()
    assert not at.exception
    assert not at.error
    table = runs_table(at)
    example = table[table["kind"] == "example"]
    assert set(example["output_tokens_per_s"]) == {62.9, 88.8, 94.0}
    assert 94.0 in table["output_tokens_per_s"].tolist() and 88.8 in table["output_tokens_per_s"].tolist()
    eagle = example[example["output_tokens_per_s"] == 94.0].iloc[0]
    assert eagle["num_steps"] == 2 and eagle["num_draft_tokens"] == 3 and eagle["accept_length"] == 2.1
    # the comparison defaults to the example runs with the tuned baseline
    cmp = next(df.value for df in at.dataframe if "speedup" in df.value.columns)
    assert at.selectbox(key="compare_baseline").value == "each run's own comparable baseline"
    # the EAGLE-3 run against the tuned baseline (#2), named in its row; each baseline is its own
    assert cmp["speedup"].round(3).tolist() == [1.0, 1.0, round(94.0 / 88.8, 3)]
    assert cmp["baseline"].tolist() == ["itself", "itself", "#2"]
    # one baseline for every row: the default-environment one ran under other NCCL settings, and the table says why
    at.selectbox(key="compare_baseline").set_value(cmp["run"].tolist()[1]).run()
    cmp = next(df.value for df in at.dataframe if "speedup" in df.value.columns)
    assert cmp["speedup"].isna().tolist()[0] and cmp["baseline"].tolist() == ["#2", "itself", "#2"]
    assert "different server environment" in cmp["speedup_note"].tolist()[0]
    # exports of the runs table
    assert at.selectbox(key="runs_export_format").options == ["csv", "md", "json", "latex"]


def test_sweep_chart_has_the_baseline_rules() -> None:
    at = page().run()
    assert at.selectbox(key="sweep_group").value == "example-kimi-k2.5"
    charts = at.get("vega_lite_chart")
    assert len(charts) == 2  # tok/s and acceptance length side by side
    speed, accept = (json.loads(c.proto.spec) for c in charts)
    marks = [layer["mark"]["type"] for layer in speed["layer"]]
    # baselines drawn as horizontal rules with their names (a text layer per line of a wrapped or stacked label)
    assert marks[:2] == ["line", "rule"] and set(marks[2:]) == {"text"}
    rule = speed["layer"][1]
    assert rule["encoding"]["y"]["field"] == "output tok/s" and "x" not in rule["encoding"]
    assert "num_steps" in json.dumps(speed) and accept["encoding"]["y"]["field"] == "accept length"
    # the rule layer's data are the group's two baseline runs
    import pyarrow as pa

    datasets = {d.name: pa.ipc.open_stream(d.data.data).read_pandas() for d in charts[0].proto.datasets}
    rule_data = datasets[rule["data"]["name"]]
    assert sorted(rule_data["output tok/s"]) == [62.9, 88.8]
    points = datasets[speed["layer"][0]["data"]["name"]]
    assert points[["num_steps", "output tok/s"]].values.tolist() == [[2, 94.0]]


def test_imported_runs_show_up(tmp_path: Path) -> None:
    path = tmp_path / "sglang.jsonl"
    path.write_text(json.dumps(sglang_record(steps=4, accept=3.1)) + "\n", encoding="utf-8")
    store = Store(settings.database_url())
    (rid,) = import_file(store, path, labels=["nightly"], group="llama-sweep")
    store.close()
    at = page().run()
    assert not at.exception and not at.error
    table = runs_table(at)
    row = table[table["id"] == rid].iloc[0]
    assert row["kind"] == "imported" and row["output_tokens_per_s"] == pytest.approx(81.92)
    assert row["num_steps"] == 4 and "nightly" in row["labels"]
    assert "llama-sweep" in at.selectbox(key="sweep_group").options
    at.selectbox(key="sweep_group").set_value("llama-sweep").run()
    assert not at.exception and len(at.get("vega_lite_chart")) == 2
    at.selectbox(key="requests_run").set_value(
        next(o for o in at.selectbox(key="requests_run").options if o.startswith(f"#{rid} "))
    ).run()
    reqs = next(df.value for df in at.dataframe if "ttft_ms" in df.value.columns)
    assert len(reqs) == 5 and reqs["ttft_ms"].iloc[0] == pytest.approx(90.0)


BAD_ENDPOINTS = [
    ("http://127.0.0.1:1", "127.0.0.1:1"),
    ("ftp://example", "not an http(s) URL"),
]


@pytest.mark.parametrize(("endpoint", "message"), BAD_ENDPOINTS)
def test_bad_endpoint_shows_an_error(endpoint: str, message: str) -> None:
    at = page().run()
    at.text_input(key="bench_endpoint").set_value(endpoint)
    at.number_input(key="bench_requests").set_value(1)
    at.number_input(key="bench_warmup").set_value(0)
    at.number_input(key="bench_timeout").set_value(5.0)
    at.button(key="bench_run").click().run()
    assert not at.exception
    wait_for_job(at)
    assert not at.exception
    assert at.error and message in at.error[0].value


def test_dataset_source_without_path_is_an_error() -> None:
    at = page().run()
    at.radio(key="bench_prompt_source").set_value("dataset file")
    at.button(key="bench_run").click().run()
    assert not at.exception
    assert "path of a JSONL dataset" in at.error[0].value
    assert "bench_job" not in at.session_state


def test_runs_a_benchmark_against_a_local_server() -> None:
    fake = pytest.importorskip("tests.fake_inference")
    server = fake.start_fake_server("sglang", ttft_s=0.01, chunk_delay_s=0.002, output_tokens=16, tokens_per_chunk=4)
    try:
        at = page().run()
        at.text_input(key="bench_endpoint").set_value(server.url)
        at.number_input(key="bench_requests").set_value(4)
        at.number_input(key="bench_concurrency").set_value(2)
        at.number_input(key="bench_max_tokens").set_value(16)
        at.number_input(key="bench_warmup").set_value(0)
        at.text_input(key="bench_labels").set_value("page-test, 3-step")
        at.text_input(key="bench_group").set_value("page-sweep")
        at.button(key="bench_run").click().run()
        assert not at.exception
        wait_for_job(at)
    finally:
        server.stop()
    assert not at.exception and not at.error, [e.value for e in at.error]
    job = at.session_state["bench_job"]
    assert job.status == "finished" and job.run_id is not None
    assert at.success and f"Run {job.run_id} finished" in at.success[0].value
    table = runs_table(at)
    row = table[table["id"] == job.run_id].iloc[0]
    assert row["kind"] == "measured" and row["requests"] == 4 and row["errors"] == 0
    assert row["group"] == "page-sweep" and "page-test" in row["labels"]
    assert row["speculative_algorithm"] == "EAGLE3" and row["num_steps"] == 3
    assert row["accept_length"] == pytest.approx(4.0)
    assert "sk-should-never-be-stored" not in json.dumps(Store(settings.database_url()).run(job.run_id).server_config)


def test_stop_button_interrupts_a_running_benchmark() -> None:
    fake = pytest.importorskip("tests.fake_inference")
    server = fake.start_fake_server("sglang", ttft_s=0.01, chunk_delay_s=0.002, output_tokens=16, stall_every=2)
    try:
        at = page().run()
        at.text_input(key="bench_endpoint").set_value(server.url)
        at.number_input(key="bench_requests").set_value(6)
        at.number_input(key="bench_concurrency").set_value(1)
        at.number_input(key="bench_warmup").set_value(0)
        at.number_input(key="bench_timeout").set_value(600.0)
        at.button(key="bench_run").click().run()
        job = at.session_state["bench_job"]
        assert not job.done.is_set()  # request 2 stalls until we stop it
        at.run()
        assert at.get("progress")
        at.button(key="bench_stop").click().run()
        wait_for_job(at)
    finally:
        server.stop()
    assert not at.exception
    assert job.status == "interrupted"
    assert not at.success  # an interrupted run is no green success
    assert any(f"Run {job.run_id} interrupted" in w.value for w in at.warning)
    rec = Store(settings.database_url()).run(job.run_id)
    assert rec.status == "interrupted" and rec.requests <= 1


def test_cut_short_run_is_shown_as_running_with_its_requests() -> None:
    store = Store(settings.database_url())
    rid = store.start_run(endpoint="http://127.0.0.1:30000", server_config={"engine": "sglang"}, labels=["cut"])
    for i in range(3):
        store.add_request(
            rid,
            {
                "index": i,
                "ok": True,
                "error": None,
                "output_tokens": 8,
                "ttft_s": 0.02,
                "e2e_s": 0.1,
                "tpot_s": 0.0114,
                "chunk_gaps_s": [0.04, 0.04],
            },
        )
    store.close()
    at = page().run()
    assert not at.exception and not at.error
    row = runs_table(at).set_index("id").loc[rid]
    assert row["status"] == "running" and row["requests"] == 3
    assert any("incomplete" in c.value for c in at.caption)
    assert at.selectbox(key="requests_run").value.startswith(f"#{rid} ")  # newest run with rows preselected
    reqs = next(df.value for df in at.dataframe if "ttft_ms" in df.value.columns)
    assert (
        reqs["ttft_ms"].round(6).tolist() == [20.0] * 3 and reqs["mean_chunk_gap_ms"].round(6).tolist() == [40.0] * 3
    )


def _bench(at: AppTest, url: str, group: str) -> None:
    at.text_input(key="bench_endpoint").set_value(url)
    at.number_input(key="bench_requests").set_value(3)
    at.number_input(key="bench_concurrency").set_value(1)
    at.number_input(key="bench_max_tokens").set_value(16)
    at.number_input(key="bench_warmup").set_value(0)
    at.text_input(key="bench_group").set_value(group)
    at.button(key="bench_run").click().run()
    wait_for_job(at)
    at.run()
    assert not at.exception


def test_after_three_runs_the_page_follows_them_not_the_example() -> None:
    fake = pytest.importorskip("tests.fake_inference")
    opts = {"ttft_s": 0.005, "chunk_delay_s": 0.005, "output_tokens": 16}
    base = fake.start_fake_server("sglang", speculative_algorithm=None, tokens_per_chunk=1, **opts)
    # the servers serve your draft, and report it: a run of another repo id (the fake's default) is never yours
    spec3 = fake.start_fake_server("sglang", num_steps=3, tokens_per_chunk=4, draft_model="acme/kimi-draft", **opts)
    spec2 = fake.start_fake_server("sglang", num_steps=2, tokens_per_chunk=3, draft_model="acme/kimi-draft", **opts)
    try:
        at = page()
        at.query_params["draft"] = "acme/kimi-draft"
        at.run()
        for server in (base, spec3, spec2):
            _bench(at, server.url, "acme-sweep")
    finally:
        for server in (base, spec3, spec2):
            server.stop()
    assert not at.error, [e.value for e in at.error]
    mine = Store(settings.database_url()).runs(group="acme-sweep")
    assert len(mine) == 3
    # "Compare runs", the sweep and "Per-request results" follow the new runs
    assert at.multiselect(key="compare_runs").value == [r.title for r in mine]
    assert at.selectbox(key="compare_baseline").value == "each run's own comparable baseline"
    cmp = next(df.value for df in at.dataframe if "speedup" in df.value.columns)
    assert cmp["speedup"].iloc[0] == pytest.approx(1.0) and cmp["speedup"].iloc[1] > 1.0
    assert at.session_state["_sweep_default"] == "acme-sweep", at.session_state["_sweep_default"]
    assert at.selectbox(key="sweep_group").value == "acme-sweep"
    assert at.selectbox(key="requests_run").value == mine[-1].title
    # the group is attached to the draft and carried in the link
    assert at.query_params["draft_group"] == "acme-sweep"
    # picking the example's baseline for our run: refused, with the reason
    example_base = next(
        r for r in Store(settings.database_url()).runs(group="example-kimi-k2.5") if r.output_tokens_per_s == 88.8
    )
    at.multiselect(key="compare_runs").set_value([mine[1].title, example_base.title]).run()
    at.selectbox(key="compare_baseline").set_value(example_base.title).run()
    cmp = next(df.value for df in at.dataframe if "speedup" in df.value.columns)
    assert cmp["speedup"].isna().iloc[0]
    assert "different target model: fake/target-model against Kimi-K2.5" in cmp["speedup_note"].iloc[0]


def test_with_your_own_draft_example_runs_are_off_and_never_dated_today() -> None:
    at = page()
    at.query_params["draft"] = "registry:AQ-MedAI/Kimi-K2-Instruct-eagle3"
    at.run()
    assert not at.exception, at.exception
    assert at.checkbox(key="runs_examples").value is False  # your draft: your runs, not the example's
    at.checkbox(key="runs_examples").check().run()
    table = runs_table(at)
    example = table[table["kind"] == "example"]
    assert len(example) and example["created_at"].isna().all()  # measured on a day not recorded: no date


def test_the_speedup_and_why_not_come_first_on_screen() -> None:
    at = page().run()
    assert not at.exception, at.exception
    el = next(d for d in at.dataframe if "speedup" in d.value.columns)
    order = list(el.proto.column_order)
    assert order[:6] == ["run", "num_steps", "output tok/s", "speedup", "baseline", "speedup_note"], order


def test_run_a_benchmark_is_built_while_open_and_keeps_what_was_typed() -> None:
    """Its ~20 inputs cost the browser on every visit: built only while the fold-out is open, with what was
    typed kept when it is closed and opened again; an uploaded prompt file keeps it built while closed."""

    def keys(at: AppTest) -> list[str]:
        return [w.key for w in at.text_input] + [w.key for w in at.get("file_uploader")]

    at = page(run_form=False).run()
    assert not at.exception, at.exception
    assert any(e.label == "Run a benchmark" for e in at.expander)
    assert "bench_endpoint" not in keys(at)
    at.session_state["bench_form_open"] = True
    at.run()
    at.text_input(key="bench_endpoint").set_value("http://10.1.2.3:30000")
    at.number_input(key="bench_spec_steps").set_value(3).run()
    at.session_state["bench_form_open"] = False
    at.run()
    assert "bench_endpoint" not in keys(at)
    at.session_state["bench_form_open"] = True
    at.run()
    assert at.text_input(key="bench_endpoint").value == "http://10.1.2.3:30000"
    assert at.number_input(key="bench_spec_steps").value == 3

    at.radio(key="bench_prompt_source").set_value("dataset file").run()
    prompts = ("prompts.jsonl", b'{"prompt": "hi"}\n', "application/json")
    at.file_uploader(key="bench_prompt_upload").set_value(prompts).run()
    at.session_state["bench_form_open"] = False
    at.run()
    assert not at.exception, at.exception
    assert "bench_prompt_upload" in keys(at) and at.text_input(key="bench_endpoint").value == "http://10.1.2.3:30000"


def _stored(store: Store, group: str, engine: str, steps: int | None, tok_s: float, al: float | None) -> int:
    """One finished run as the bench client stores it (``steps=None``: the target alone)."""
    server = {"engine": engine, "model": "acme/target"}
    if steps is not None:
        server.update(speculative_algorithm="EAGLE3", num_steps=steps, topk=1, num_draft_tokens=steps + 1)
    rid = store.start_run(
        endpoint=f"http://{engine}:1", group=group, params={"concurrency": 4, "max_tokens": 64}, server_config=server
    )
    summary: dict[str, float] = {"requests": 32, "output_tokens_per_s": tok_s}
    if al is not None:
        summary["accept_length"] = al
    store.finish_run(rid, summary)
    return rid


def test_a_group_measured_first_without_speculation_compares_against_its_baseline() -> None:
    """The newest six runs of a group were all speculative: the comparison still starts with the baseline of the
    pair Overview reports, never a speculative run offered as the baseline."""
    store = Store(settings.database_url())
    s_base = _stored(store, "mix", "sglang", None, 388.9, None)
    v_base = _stored(store, "mix", "vllm", None, 390.0, None)
    for k, tok in ((1, 600.0), (2, 700.0), (3, 760.0), (5, 770.0)):
        _stored(store, "mix", "sglang", k, tok, 1.0 + 0.6 * k)
    v_best = _stored(store, "mix", "vllm", 4, 1593.5, 3.4)
    _stored(store, "mix", "vllm", 2, 1200.0, 2.3)
    at = group_page("acme/kimi-draft", "mix")
    runs = {r.id: r for r in store.runs(group="mix")}
    picked = at.multiselect(key="compare_runs").value
    assert runs[s_base].title in picked and runs[v_base].title in picked
    assert at.selectbox(key="compare_baseline").value == "each run's own comparable baseline"
    cmp = next(df.value for df in at.dataframe if "speedup" in df.value.columns)
    names = run_titles(store.runs())  # the table says each run's engine: its baselines read alike without it
    row = cmp[cmp["run"] == names[v_best]].iloc[0]
    assert row["speedup"] == pytest.approx(1593.5 / 390.0) and row["baseline"] == f"#{v_base}"


def test_each_run_is_compared_with_its_own_engines_baseline() -> None:
    """A group of SGLang and vLLM runs, each engine with its baseline: one baseline for every row called the
    vLLM runs "different engine" beside their own vLLM baseline. Each row now names its own; a row with none
    among the runs picked says which came closest and what differs."""
    store = Store(settings.database_url())
    s_base = _stored(store, "both", "sglang", None, 400.0, None)
    s_spec = _stored(store, "both", "sglang", 3, 760.0, 2.8)
    v_base = _stored(store, "both", "vllm", None, 390.0, None)
    v_spec = [_stored(store, "both", "vllm", k, tok, al) for k, tok, al in ((2, 700.0, 2.3), (4, 810.0, 3.1))]
    at = group_page("acme/kimi-draft", "both")
    runs = {r.id: r for r in store.runs(group="both")}
    assert set(at.multiselect(key="compare_runs").value) == {r.title for r in runs.values()}
    cmp = next(df.value for df in at.dataframe if "speedup" in df.value.columns).set_index("run")
    names = run_titles(store.runs())  # the table says each run's engine: its baselines read alike without it
    for rid, base, tok in ((s_spec, s_base, 760.0), (v_spec[0], v_base, 700.0), (v_spec[1], v_base, 810.0)):
        row = cmp.loc[names[rid]]
        assert row["baseline"] == f"#{base}", row
        assert row["speedup"] == pytest.approx(tok / runs[base].output_tokens_per_s), row
        assert row.isna()["speedup_note"] or not row["speedup_note"], row
    # without the vLLM baseline among the runs picked: the vLLM rows say why, naming the closest
    at.multiselect(key="compare_runs").set_value([runs[i].title for i in (s_base, s_spec, v_spec[1])]).run()
    cmp = next(df.value for df in at.dataframe if "speedup" in df.value.columns).set_index("run")
    row = cmp.loc[names[v_spec[1]]]
    assert row["baseline"] == "none" and row.isna()["speedup"]
    assert row["speedup_note"] == (
        f"no speedup: no comparable baseline among the runs picked: the closest, run #{s_base}, has "
        "different engine: vllm against sglang"
    )


QWEN_GROUP = "qwen3-8b-sf250k"


def _vllm_only_group(store: Store) -> dict[int, str]:
    """A vLLM-only sweep as a new user stores it: one baseline and two speculative runs, the method not stated."""
    ids = [
        _stored(store, QWEN_GROUP, "vllm", steps, tok, al)
        for steps, tok, al in ((None, 300.0, None), (1, 420.0, 1.8), (3, 510.0, 2.6))
    ]
    return {r.id: r.title for r in store.runs(group=QWEN_GROUP) if r.id in ids}


def _draft_dir(tmp_path: Path) -> Path:
    from comparelib.models import registry

    folder = tmp_path / "qwen3-8b-draft"
    folder.mkdir()
    config = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def test_a_revisit_keeps_the_runs_and_the_sweep_of_your_drafts_group(tmp_path: Path) -> None:
    """Through the router: after Overview and Acceptance vs data, Live benchmark still compares your group's runs
    and charts your group (Streamlit drops a widget's state on a page that does not draw it: the multiselect
    came back empty and the sweep fell back to the first group, the example's)."""
    store = Store(settings.database_url())
    titles = _vllm_only_group(store)
    at = AppTest.from_file(str(Path(PAGE).parents[1] / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(_draft_dir(tmp_path))
    at.query_params["draft_group"] = QWEN_GROUP
    at.run()
    for visit in ("first", "revisit"):
        at.switch_page("pages/bench.py").run()
        assert not at.exception, (visit, at.exception)
        assert at.multiselect(key="compare_runs").value == list(titles.values()), visit
        assert at.selectbox(key="sweep_group").value == QWEN_GROUP, visit
        assert not any("Example data" in c.value for c in at.caption), visit
        assert at.selectbox(key="runs_group").value == QWEN_GROUP, visit  # "Stored runs" shows your group too
        for page in ("pages/overview.py", "pages/compare.py", "pages/audit.py", "pages/scaling.py"):
            at.switch_page(page).run()
            assert not at.exception, (page, at.exception)
    assert at.query_params["draft_group"] == QWEN_GROUP


def test_picks_made_on_the_page_are_still_there_after_a_visit_to_another(tmp_path: Path) -> None:
    """What the user picked (not only the defaults) comes back: runs compared, baseline, groups, the run's rows."""
    store = Store(settings.database_url())
    titles = list(_vllm_only_group(store).values())
    at = AppTest.from_file(str(Path(PAGE).parents[1] / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(_draft_dir(tmp_path))
    at.query_params["draft_group"] = QWEN_GROUP
    at.run()
    at.switch_page("pages/bench.py").run()
    at.multiselect(key="compare_runs").set_value(titles[:2]).run()
    at.selectbox(key="compare_baseline").set_value(titles[1]).run()
    at.selectbox(key="sweep_group").set_value("example-kimi-k2.5").run()
    at.selectbox(key="runs_group").set_value("(all groups)").run()
    at.selectbox(key="requests_run").set_value(titles[0]).run()
    assert not at.exception, at.exception
    at.switch_page("pages/overview.py").run()
    at.switch_page("pages/bench.py").run()
    assert not at.exception, at.exception
    assert at.multiselect(key="compare_runs").value == titles[:2]
    assert at.selectbox(key="compare_baseline").value == titles[1]
    assert at.selectbox(key="sweep_group").value == "example-kimi-k2.5"
    assert at.selectbox(key="runs_group").value == "(all groups)"
    assert at.selectbox(key="requests_run").value == titles[0]


def _vllm_result(tmp_path: Path) -> Path:
    """A `vllm bench serve --save-result` file of a speculative run whose method and num_steps it does not say."""
    from tests.test_importers import vllm_record

    record = vllm_record()
    del record["spec_decode_per_position_acceptance_rates"]
    path = tmp_path / "qwen3-k5.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def test_every_group_input_starts_from_your_drafts_group_and_an_import_states_its_config(tmp_path: Path) -> None:
    """Stored runs' filter, the run form's and the import's Group all start from the draft's group; the import's
    stated algorithm and num_steps fill what a vLLM result does not say, as the CLI's --spec-algorithm/--num-steps."""
    store = Store(settings.database_url())
    _vllm_only_group(store)
    at = page()
    at.query_params["draft"] = str(_draft_dir(tmp_path))
    at.query_params["draft_group"] = QWEN_GROUP
    at.session_state["import_open"] = True
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="runs_group").value == QWEN_GROUP
    assert at.text_input(key="bench_group").value == QWEN_GROUP
    assert at.text_input(key="import_group").value == QWEN_GROUP
    assert set(runs_table(at)["group"]) == {QWEN_GROUP}
    path = _vllm_result(tmp_path)
    at.file_uploader(key="import_file").set_value((path.name, path.read_bytes(), "application/json")).run()
    at.text_input(key="import_spec_algorithm").set_value("EAGLE3")
    at.number_input(key="import_spec_steps").set_value(5)
    at.button(key="import_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    rec = store.runs(group=QWEN_GROUP)[-1]
    assert rec.kind == "imported" and rec.speculative_algorithm == "EAGLE3" and rec.num_steps == 5
    assert at.success[0].value == f"imported run #{rec.id} from {path.name}"


def test_the_example_draft_leaves_the_group_inputs_to_you() -> None:
    at = page()
    at.session_state["import_open"] = True
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="runs_group").value == "(all groups)"  # every run, the example's among them
    assert at.text_input(key="bench_group").value == "" and at.text_input(key="import_group").value == ""


def test_per_request_results_show_the_timings_first_and_no_empty_error_column() -> None:
    store = Store(settings.database_url())
    rid = _stored(store, "rows", "vllm", 3, 500.0, 2.5)
    row = {"ok": True, "error": None, "output_tokens": 8, "ttft_s": 0.02, "e2e_s": 0.1, "tpot_s": 0.01}
    for i in range(3):
        store.add_request(rid, {**row, "index": i, "chunk_gaps_s": [0.01]})
    at = page(run_form=False).run()
    assert not at.exception, at.exception
    grid = next(d for d in at.dataframe if "ttft_ms" in d.value.columns)
    order = list(grid.proto.column_order)
    assert order[:4] == ["index", "ok", "ttft_ms", "tpot_ms"], order
    assert "error" not in grid.value.columns  # no request failed: nothing to show
    store.add_request(rid, {**row, "index": 3, "ok": False, "error": "timeout", "chunk_gaps_s": []})
    at.run()
    grid = next(d for d in at.dataframe if "ttft_ms" in d.value.columns)
    assert list(grid.proto.column_order)[-1] == "error"
