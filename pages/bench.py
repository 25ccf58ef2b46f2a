"""Live benchmark: run a benchmark against a server, keep every result, compare runs and sweeps."""

from __future__ import annotations

import dataclasses
import functools
import logging
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

import app

if TYPE_CHECKING:
    import pandas as pd

app.ensure_routed()

st.title("Live benchmark")

# The page's own modules load after its heading is drawn, which a fresh server's first page shows meanwhile.
from comparelib import export, redact, settings, tables
from comparelib.analysis import speedup
from comparelib.charts import run_sweep_charts
from comparelib.errors import CompareError
from comparelib.live.bench import BenchOptions, benchmark
from comparelib.live.endpoints import BenchLimits, SessionBudget, SessionWatch
from comparelib.live.store import Store, requests_to_frame, run_titles, runs_to_frame
from comparelib.models.draft import (
    latest_own_group,
    pool_is_attached,
    run_pool,
    runs_of_draft,
    unattached_runs,
)

EXAMPLE_GROUP = "example-kimi-k2.5"
ENGINES = ["auto", "sglang", "vllm", "openai"]
ALL_GROUPS = "(all groups)"
ATTACHED_SAID = "_bench_attached_said"  # the sentence that a finished run attached its group, for the next run


open_store = app.open_store


@dataclasses.dataclass
class BenchJob:
    """A benchmark running in a background thread; the page polls it, never the other way round."""

    endpoint: str
    total: int
    stop: threading.Event = dataclasses.field(default_factory=threading.Event)
    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    finished: int = 0
    tok_s: float = 0.0
    run_id: int | None = None
    status: str = "running"
    error: str | None = None
    shown: bool = False
    group: str | None = None
    notes: tuple[str, ...] = ()  # the finished run's notes (the draft recorded from the sidebar, ...)
    # its group was offered to your draft (once, when it finished): the sidebar's group is yours from then on
    attached: bool = False

    def progress(self, done: int, total: int, tok_s: float) -> None:
        self.finished, self.total, self.tok_s = done, total, tok_s


def _run_job(
    job: BenchJob,
    store: Store,
    options: Callable[[], BenchOptions],
    prompt_path: str | None,
    watch: SessionWatch | None,
    budget: SessionBudget,
    upload: str | None = None,
) -> None:
    from comparelib import paths
    from comparelib.live.prompts import load_prompts

    try:  # options are built here, so a bad endpoint or label is reported like a failed run
        prompts = load_prompts(prompt_path)
        result = benchmark(
            options(),
            prompts=prompts,
            recorder=store,
            progress=job.progress,
            stop_event=job.stop,
            keep_running=watch,
            budget=budget,
        )
        job.run_id, job.status = result.run_id, result.status
        job.notes = tuple(result.summary.notes)
    except CompareError as exc:
        job.error, job.status = str(exc), "failed"
    except Exception:  # noqa: BLE001 - logged with its traceback; the visitor gets a short message
        logging.getLogger(__name__).error("benchmark thread failed:\n%s", redact.traceback_text())
        job.error, job.status = "the benchmark stopped unexpectedly; the server log has the details", "failed"
    finally:
        paths.discard_upload(upload)  # an uploaded prompt file lives only as long as its run
        job.done.set()


def _session_watch() -> SessionWatch | None:
    """Ends a run when the browser session that started it is gone (closed tab), via Streamlit's runtime."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return None
    runtime, session_id = Runtime.instance(), ctx.session_id
    return SessionWatch(lambda: runtime.is_active_session(session_id))


def _budget() -> SessionBudget:
    """What this browser session may still send (SPECDRAFT_BENCH_SESSION_REQUESTS / _SECONDS)."""
    if "bench_budget" not in st.session_state:
        st.session_state["bench_budget"] = SessionBudget.from_limits(BenchLimits.from_settings())
    return st.session_state["bench_budget"]


def _labels(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


OWN_BASELINES = "each run's own comparable baseline"
DEFAULT_RUNS = 6  # "Compare runs" opens on your draft's newest speculative runs (and the baselines they need)
SWEEP_RUNS = 12  # and on the newest sweep's runs, up to this many


def _comparison(runs: list[Any], baseline: Any | None) -> pd.DataFrame:
    """``speedup.comparison_frame`` row by row: each run against ``baseline``, or (None) against its own comparable
    baseline among ``runs`` (``speedup.choose_baseline``, as Overview's pair), named in the "baseline" column.
    One baseline for every row called a group's vLLM runs "different engine" beside their own vLLM baseline."""
    rows = []
    for run in runs:
        base = baseline or (run if run.is_baseline else speedup.choose_baseline(runs, [run]))
        row = speedup.comparison_frame([run], baseline=base)
        if run.is_baseline and base is not None and base is not run:
            # a baseline over another is no speedup (walk W: #14 read "1.28x" over #9, one configuration); what else
            # differs is still said
            other = str(row["speedup_note"].iloc[0] or "").removeprefix("no speedup: ")
            row["speedup"] = float("nan")
            row["speedup_note"] = (
                f"no speedup: run #{run.id} is a baseline (no speculation), as is run #{base.id}; a speedup compares "
                "a speculative run with a baseline" + (f"; {other}" if other else "")
            )
        if base is None:  # why none: the closest baseline picked and what differs, or none picked at all
            reason = speedup.no_baseline_reason(runs, [run], where="among the runs picked")
            row["speedup_note"] = f"no speedup: {reason}"
        elif baseline is None and not run.is_baseline and (also := speedup.other_baselines(runs, run, base)):
            # its own baseline picked, where another measured alike disagrees: said, as Overview says it (walk AE)
            said = str(row["speedup_note"].iloc[0] or "")
            row["speedup_note"] = f"{said}; {also}" if said else also
        row["baseline"] = "none" if base is None else "itself" if base is run else f"#{base.id}"
        rows.append(row)
    import pandas as pd

    return pd.concat(rows, ignore_index=True) if rows else speedup.comparison_frame([])


def _follow_sidebar_draft(key: str, name: str, draft: Any) -> None:
    """``app.follow_draft`` for a Draft field: preset to your draft's name when the sidebar's draft changes, and
    also whenever the field's state is gone. Streamlit drops a widget's state on a visit to another page, and
    ``follow_draft`` presets only on a change of draft, so the field came back empty under an unchanged sidebar
    draft and a new vLLM run recorded none (walk BO5). A value typed for this draft is kept: ``app.keep_values``
    (called above) writes its copy back before this runs, so the state is missing only when nothing was kept."""
    if key not in st.session_state:
        st.session_state.pop(f"_{key}_for", None)  # follow_draft's tag: without it, the field is preset again
    app.follow_draft(key, name, draft)


def _forget(key: str) -> None:
    """Drop a kept widget value (and keep_values' copy, which would bring it back) so its default shows again."""
    st.session_state.pop(key, None)
    st.session_state.pop(app.KEPT_SHADOW + key, None)


draft = app.own_draft()
app.keep_values()  # also when the page runs on its own (AppTest)
st.caption(
    "Benchmark a running SGLang, vLLM or OpenAI-compatible server, keep every result, and compare baselines "
    "with speculative runs. Rows of kind **example** are built-in example data from a Kimi-K2.5 tuning session."
)

db_url = settings.database_url()
try:
    store = open_store(db_url)
except CompareError as exc:
    st.error(str(exc))
    st.stop()

# the group every group input starts from: your draft's, when one is attached (the example's runs are no user's)
own_group = draft.group if draft.group and not draft.is_example else None

# ---------------------------------------------------------------- run a benchmark

job: BenchJob | None = st.session_state.get("bench_job")
running = job is not None and not job.done.is_set()

# Its ~20 inputs are built only while it is open (or holds an uploaded prompt file: an uploader that is not
# drawn forgets its file); their values are kept for the session (app.keep_values above).
run_fold = st.expander("Run a benchmark", expanded=job is not None, key="bench_form_open", on_change="rerun")
start = False
if run_fold.open or st.session_state.get("bench_prompt_upload") is not None:
    with run_fold:
        c1, c2 = st.columns([3, 1])
        endpoint = c1.text_input("Endpoint URL", value="http://127.0.0.1:30000", key="bench_endpoint")
        engine = c2.selectbox("Engine", ENGINES, key="bench_engine")
        if settings.bench_allow() is not None:
            st.caption(
                f"This server benchmarks only the endpoints its operator allowed (SPECDRAFT_BENCH_ALLOW: "
                f"`{settings.bench_allow() or 'none'}`)."
            )
        c1, c2, c3, c4 = st.columns(4)
        concurrency = c1.number_input("Concurrency", 1, 1024, 8, key="bench_concurrency")
        n_requests = c2.number_input("Requests", 1, 100_000, 64, key="bench_requests")
        max_tokens = c3.number_input("Max tokens", 1, 32_768, 256, key="bench_max_tokens")
        temperature = c4.number_input("Temperature", 0.0, 2.0, 0.0, step=0.1, key="bench_temperature")
        c1, c2, c3, c4 = st.columns(4)
        warmup = c1.number_input("Warm-up requests", 0, 1000, 2, key="bench_warmup")
        timeout_s = c2.number_input("Timeout per request (s)", 1.0, 3600.0, 120.0, key="bench_timeout")
        labels_text = c3.text_input(
            "Labels (comma-separated)", placeholder="optional, e.g. 2-step", key="bench_labels"
        )
        app.follow_draft("bench_group", own_group or "", draft)  # new runs join your draft's run group
        group = c4.text_input(
            "Group",
            placeholder="optional, e.g. sweep name",
            key="bench_group",
            help="Runs of one group are charted together; your draft's group is the default.",
        )
        st.markdown("Stated speculative config (vLLM cannot report it; SGLang's is read from the server)")
        c1, c2, c3, c4, c5 = st.columns([2, 3, 2, 2, 2])
        spec_algo = c1.text_input("Algorithm", placeholder="read from the server", key="bench_spec_algorithm")
        # vLLM does not report the draft it serves: without it your own vLLM runs read "no draft recorded" and were
        # left out of your draft's runs. Your draft's name is the default, as the import's Draft field
        _follow_sidebar_draft("bench_spec_draft", draft.match_name or "", draft)
        spec_draft = c2.text_input(
            "Draft",
            key="bench_spec_draft",
            placeholder="read from the server",
            help="The draft the server runs (Hub id or folder): your draft's name is the default, and is used when "
            "the field is left empty. It is recorded only "
            "when the server measures speculation and does not report its draft (vLLM never does); a draft the "
            "server reports is kept, and a baseline records none.",
        )
        spec_steps = c3.number_input("num_steps", 0, 64, value=None, key="bench_spec_steps", placeholder="not stated")
        spec_topk = c4.number_input("topk", 0, 64, value=None, key="bench_spec_topk", placeholder="not stated")
        spec_ndt = c5.number_input(
            "num_draft_tokens", 0, 256, value=None, key="bench_spec_ndt", placeholder="not stated"
        )
        c1, c2 = st.columns([1, 3])
        prompt_source = c1.radio("Prompts", ["bundled", "dataset file"], key="bench_prompt_source")
        prompt_path = c2.text_input(
            "Dataset path (JSONL with prompt / messages rows)",
            key="bench_prompt_path",
            disabled=prompt_source == "bundled",
        )
        prompt_upload = c2.file_uploader(
            "…or upload one (used instead of the path)",
            type=["jsonl", "json"],
            key="bench_prompt_upload",
            disabled=prompt_source == "bundled",
        )
        start = st.button("Run benchmark", key="bench_run", type="primary", disabled=running)

if start and not running:
    spec = {
        k: v
        for k, v in {
            "speculative_algorithm": spec_algo.strip() or None,
            "num_steps": spec_steps,
            "topk": spec_topk,
            "num_draft_tokens": spec_ndt,
        }.items()
        if v not in (None, "")
    }
    bench_group = group.strip() or None
    prompt_file = (prompt_path.strip() or None) if prompt_source == "dataset file" else None
    upload_error = None
    uploaded: str | None = None
    if prompt_source == "dataset file" and prompt_upload is not None:
        from comparelib import paths

        try:  # streamed under the data root with the upload cap, then read like a path
            prompt_file = uploaded = str(paths.save_upload(prompt_upload, prompt_upload.name))
        except CompareError as exc:
            upload_error = str(exc)
    elif prompt_file:
        from comparelib import paths

        try:  # checked here, in this session's thread: the run's thread belongs to no session (paths module doc)
            paths.resolve_user_path(prompt_file, "prompt file")
        except CompareError as exc:
            upload_error = str(exc)
    if upload_error:
        st.error(upload_error)
    elif prompt_source == "dataset file" and not prompt_file:
        st.error("give the path of a JSONL dataset, or choose the bundled prompts")
    else:
        from comparelib.live.prompts import prompt_set_name
        from comparelib.live.servers import SIDEBAR_DRAFT

        # your sidebar draft is the field's default; a field left empty records it too (walk BO5: the field came
        # back empty after a page switch and a new vLLM run was stored with no draft, left out of yours). It is
        # recorded only on a speculative run whose server reports no draft (vLLM); the example has no name to record
        own_name = (draft.match_name or "").strip()
        stated_draft = spec_draft.strip() or own_name or None
        sidebar = stated_draft is not None and stated_draft == own_name
        options = functools.partial(
            BenchOptions,
            endpoint=endpoint,
            concurrency=int(concurrency),
            requests=int(n_requests),
            max_tokens=int(max_tokens),
            temperature=float(temperature),
            warmup=int(warmup),
            timeout_s=float(timeout_s),
            labels=tuple(_labels(labels_text)),
            engine=None if engine == "auto" else engine,
            spec_override=spec or None,
            group=bench_group,
            prompt_set=prompt_set_name(prompt_file),
            spec_source="stated in the form",
            draft_model=stated_draft,
            draft_source=SIDEBAR_DRAFT if sidebar else "the form's Draft field",
        )
        job = BenchJob(endpoint=endpoint, total=int(n_requests), group=bench_group)
        st.session_state["bench_job"] = job
        threading.Thread(
            target=_run_job,
            args=(job, store, options, prompt_file, _session_watch(), _budget(), uploaded),
            name="bench-page",
            daemon=True,
        ).start()
        running = True


def _progress_panel() -> None:
    current: BenchJob | None = st.session_state.get("bench_job")
    if current is None:
        return
    if not current.done.is_set():
        st.progress(
            min(current.finished / max(current.total, 1), 1.0),
            text=f"{current.finished}/{current.total} requests done, {current.tok_s:.1f} output tok/s so far",
        )
        st.button("Stop", key="bench_stop", on_click=current.stop.set)
        return
    if current.error:
        st.error(current.error)
    elif current.status == "finished":
        st.success(
            f"Run {current.run_id} finished: {current.finished}/{current.total} requests, "
            f"{current.tok_s:.1f} output tok/s"
        )
    else:  # interrupted (stopped, or cut short): what finished is kept, but it is no success
        st.warning(
            f"Run {current.run_id} {current.status}: only {current.finished}/{current.total} requests "
            f"finished ({current.tok_s:.1f} output tok/s over those); the finished requests are kept.",
            icon=":material/warning:",
        )
    if current.notes and not current.error:  # kept with the run too (its summary's notes)
        st.caption(f"Run {current.run_id}: " + "; ".join(current.notes) + ".")
    if not current.shown:
        current.shown = True
        st.rerun(scope="app")  # refresh the tables below with the new run


st.fragment(run_every=1.0 if running else None)(_progress_panel)()

if job is not None and job.done.is_set() and not job.attached:
    # once, as the run is stored: your draft's runs are the ones you just measured. Later visits keep the sidebar's
    # group (walk W: every visit set the link back to the run's group, and the sidebar could not change it here)
    job.attached = True
    if (
        job.run_id is not None
        and job.group
        and not draft.is_example
        and not draft.refusal
        and draft.group != job.group
    ):
        app.set_own_draft(draft.with_(group=job.group))
        # said on one more run, whose sidebar (drawn above, before this) shows the group: walk AR, the sidebar still
        # showed the old group beside this sentence
        st.session_state[ATTACHED_SAID] = (
            f"Run group **{job.group}** is now attached to your draft; Overview and Acceptance vs data use it."
        )
        st.rerun()
if said := st.session_state.pop(ATTACHED_SAID, None):
    st.caption(said)

# ---------------------------------------------------------------- stored runs

st.subheader("Stored runs")
try:
    groups = store.groups()
    c1, c2 = st.columns([2, 1])
    group_choices = [ALL_GROUPS, *groups]
    app.follow_draft("runs_group", own_group if own_group in groups else ALL_GROUPS, draft, group_choices)
    group_filter = c1.selectbox("Group", group_choices, key="runs_group")
    app.follow_draft("runs_examples", draft.uses_example_data, draft)
    with_examples = c2.checkbox("Include example data", key="runs_examples")
    records = store.runs(group=None if group_filter == ALL_GROUPS else group_filter, include_examples=with_examples)
    table = runs_to_frame(records)
    order = tables.RUNS.order(list(table.columns))
    if table["model"].nunique(dropna=True) > 1:  # runs of two targets: whose numbers each row is, first
        order.insert(1, order.pop(order.index("model")))
    app.show_table(table, tables.RUNS, "runs_table", column_order=order)
    st.caption(f"Results database: `{store.display_url}` (set SPECDRAFT_DB to use another, e.g. PostgreSQL)")
    if (table["status"] == "running").any():
        st.caption(
            "Status **running** on a run that is not in progress means it was cut short (incomplete): "
            "the requests it finished are kept."
        )
    c1, c2 = st.columns([1, 3])
    fmt = c1.selectbox("Export format", list(export.FORMATS), key="runs_export_format")
    c2.download_button(
        f"Download runs table ({fmt})",
        data=functools.partial(export.render, table, fmt, table=tables.RUNS),  # made when clicked
        mime=export.MIME[fmt],
        file_name=f"runs.{export.EXTENSION[fmt]}",
        key="runs_export",
        on_click="ignore",  # no rerun: one would drop the other buttons' deferred files
    )

    import_fold = st.expander(
        "Import sglang.bench_serving / vllm bench serve results",
        expanded="import_msg" in st.session_state,
        key="import_open",
        on_change="rerun",
    )  # built only while open, or while it holds a file or a message
    if import_fold.open or "import_msg" in st.session_state or st.session_state.get("import_file") is not None:
        with import_fold:
            upload = st.file_uploader("Result file (JSONL or JSON)", type=["jsonl", "json"], key="import_file")
            c1, c2, c3, c4, c5 = st.columns([2, 2, 3, 2, 2])
            import_labels = c1.text_input("Labels (comma-separated)", key="import_labels")
            app.follow_draft("import_group", own_group or "", draft)  # as for a run: your draft's group
            import_group = c2.text_input(
                "Group",
                key="import_group",
                help="Runs of one group are charted together; your draft's group is the default.",
            )
            # vLLM results do not record the draft: without it your own import read "a run of another draft"
            _follow_sidebar_draft("import_draft", draft.match_name or "", draft)
            import_draft = c3.text_input(
                "Draft",
                key="import_draft",
                placeholder="from the file",
                help="The draft the server ran (Hub id or folder), stored as the run's draft: your draft's name is "
                "the default. A draft the file records (SGLang's) is kept, and the import says so where they differ.",
            )
            import_algo = c4.text_input(
                "Algorithm",
                key="import_spec_algorithm",
                placeholder="from the file",
                help="Stated speculative config (as the CLI's --spec-algorithm / --num-steps): it only fills what "
                "the file does not say (vLLM results do not carry it) and never makes a baseline speculative.",
            )
            import_steps = c5.number_input(
                "num_steps", 1, 64, value=None, key="import_spec_steps", placeholder="from the file"
            )
            if st.button("Import", key="import_run", disabled=upload is None) and upload is not None:
                from comparelib.live.importers import import_file, imported_text, stated_draft_text, stated_spec

                try:
                    with tempfile.TemporaryDirectory() as tmp:
                        path = Path(tmp) / "result"  # the server's temporary path is never shown or stored
                        path.write_bytes(upload.getvalue())
                        ids = import_file(
                            store,
                            path,
                            labels=_labels(import_labels),
                            group=import_group.strip() or None,
                            spec=stated_spec(import_algo, draft_model=import_draft, num_steps=import_steps),
                            name=upload.name,
                        )
                except CompareError as exc:
                    st.error(str(exc))
                else:
                    st.session_state["import_msg"] = imported_text(ids, upload.name)
                    note = stated_draft_text([store.run(i) for i in ids], import_draft)
                    if note:
                        st.session_state["import_note"] = note
                    st.rerun()  # show them in the tables above
            if "import_msg" in st.session_state:
                st.success(st.session_state.pop("import_msg"))
            if "import_note" in st.session_state:
                st.info(st.session_state.pop("import_note"), icon=":material/info:")

    all_runs = store.runs()
    by_title = {r.title: r for r in all_runs}
    # what each run is called on screen: its title, with the engine and batch where two stored runs would read alike
    # without them (batch 1 and 16 of one setting: ``run_titles``); the pickers keep the titles as their values
    names = run_titles(all_runs)

    def _named(title: str) -> str:
        return names[by_title[title].id] if title in by_title else title

    # ------------------------------------------------------------ comparison
    st.subheader("Compare runs")
    if all_runs:
        # start from your draft's runs (its group, else your latest runs), the example only when there are none;
        # when new runs arrive the selection follows them. Its pair is your draft's, as Overview's: runs of another
        # draft (or the target's own MTP) are left out and named
        pool = run_pool(all_runs, draft)
        # without your draft's run group the pool is the latest runs stored: none is yours (Overview's live speed
        # is missing), not another draft's runs taken as yours for want of any naming it
        attached = pool_is_attached(all_runs, draft)
        mine = runs_of_draft(pool, draft.match_name) if attached else unattached_runs(pool, draft)
        # your draft's newest speculative runs (the published draft's newest ones took the places of your num_steps
        # 1 and 2; baselines took places of the "6 newest"), and the whole sweep of your newest speculative run: a
        # num_steps 1..10 sweep opened on 5..10, its best 2 cut. The baselines they need come on top. Its sweep is
        # its line on the sweep chart below (``sweep_chart_inputs`` of the group): taken by ``sweep_mismatch``, a
        # num_steps measured again with more requests left the rest of its line out, named as "older runs"
        kept = list(mine.kept)
        spec = [r for r in kept if not r.is_baseline and r.num_steps]
        lines = speedup.sweep_chart_inputs(pool, draft=draft.match_name)[0] if spec else {}
        line = lines.get(spec[-1].id) if spec else None
        whole: list[Any] = [r for r in spec if lines.get(r.id) == line] if line is not None else spec[-1:]
        sweep = whole[-SWEEP_RUNS:]
        # from the 6th newest speculative run on, with the baselines measured among them (all runs when fewer)
        own_spec = [r for r in kept if not r.is_baseline]
        first = own_spec[-DEFAULT_RUNS] if len(own_spec) >= DEFAULT_RUNS else None
        window = kept[next(i for i, r in enumerate(kept) if r is first) :] if first is not None else kept
        newest = [r for r in kept if any(r is x for x in (*window, *sweep))]
        if attached:
            default_pick = [r.title for r in speedup.with_baselines(pool, newest, draft=draft.match_name)]
        else:  # the latest runs, each with its baseline: said to be other drafts' (mine.note)
            latest = [r for r in pool if not r.is_baseline][-DEFAULT_RUNS:]
            bases = [speedup.choose_baseline(pool, [r]) for r in latest]
            default_pick = [r.title for r in pool if any(r is x for x in (*latest, *bases))]
        older = [r for r in mine.kept if not r.is_baseline and r.title not in default_pick]
        if st.session_state.get("_compare_default") != default_pick or "compare_runs" not in st.session_state:
            st.session_state["_compare_default"] = default_pick
            st.session_state["compare_runs"] = default_pick
            _forget("compare_baseline")
        picked = st.multiselect("Runs", list(by_title), key="compare_runs", format_func=_named)
        if older and not {r.title for r in older} & set(picked):
            ids = ", ".join(f"#{r.id}" for r in older)
            # the sweep's runs named, as the sweep chart draws them: "its newest sweep" alone left a run of it unsaid;
            # a lone run on its line is no sweep (walk BB: "its newest sweep (#17: ... tree ...)")
            which = (
                "its newest run, alone on its line"
                if len(whole) == 1
                else "its newest sweep"
                if len(sweep) == len(whole)
                else f"the {len(sweep)} newest runs of its newest sweep"
            )
            on_chart = f': the sweep chart\'s line "{line}"' if line else ""
            named = f"{which} ({', '.join(f'#{r.id}' for r in sweep)}{on_chart})"
            st.caption(
                f"Your older {'runs' if len(older) > 1 else 'run'} {ids} {'are' if len(older) > 1 else 'is'} not "
                f"picked: the selection opens on your draft's {DEFAULT_RUNS} newest "
                f"speculative runs, {named}, the best chain and tree of each setting and their baselines. "
                "Add them under Runs to compare them too."
            )
        if not attached and mine.note:
            st.caption(mine.note)
        elif mine.note and not {r.title for r in mine.left_out} & set(picked):
            # runs that record no draft are not said to be another draft's (they may be yours: vLLM reports none)
            whose = "of another draft" if len(mine.unrecorded) < len(mine.left_out) else "left out"
            add = f" Runs {whose} can be added under Runs to compare them with yours." if mine.left_out else ""
            st.caption(mine.note + add)
        picked_runs = [by_title[t] for t in picked]
        if picked:
            base_title = st.selectbox(
                "Baseline run",
                [OWN_BASELINES, *picked],
                key="compare_baseline",
                format_func=_named,
                help="Each run against a baseline of its own model, engine, batch and settings among the runs "
                "picked (a group of SGLang and vLLM runs: each engine's own); or one run for every row.",
            )
            chosen = None if base_title == OWN_BASELINES else by_title[base_title]
            cmp = _comparison(picked_runs, chosen)
            cmp["run"] = [names[r.id] for r in picked_runs]  # one row per run, in order
            # rows over 64 px let the grid wrap text: "why no speedup" is read whole in its column
            app.show_table(cmp, tables.RUN_COMPARISON, "compare_table", row_height=tables.WRAP_ROW_PX, ordered=True)
            st.caption(
                "speedup = output tok/s of the run / output tok/s of its baseline run (the baseline column), only "
                'against a baseline of the same target model, engine and settings; otherwise "why no speedup" '
                "says why there is none."
            )

    # ------------------------------------------------------------ sweep chart
    st.subheader("Sweep: num_steps")
    if groups:
        wanted = draft.group if draft.group in groups else (latest_own_group(all_runs) or EXAMPLE_GROUP)
        if wanted in groups and (  # follow your draft / latest runs
            st.session_state.get("_sweep_default") != wanted or "sweep_group" not in st.session_state
        ):
            st.session_state["_sweep_default"] = wanted
            st.session_state["sweep_group"] = wanted
        sweep_group = st.selectbox("Group", groups, key="sweep_group")
        group_runs = store.runs(group=sweep_group)
        # a group of several target models (drafts): each line and baseline says its model (each line its draft)
        series, models = speedup.sweep_chart_inputs(group_runs, draft=draft.match_name)
        specs = app.chart_spec(run_sweep_charts, group_runs, series, models)
        if specs is None:
            st.info("this group has no runs with a throughput to chart")
        else:
            left, right = st.columns(2)
            with left:
                app.draw_chart(specs[0], key="sweep_speed_chart")
            if specs[1] is not None:
                with right:
                    app.draw_chart(specs[1], key="sweep_accept_chart")
            else:
                right.info("no acceptance lengths in this group (baselines and generic OpenAI servers have none)")
        st.caption(
            "Dashed lines: the group's baseline runs (no speculation), labelled with run id and labels. A hollow "
            "point: a num_steps its line measured again (another number of requests); the line goes through the "
            "better measured run, as its tooltip says. On the acceptance chart each setting's points sit a little "
            "to one side of their num_steps (one offset per setting, its tooltip says the num_steps), so settings "
            "that measured one acceptance length stay apart; the point's shape is the engine."
        )
        if sweep_group == EXAMPLE_GROUP:
            st.caption(
                "Example data: only the measured points of the session are shown (the best point of a "
                "num_steps 1..10 sweep; the other points were not recorded). Acceptance length ~2.1 is "
                "approximate; target verify took 21-28 ms, over 95% of each cycle."
            )
    else:
        st.info("give runs a group (e.g. one per sweep) to chart them against num_steps")

    # ------------------------------------------------------------ per-request rows
    st.subheader("Per-request results")
    if all_runs:
        # your newest run with per-request rows (of your draft's target when the runs have several)
        opens = speedup.requests_run(
            all_runs, draft.match_name, lambda: app.draft_target(draft, run_pool(all_runs, draft)).model
        )
        latest = (opens or all_runs[-1]).title
        if st.session_state.get("_requests_default") != latest or "requests_run" not in st.session_state:  # a new run
            st.session_state["_requests_default"] = latest
            st.session_state["requests_run"] = latest
        req_title = st.selectbox("Run", list(by_title), key="requests_run", format_func=_named)
        reqs = store.requests(by_title[req_title].id)
        if reqs.empty:
            st.info("no per-request rows for this run (example and summary-only imports have none)")
        else:
            view = requests_to_frame(reqs)
            app.show_table(view, tables.REQUESTS, "requests_table")  # the timings first, then the rest
except CompareError as exc:
    st.error(str(exc))
