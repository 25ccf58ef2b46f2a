"""specdraft compare: a thin router, like Streamlit's own ``hello`` app.

It is also the one error boundary (a page that fails shows a short message; the log keeps the
traceback) and the optional sign-in gate (SPECDRAFT_REQUIRE_LOGIN, Streamlit's built-in OIDC).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

if TYPE_CHECKING:  # the pages import this module first: comparelib loads only when a function needs it
    import pandas as pd

    from comparelib.analysis.overview import Reference
    from comparelib.live.store import Store
    from comparelib.models.comparison import Entry
    from comparelib.models.draft import DraftTarget, OwnDraft
    from comparelib.tables import Table

HERE = Path(__file__).parent
PAGES = HERE / "pages"
# Session-state key set by run(): pages of this session are being run by the router below.
ROUTED = "_specdraft_routed"
PAGE_STATE = "_specdraft_page"
# Bundled: a ":material/...:" page icon makes the browser fetch the favicon from fonts.gstatic.com.
ICON = HERE / "assets" / "favicon.png"
LOG = logging.getLogger("specdraft.app")
UNEXPECTED = (
    "Something went wrong on this page. The details were logged on the server; try other input or reload the page."
)


def page_boundary(body: Callable[[], object]) -> None:
    """Run a page: CompareError -> its message; anything else -> logged with its traceback, short message shown.

    Streamlit's own control flow (st.stop, st.rerun, st.switch_page) derives from BaseException and
    passes through untouched.
    """
    from comparelib import redact
    from comparelib.errors import CompareError

    try:
        body()
    except CompareError as exc:
        st.error(redact.mask_text(str(exc)))
    except Exception:  # noqa: BLE001 - the one boundary: nothing but this sentence reaches a visitor
        LOG.error("page failed:\n%s", redact.traceback_text())
        st.error(UNEXPECTED)


def signed_in() -> bool:
    """True when the visitor may see the pages; otherwise the sign-in prompt is shown instead.

    Off unless SPECDRAFT_REQUIRE_LOGIN is set. Then an [auth] section in .streamlit/secrets.toml is
    required (fail closed), and st.login / st.user do the OIDC flow.
    """
    from comparelib import settings

    if not settings.require_login():
        return True
    try:
        auth = st.secrets.get("auth")
    except Exception:  # noqa: BLE001 - no or unreadable secrets.toml
        auth = None
    if not auth:
        st.error(
            "Sign-in is required here (SPECDRAFT_REQUIRE_LOGIN) but not configured: the operator must add an "
            "[auth] section to .streamlit/secrets.toml (see README, Shared deployment)."
        )
        return False
    if _logged_in():
        with st.sidebar:
            st.caption(f"Signed in as {st.user.get('email') or st.user.get('name') or 'you'}")
            st.button("Log out", key="auth_logout", on_click=st.logout)
        return True
    providers = [k for k, v in dict(auth).items() if hasattr(v, "keys")]
    st.title("specdraft compare")
    st.info("This dashboard is shared: sign in to use it.")
    for provider in providers or [None]:
        label = "Log in" if provider is None else f"Log in with {provider}"
        st.button(
            label,
            key=f"auth_login_{provider or 'default'}",
            type="primary",
            on_click=st.login,
            args=(provider,) if provider else (),
        )
    return False


def visitor() -> str:
    """Who is using the page, for provenance (who attached a volume): the signed-in user, else 'anonymous'."""
    from comparelib.live.store import ANONYMOUS, UNNAMED_SIGN_IN  # the names the owner check never trusts

    if _logged_in():
        return str(st.user.get("email") or st.user.get("name") or UNNAMED_SIGN_IN)
    return ANONYMOUS


def _logged_in() -> bool:
    """st.user.is_logged_in, False where Streamlit has no such key (no [auth] section)."""
    try:
        return bool(st.user.to_dict().get("is_logged_in", False))
    except Exception:  # noqa: BLE001 - no script context
        return False


def run() -> None:
    """The router: every page runs through here (``st.navigation``), also when a link opens it directly."""
    # The icon comes after the page (finally, below): Streamlit loads numpy and PIL for an image icon, 0.1 s of
    # a fresh server's first run, and the heading and sidebar go first. Later calls add to this one.
    st.set_page_config(page_title="specdraft compare", layout="wide")
    import uploadgate

    uploadgate.install()  # Streamlit's upload endpoint is outside this script: gate it too
    allowed = signed_in()
    uploadgate.mark(allowed)
    if not allowed:
        return
    nav = st.navigation(
        {
            "Answer": [
                st.Page(PAGES / "overview.py", title="Overview", icon=":material/dashboard:", default=True),
            ],
            "Tools": [
                st.Page(PAGES / "compare.py", title="Compare drafts", icon=":material/compare:", url_path="compare"),
                st.Page(PAGES / "audit.py", title="Dataset audit", icon=":material/dataset:", url_path="audit"),
                st.Page(PAGES / "bench.py", title="Live benchmark", icon=":material/speed:", url_path="bench"),
                st.Page(
                    PAGES / "scaling.py", title="Acceptance vs data", icon=":material/trending_up:", url_path="scaling"
                ),
            ],
        }
    )
    st.session_state[ROUTED] = True
    st.session_state[PAGE_STATE] = nav.url_path  # which page this run shows (the sidebar form is per page)
    keep_values(resend=True)  # on every page: what was typed on another is still there, and shown
    try:
        page_boundary(nav.run)
    finally:  # also when the page stops early (st.stop)
        kept_values_sent()
        st.set_page_config(page_icon=str(ICON))
    warm_up()
    prefetch_browser_code()


_WARM_LOCK = threading.Lock()
_warm_started = False


def warm_up() -> None:
    """Once per server, after the first page has shown its answer: load in a background thread what the
    other pages need first (Altair and the charts, the engine rules, the benchmark and audit modules, the
    default comparison's target counts), so the next page a user opens does not pay for it.

    Nothing here touches a session: no token, no session state, only modules and counts of shipped configs.
    """
    import app as kept  # this file also runs as __main__, afresh each run; the imported module persists

    with kept._WARM_LOCK:
        if kept._warm_started:
            return
        kept._warm_started = True
    threading.Thread(target=_warm, name="specdraft-warm-up", daemon=True).start()


# Streamlit's frontend loads each widget's code the first time a page shows one (React.lazy), which made a
# page's first visit in a browser session 0.3-1 s slower than its revisit. These are the lazily loaded
# modules the pages use (in the order a user meets them: Compare's grids, charts and code first), by the
# stem of their hashed file names in Streamlit's build. vega's embed and interpreter are loaded by
# loadVegaEmbed on demand, so they are named too; the others bring their own imports.
BROWSER_CHUNKS = (
    "DataFrame",
    "ArrowVegaLiteChart",
    "loadVegaEmbed",
    "embed",
    "vega-interpreter",
    "Multiselect",
    "TextArea",
    "Checkbox",
    "DownloadButton",
    "StreamlitSyntaxHighlighter",
    "NumberInput",
    "Button",
    "PageLink",
    "Radio",
    "FileUploader",
)
PREFETCHED = "_specdraft_prefetched"


def prefetch_browser_code() -> None:
    """Once per browser session, after its first page has run: a second later (that page's own drawing goes
    first), the browser loads and runs, one module at a time while it is idle, the frontend code of the
    widgets the other pages show, so that their first visit costs what a revisit does. Only Streamlit's own
    files, named from its installed build."""
    if st.session_state.get(PREFETCHED):
        return
    st.session_state[PREFETCHED] = True
    names = browser_chunks()
    if names:
        st.html(prefetch_script(names), unsafe_allow_javascript=True, width=1)


@functools.cache
def browser_chunks() -> tuple[str, ...]:
    """The file names of BROWSER_CHUNKS in the installed Streamlit (hashed: found, never written here); a stem
    that an upgrade renamed or split is left out (tests/test_prefetch.py says which)."""
    js = Path(st.__file__).parent / "static" / "static" / "js"
    found = []
    for stem in BROWSER_CHUNKS:
        hits = [p.name for p in js.glob(f"{stem}.*.js") if p.name.count(".") == 2]
        if len(hits) == 1:
            found.append(hits[0])
    return tuple(found)


def prefetch_script(names: tuple[str, ...]) -> str:
    """The script: each name resolved against the URL of Streamlit's own main module (so a base URL path
    works), imported when the browser is idle; a failure only means that page loads it itself."""
    import json

    listed = json.dumps(list(names)).replace("<", "\\u003c")  # no "</script>" can come from a name
    return (
        "<script>(() => {"
        'const main = document.querySelector(\'script[type="module"][src*="static/js/index."]\');'
        "if (!main) return;"
        f"const names = {listed};"
        "window.__specdraftPrefetch = names.slice();"
        "const idle = window.requestIdleCallback || ((f) => setTimeout(f, 100));"
        "const next = () => { const n = names.shift();"
        " if (!n) { window.__specdraftPrefetched = true; return; }"
        " import(new URL(n, main.src).href).catch(() => {}).finally(() => idle(next, {timeout: 1000})); };"
        "setTimeout(() => idle(next, {timeout: 1000}), 1000);"
        "})();</script>"
    )


def _warm() -> None:
    import importlib

    try:
        for name in (
            "comparelib.charts",
            "comparelib.analysis.plan",
            "comparelib.models.comparison",
            "comparelib.models.serving",
            "comparelib.live.bench",
            "comparelib.live.store",
            "comparelib.audit.scan",
            "comparelib.analysis.curves",
            "comparelib.analysis.draftcost",
        ):
            importlib.import_module(name)
        from comparelib.models import comparison

        comparison.prepare_targets()
    except Exception:  # noqa: BLE001 - a warm-up failure only means the page that needs it does the work
        LOG.warning("warm-up failed:\n%s", _traceback())


def _traceback() -> str:
    from comparelib import redact

    return redact.traceback_text()


def ensure_routed() -> None:
    """Pages call this first: a page run without the router runs the router instead.

    A folder named ``pages/`` next to app.py makes Streamlit start in its legacy multipage mode
    until some session calls ``st.navigation`` (streamlit/runtime/pages_manager.py, PagesManager;
    scriptrunner/script_runner.py, _mpa_v1). A shared deep link that is a fresh server's first visit
    would then run the page file on its own: no navigation, no sign-in gate. Only public API is used
    to tell: the router marks the session; an unmarked page run routes through ``run()``, whose
    ``st.navigation`` resolves the same URL to the same page.
    """
    if not st.session_state.get(ROUTED):
        run()
        st.stop()


@st.cache_resource(show_spinner=False)
def open_store(url: str) -> Store:
    """One results store per database URL for the whole server, with the built-in example loaded once."""
    from comparelib.live.store import Store

    store = Store(url)
    store.ensure_examples()
    return store


@st.cache_data(show_spinner=False, ttl=3600, max_entries=128)  # keyed by what visitors type: bounded
def _draft_entry_read(source: str, token_tag: str, target: str | None = None) -> Entry:
    from comparelib.analysis import summary

    return summary.read_entry(source, target)  # an uncounted target's total from its headers (walk BL4)


FAILED_READ_S = 60.0  # a failed read is tried again after this long, or at once with a token or another draft


def draft_entry(source: str, token_tag: str, target: str | None = None) -> Entry:
    """A draft's sizes and target from its config alone (no card, no header: an uncounted target's total is read
    from its checkpoint headers, ``summary.read_entry``), shared by the pages that answer
    for it (Overview, Acceptance vs data's reference). ``token_tag`` is a token's fingerprint, never the token:
    a gated draft read with one session's token is not served to a session without it.

    A read that failed is remembered for this browser session for ``FAILED_READ_S``, its error raised again:
    st.cache_data keeps no exception, so each rerun of each page read the Hub again, several times a run."""
    import time

    from comparelib.errors import CompareError

    failed: dict[tuple[str, str, str | None], tuple[float, CompareError]] = st.session_state.setdefault(
        "_failed_reads", {}
    )
    key = (source, token_tag, target)
    if key in failed and time.monotonic() - failed[key][0] < FAILED_READ_S:
        raise failed[key][1].with_traceback(None)
    try:
        entry = _draft_entry_read(source, token_tag, target)
    except CompareError as exc:
        failed[key] = (time.monotonic(), exc)
        raise
    failed.pop(key, None)
    return entry


@st.cache_data(show_spinner=False, ttl=3600, max_entries=128)  # keyed by what visitors type: bounded
def draft_card_target(source: str, token_tag: str) -> str | None:
    """The ``base_model`` a draft's model card names (``models.draft.card_target``: README front matter only, size
    capped; None offline or without a card), for a config that names no target. ``token_tag`` as ``draft_entry``."""
    from comparelib.models.draft import card_target

    return card_target(source)


def draft_target(draft: OwnDraft, runs: Sequence[Any] = ()) -> DraftTarget:
    """The target your draft names or was published for, else the one its own ``runs`` were served with, else
    the one set on Compare drafts in this session (``draft.target``), with the sentence a page shows about the
    last (``models.draft.resolve_target``). A draft that cannot be read names none: the page shows why."""
    from comparelib import settings
    from comparelib.errors import CompareError
    from comparelib.models.draft import target_of

    def card() -> str | None:
        with settings.session_token(hub_token()):
            return draft_card_target(draft.source, settings.token_fingerprint())

    entry = None
    try:
        with settings.session_token(hub_token()):
            entry = draft_entry(draft.source, settings.token_fingerprint())
    except CompareError:
        pass
    return target_of(draft, runs, entry, card)  # the CLI's overview takes it by the same rule


def own_draft_target(draft: OwnDraft, runs: Sequence[Any] = ()) -> str | None:
    """The hub id of ``draft_target``: what a reference for your draft's target is chosen by."""
    return draft_target(draft, runs).model


def pick_reference(key: str, choices: list[str], suggested: Reference, draft: OwnDraft) -> None:
    """Preselect ``suggested`` in the reference selectbox ``key`` for this draft; a pick made there holds until
    another draft is chosen (then that draft's suggestion, or the pick made for it earlier this session, is
    preselected). A suggestion that changes for the same
    draft replaces the one preselected before, unless the user picked another: walk R typed the Hub token after
    pasting a private draft, its target became known, and Overview kept the Kimi-K2 draft suggested before it."""
    state = st.session_state
    owner, said, pick = f"_{key}_for", f"_{key}_suggested", f"_{key}_pick"
    # the pick made for each draft this session (the page's ``_{key}_pick``: draft source, reference), to bring back
    # with it: walk BS 1 pasted the target and the draft again, and Overview's pick and headline were gone
    picks: dict[str, str] = state.setdefault(f"_{key}_picks", {})
    made = state.get(pick)
    if isinstance(made, tuple) and len(made) == 2 and made[0] == state.get(owner) and state.get(key) == made[1]:
        picks[str(made[0])] = str(made[1])
    new = suggested.hub_id if suggested.hub_id in choices else (choices[0] if choices else None)
    stale = state.get(key) == state.get(said) and state.get(said) != new  # still the old suggestion, unpicked
    if choices and state.get(owner) != draft.source and picks.get(draft.source) in choices:
        state[key] = picks[draft.source]
        state[pick] = (draft.source, picks[draft.source])
        state[owner] = draft.source
    elif choices and (state.get(owner) != draft.source or state.get(key) not in choices or stale):
        state[key] = new
        state[owner] = draft.source
    state[said] = new


def follow_draft(key: str, value: Any, draft: OwnDraft, choices: list[Any] | None = None) -> None:
    """Preset widget ``key`` to ``value`` whenever the sidebar's draft (or its attached volume, samples or run
    group) changes: a keyed widget ignores a new default, so without this a page kept showing the previous
    draft's volume and runs. A pick made in the widget holds until the draft changes."""
    state = st.session_state
    owner = f"_{key}_for"
    tag = repr(sorted(draft.to_query().items()))
    if state.get(owner) != tag or (choices is not None and state.get(key) not in choices):
        if value is None:
            state.pop(key, None)
        else:
            state[key] = value
        state[owner] = tag


MISSING = "–"  # what a table shows for a missing value (never "None")


def column_config(table: Table, frame: pd.DataFrame | None = None) -> dict[str, Any]:
    """st.column_config for a ``comparelib.tables.Table``: units, number formats, widths, pinned name column."""
    from comparelib import tables

    cfg: dict[str, Any] = {}
    for c in table.columns:
        if frame is not None and c.name not in frame.columns:
            continue
        width = c.width
        if width is None and c.kind == "text" and frame is not None:
            # every name whole, not only the rows the grid samples (walk BX 4: Stored runs cut each draft to
            # "ferrylab"); the pinned one up to its table's cap, so the key columns stay on screen
            values = frame[c.name]
            width = tables.pinned_px(table, values, c.title) if c.pinned else tables.fit_px(values, c.title)
        common: dict[str, Any] = {
            "label": c.title,
            "width": width,
            "help": c.help,
            "pinned": True if c.pinned else None,
        }
        if c.kind in ("int", "float"):
            cfg[c.name] = st.column_config.NumberColumn(format=c.printf(), **common)
        elif c.kind == "datetime":
            cfg[c.name] = st.column_config.DatetimeColumn(format="localized", **common)
        else:
            cfg[c.name] = st.column_config.TextColumn(**common)
    return cfg


TABLE_ROWS_SHOWN = 12  # rows a table of tall (wrapped) rows keeps on screen before it scrolls
TABLE_CHROME_PX = 40  # its header and borders


def table_height(rows: int, row_height: int | None) -> int | str:
    """A table's height: tall rows (wrapped text) keep up to ``TABLE_ROWS_SHOWN`` on screen (walk Q: the default
    height showed 5 of 9 compared runs at 72 px a row); "auto" for Streamlit's own rows."""
    if not row_height:
        return "auto"
    return min(max(rows, 1), TABLE_ROWS_SHOWN) * row_height + TABLE_CHROME_PX


def show_table(
    frame: pd.DataFrame,
    table: Table,
    key: str,
    *,
    row_height: int | None = None,
    ordered: bool = True,
    column_order: list[str] | None = None,
) -> None:
    """One st.dataframe look for every page: the table's units and formats, its column order (or the page's
    ``column_order``), one missing mark."""
    st.dataframe(
        frame,
        width="stretch",
        hide_index=True,
        placeholder=MISSING,
        key=key,
        row_height=row_height,
        height=table_height(len(frame), row_height),
        column_config=column_config(table, frame),
        column_order=column_order or (table.order(list(frame.columns)) if ordered else None),
    )


def show_frame(frame: Any, key: str | None = None) -> None:
    """A plain table (no column descriptions): the same look as show_table, one missing mark."""
    st.dataframe(frame, width="stretch", hide_index=True, placeholder=MISSING, key=key)


# A page's charts, as Vega-Lite specs, for the same inputs (per server; old ones go first).
CHART_CACHE_ENTRIES = 256


def chart_spec(build: Callable[..., Any], *args: Any, inputs: Any = None, **kw: Any) -> Any:
    """``build(*args, **kw)`` as the Vega-Lite spec st.altair_chart would draw, cached per its inputs.

    Building an Altair chart and turning it into a spec (both validated by jsonschema) was ~40% of a warm
    rerun; with the same inputs a rerun now does no Altair work. The arguments are hashed by st.cache_data
    (DataFrames, dataclasses, tuples, ...); where that is slow or impossible (a training curve of thousands
    of points: hashing it took 4x its chart), ``inputs`` stands in for all of them: something small that
    is equal exactly when the chart would be. A builder that returns several charts (or None) gives their
    specs in the same shape.
    """
    name = f"{build.__module__}.{build.__qualname__}"
    if inputs is None:
        return _chart_spec(name, (args, kw), build, args, kw)
    return _chart_spec(name, ("inputs", inputs), build, args, kw)


@st.cache_data(show_spinner=False, max_entries=CHART_CACHE_ENTRIES)
def _chart_spec(
    name: str, inputs: Any, _build: Callable[..., Any], _args: tuple[Any, ...], _kw: dict[str, Any]
) -> Any:
    built = _build(*_args, **_kw)
    if isinstance(built, tuple):
        return tuple(None if c is None else _to_spec(c) for c in built)
    return None if built is None else _to_spec(built)


def _to_spec(chart: Any) -> dict[str, Any]:
    """Streamlit's own conversion (st.altair_chart's): the "none" Altair theme instead of the default one,
    under Streamlit's lock, each DataFrame as an Arrow dataset named by its content hash. Its own, so the
    browser gets exactly what it got before; test_charts_cache checks the two still agree."""
    from streamlit.elements.vega_charts import _convert_altair_to_vega_lite_spec

    return _convert_altair_to_vega_lite_spec(chart)


def draw_chart(spec: dict[str, Any], key: str | None = None) -> None:
    """Draw a spec from ``chart_spec`` as st.altair_chart(chart, width="stretch") would, its secondary grey set for
    the browser's theme (``charts.for_theme``: no one grey is readable on both)."""
    from comparelib import charts

    st.vega_lite_chart(spec=charts.for_theme(spec, _theme()), width="stretch", key=key)


def _theme() -> str | None:
    """The browser's theme ("light" / "dark"), None where Streamlit does not say (AppTest, older clients)."""
    try:
        return st.context.theme.type
    except Exception:  # noqa: BLE001 - no theme known is the light default, never a broken page
        return None


def show_chart(build: Callable[..., Any], *args: Any, key: str | None = None, inputs: Any = None, **kw: Any) -> None:
    """Draw ``build(*args, **kw)`` (one chart), built only when its inputs changed (``chart_spec``)."""
    draw_chart(chart_spec(build, *args, inputs=inputs, **kw), key=key)


# Widgets whose values outlive runs that do not draw them (keep_values): those built only while their tab or
# fold-out is shown (Acceptance vs data's tabs, Live benchmark's fold-outs), also across a visit to another
# page. Never an uploader or a button (Streamlit refuses to have them written). tests/test_kept_values.py
# finds any lazily built widget missing here.
KEPT: tuple[str, ...] = (
    "sc_tab",
    "sc_excluded_open",
    "sc_ex_bench",
    "sc_dc_source",
    "sc_dc_first",
    "sc_dc_figures_open",
    "lc_path",
    "lc_batch",
    "lc_epoch",
    "lc_steps",
    "lc_split",
    "lc_evidence_open",
    "od_draft",
    "od_dumps",
    "od_target",
    "od_steps",
    "od_max",
    "bench_form_open",
    "bench_endpoint",
    "bench_engine",
    "bench_concurrency",
    "bench_requests",
    "bench_max_tokens",
    "bench_temperature",
    "bench_warmup",
    "bench_timeout",
    "bench_labels",
    "bench_group",
    "bench_spec_algorithm",
    "bench_spec_draft",
    "bench_spec_steps",
    "bench_spec_topk",
    "bench_spec_ndt",
    "bench_prompt_source",
    "bench_prompt_path",
    "import_open",
    "import_labels",
    "import_group",
    "import_draft",
    "import_spec_algorithm",
    "import_spec_steps",
    # Live benchmark's picks, drawn on every run of the page but forgotten on a visit to another page (a revisit
    # showed no runs to compare and the example's sweep)
    "runs_group",
    "runs_examples",
    "runs_export_format",
    "compare_runs",
    "compare_baseline",
    "sweep_group",
    "requests_run",
    # Dataset audit's form: leaving and coming back emptied the dataset and tokenizer fields under the results they
    # gave, and the tokenizer's caption then spoke of a bytes / 4 estimate above counts made with a tokenizer (walk BJ)
    "audit_source",
    "audit_tokenizer",
    "audit_max_length",
    "audit_format",
    "audit_config",
    "audit_split",
    "audit_sample_mode",
    "audit_sample_n",
    "dumps_folder",
    "dumps_config",
    "dumps_hidden",
    "dumps_max_files",
    "dumps_full",
    # the reference picked on Overview and on Acceptance vs data: a visit to another page put the suggestion back
    # (walk BI: RedHat picked on Overview, Overview answered against lmsys again after Compare)
    "ov_ref",
    "sc_ref",
    # Acceptance vs data's benchmark, axis and setting: a visit to another page put GSM8K back (walk BV 2)
    "sc_bench",
    "sc_x",
    "sc_setting",
    # Compare's drafts: its link parameters stay behind on a page switch, and a second draft pasted there was gone
    # on return (walk BX 3); the target field follows your draft (its own fill rule), so it is not kept here
    "compare_picks",
    "compare_urls",
    "compare_target_layers",
    "compare_target_all",
)
KEPT_SHADOW = "_kept:"  # keep_values' copy of each kept value, under a key no widget has
_KEPT_PAGE = "_kept_page"  # the page keep_values last ran on: a switch is when kept values are sent again
_KEPT_UNSENT = "_kept_unsent"  # kept values not yet sent with their widgets since the last switch
KEPT_PREFIXES: tuple[str, ...] = ("sc_dc_acc_",)  # one acceptance input per draft in the step-cost figures


def keep_values(
    keys: tuple[str, ...] = KEPT, prefixes: tuple[str, ...] = KEPT_PREFIXES, *, resend: bool = False
) -> None:
    """Keep the values of widgets that are built only while their tab or fold-out is shown.

    Streamlit forgets a widget's value after a run that does not draw it, and on a switch to another page
    before that page runs, so such a part would come back reset. Each value is copied under a key of its
    own (``KEPT_SHADOW`` + key), which is no widget's and so is never cleared, and written back only when the
    widget's own key is gone. Never while it is there: a value written into session state goes to the browser
    with the widget (set_value), replacing what it shows, so a run still in flight when the user committed
    another value (fill, Tab) reset that field (walk AB: Max tokens 64 read 256 again, and the run used 256).
    Uploaders and buttons cannot be written: never name them here. The router calls this on every run; the
    pages that build parts lazily call it too, so a page run on its own (AppTest) keeps them as well.
    """
    state = st.session_state
    for key in list(state):
        if isinstance(key, str) and (key in keys or (prefixes and key.startswith(prefixes))):
            state[KEPT_SHADOW + key] = state[key]
    for shadow in [k for k in list(state) if isinstance(k, str) and k.startswith(KEPT_SHADOW)]:
        if shadow[len(KEPT_SHADOW) :] not in state:
            state[shadow[len(KEPT_SHADOW) :]] = state[shadow]
    if not resend:
        return
    page = state.get(PAGE_STATE)
    if state.get(_KEPT_PAGE, page) != page:
        # a switch: the browser forgot this page's widgets, and a value the session still holds goes to the browser
        # only when written in the run that draws its widget; unwritten, a select is drawn on its first option and
        # the next rerun sends that back as the user's change (walk BQ 8: Acceptance vs data's reference became
        # AQ-MedAI/Kimi-K2-Instruct-eagle3, the first listed, and its benchmark GSM8K; walk BR 2: Live benchmark's
        # Runs select showed none picked while its table compared them; walk BS 6: the learning curve's samples per
        # logged step read 0, drawn in a tab a later run). Each is written on every run until one draws it: never
        # after, so a value a user enters while a run is in flight is not reset (walk AB).
        state[_KEPT_UNSENT] = {k for k in state if isinstance(k, str) and _kept(k, keys, prefixes)}
    state[_KEPT_PAGE] = page
    for key in state.get(_KEPT_UNSENT) or ():
        if key in state:
            state[key] = state[key]


def _kept(key: str, keys: tuple[str, ...], prefixes: tuple[str, ...]) -> bool:
    return not key.startswith(KEPT_SHADOW) and (key in keys or bool(prefixes and key.startswith(prefixes)))


def kept_values_sent() -> None:
    """After a run: the kept values whose widgets it drew went to the browser with them (``keep_values``)."""
    unsent = st.session_state.get(_KEPT_UNSENT)
    if unsent:
        st.session_state[_KEPT_UNSENT] = {k for k in unsent if not _drawn_this_run(k)}


def _drawn_this_run(key: str) -> bool:
    """Whether this run drew the widget keyed ``key``. Streamlit has no public call for it; where its run context
    does not say, every kept value counts as sent after one run (as before walk BS 6)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    keys = getattr(getattr(ctx, "shared", None), "widget_user_keys_this_run", None) if ctx is not None else None
    try:
        return keys is None or key in keys
    except TypeError:  # no membership test in another Streamlit version
        return True


DRAFT_STATE = "own_draft"
# {draft identity (a Hub draft however pasted, walk BM): the learning curve of the training log loaded this session}
CURVE_STATE = "_own_curve"


def remember_curve(draft: OwnDraft, curve: Any) -> None:
    """The Acceptance vs data page's learning curve for ``draft``, for Overview's answer and plan (this session
    only): the answer weighs its verdict, the plan fits on it instead of the published trend."""
    st.session_state.setdefault(CURVE_STATE, {})[draft.identity] = curve


def own_curve(draft: OwnDraft) -> Any:
    """The learning curve of the training log loaded for ``draft`` in this session, else the one kept with the
    draft (``stored_curve``: a reload or a share link answers as its sender saw), if any."""
    curve = st.session_state.get(CURVE_STATE, {}).get(draft.identity)
    if curve is not None:
        return curve
    kept = stored_curve(draft)
    return kept["curve"] if kept is not None else None


KEPT_CURVE_RUN = "_kept_curve_run"  # (this run's marker, {draft name: its kept curve or None}): one read per run


def _run_memo() -> dict[str, Any]:
    """A dict that lives for this script run only: Streamlit gives each run a new ``cursors`` dict, held here so
    the next run, whose dict differs, starts empty. Outside a run (bare mode) a new dict every call."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    marker = getattr(get_script_run_ctx(), "cursors", None)
    held = st.session_state.get(KEPT_CURVE_RUN)
    if marker is None:
        return {}
    if not isinstance(held, tuple) or held[0] is not marker:
        held = (marker, {})
        st.session_state[KEPT_CURVE_RUN] = held
    return held[1]


def stored_curve(draft: OwnDraft) -> dict[str, Any] | None:
    """The learning curve kept with ``draft`` (the newest stored under ``draft.name``, "Keep this log with your
    draft" on Acceptance vs data): the store's row (id, source: the log's file name, created_at, attached_by, how
    it was read) with ``curve`` (None where it cannot be shown, ``problem`` says why); None when none is kept, and
    for the built-in example. Read once per page run; the curve, rebuilt from its points, is cached by its id.
    The curves module is imported only when a curve is kept."""
    if draft.is_example:
        return None
    memo = _run_memo()
    if draft.name in memo:
        return memo[draft.name]
    from comparelib import settings
    from comparelib.errors import CompareError

    found: dict[str, Any] | None = None
    try:
        url = settings.database_url()
        row = open_store(url).learning_curve(draft.name, points=False)
    except CompareError as exc:  # the store unreadable: the pages answer without a kept log
        LOG.warning("kept learning curve of %s not read: %s", draft.name, exc)
        row = None
    if row is not None:
        found = {**row, "curve": None, "problem": None}
        try:
            found["curve"] = _kept_curve(url, row["id"], str(row["created_at"]))
        except CompareError as exc:
            found["problem"] = str(exc)
    memo[draft.name] = found
    return found


@st.cache_resource(show_spinner=False, max_entries=32)
def _kept_curve(url: str, curve_id: int, created_at: str) -> Any:
    """A kept curve fitted again from its stored points (``curves.from_stored``), shared by every session: a kept
    row never changes (``created_at`` is part of the key all the same). StoreError when it was forgotten."""
    from comparelib.analysis import curves
    from comparelib.errors import StoreError

    del created_at
    row = open_store(url).learning_curve_by_id(curve_id)
    if row is None:
        raise StoreError("the learning curve kept with this draft was forgotten meanwhile")
    return curves.from_stored(row)


def kept_curve_changed() -> None:
    """After keeping or forgetting a curve in this run: the next ``stored_curve`` reads the store again."""
    st.session_state.pop(KEPT_CURVE_RUN, None)


def draft_key(prefix: str, draft: OwnDraft) -> str:
    """A widget key of its own per draft: ``prefix`` and a digest of the draft's source. For widgets Streamlit
    cannot be told to empty (an uploader): another draft gets another, empty widget instead of the previous
    draft's file."""
    import hashlib

    return f"{prefix}_{hashlib.sha256(draft.source.encode()).hexdigest()[:12]}"


def per_draft_values(name: str, keys: tuple[str, ...], draft: OwnDraft) -> None:
    """Keep the values of widgets ``keys`` per draft: when the sidebar's draft changes, the values given for the
    previous draft are put away and the new draft's come back (the widgets' defaults for a draft that had none),
    so a page never shows one draft's inputs (a training log's path) under another. Call before the widgets are
    built, on every run of the page; ``keep_values``' copies follow."""
    state = st.session_state
    owner = f"_{name}_for"
    previous = state.get(owner)
    state[owner] = draft.source
    if previous is None or previous == draft.source:
        return
    kept = state.setdefault(f"_{name}_by_draft", {})
    kept[previous] = {k: state[k] for k in keys if k in state}
    for k in keys:
        state.pop(k, None)
        state.pop(KEPT_SHADOW + k, None)
    for k, value in kept.pop(draft.source, {}).items():
        state[k] = value


def own_curve_verdict(draft: OwnDraft) -> str | None:
    """The verdict of the training log loaded for ``draft`` in this session, if any."""
    curve = own_curve(draft)
    return getattr(curve, "verdict", None) if curve is not None else None


TOKEN_STATE = "hub_token"  # the sidebar field (a widget: Streamlit drops its state when another page runs)
TOKEN_KEPT = "_hub_token_kept"  # the token itself, kept for this browser session across page switches
TOKEN_FIELD = "Hub token (this session only)"  # the sidebar field's label, as pages name it
_NONE = "(none)"


def hub_token() -> str | None:
    """The Hub token typed in the sidebar for this session only (st.session_state; never stored elsewhere).

    None when it is malformed: the sidebar says so once, and rows that need no token still work."""
    from comparelib import settings
    from comparelib.errors import InputError

    token = st.session_state.get(TOKEN_STATE) or st.session_state.get(TOKEN_KEPT)
    try:
        return settings.check_token(str(token)) or None if token else None
    except InputError:
        return None


def hub_access_text(exc: BaseException, what: str) -> str | None:
    """What a page says when the Hub would not show ``what`` ("The tokenizer", "Your draft acme/x"): private or
    gated, pointing at the sidebar's token field (the library's message names HF_TOKEN, the CLI's way); None for
    any other error."""
    from comparelib.errors import HubAccessError
    from comparelib.models import hub

    return hub.access_sentence(exc, what, TOKEN_FIELD) if isinstance(exc, HubAccessError) else None


def _keep_token() -> None:
    st.session_state[TOKEN_KEPT] = str(st.session_state.get(TOKEN_STATE) or "")


def _sync_url(draft: OwnDraft) -> None:
    """Keep the draft in the page's URL, so the link reproduces the view on any page."""
    from comparelib.models.draft import PARAMS

    wanted = draft.to_query()
    qp = st.query_params
    now = {key: qp.get_all(key) for key in qp}
    new: dict[str, list[str]] = {k: v for k, v in now.items() if k not in PARAMS}
    new.update({k: [v] for k, v in wanted.items()})
    if new != now:
        # in one write: each write is a browser-history entry, and a key at a time left entries of the link with the
        # draft cut short (walk BR 1: Back opened it without its run group, then without its audit)
        qp.from_dict(new)


ATTACHED_STATE = "_draft_attached"  # {draft identity: its volume, run group and typed samples}, this session only


def set_own_draft(draft: OwnDraft) -> None:
    """Make ``draft`` the session's draft (e.g. after attaching an audit or running a benchmark). What is attached
    to it is remembered for this browser session (``remembered``), never stored elsewhere: switching back to it
    brings back exactly that, no audit included (one taken off with "Use the ... typed in instead" stays off, walk
    AD; one never attached is not attached, walk AT)."""
    st.session_state[DRAFT_STATE] = draft
    st.session_state.setdefault(ATTACHED_STATE, {})[draft.identity] = {
        "volume": draft.volume,
        "group": draft.group,
        "samples": draft.samples,
    }
    _sync_url(draft)


def remembered(draft: OwnDraft) -> dict[str, Any]:
    """The volume, run group and typed samples ``draft`` last had in this browser session; empty: not used yet."""
    return dict(st.session_state.get(ATTACHED_STATE, {}).get(draft.identity, {}))


def _known(value: Any, choices: Sequence[Any]) -> Any:
    """``value`` when it is still one of ``choices`` (a remembered run group still stored), else None."""
    return value if value is not None and value in choices else None


def _volume_lines(draft: OwnDraft, volume_rows: list[dict[str, Any]]) -> bool:
    """The sidebar's lines on the volume every page uses, and a typed number an attached audit overrides; True
    when "use the typed number" was clicked."""
    # a published draft pasted as yours uses its published figure: said too (walk AY: Overview used the registry's
    # 1.4M while the sidebar said nothing)
    published = draft.published is not None and bool(draft.published.train_samples)
    if draft.volume or draft.samples or published:
        st.caption(f"Training data in use: {draft.volume_text(volume_rows)}.")
    if draft.volume_of_another and draft.volume_row(volume_rows) is not None:
        st.warning(
            f"The training data in use is the audit stored under {draft.volume_of_another}, not under your "
            f"draft's name ({draft.name}). Pick your draft's own audit above, or attach one on Dataset audit.",
            icon=":material/warning:",
        )
    unused = draft.typed_unused_in(volume_rows)  # None where the attached audit is a sample: the typed one is used
    if not unused:
        return False
    st.caption(f"The {unused:,} samples typed in are not used while an audit is attached.")
    return st.button(f"Use the {unused:,} typed in instead", key="draft_use_typed")


def _names_draft(store: Any, group: str | None, draft: OwnDraft) -> bool:
    """Whether run group ``group`` holds a run that names ``draft``: a group holding both drafts' runs stays
    picked when the other draft is pasted (walk Q: b's runs sat in the group shown, and b got no group)."""
    from comparelib.models.draft import draft_match

    if store is None or not group or draft.match_name is None:
        return False
    return any(draft_match(getattr(r, "draft_model", None), draft.match_name) for r in store.runs(group=group))


def own_draft() -> OwnDraft:
    """The user's draft for this page: from the URL, else this session's, else the built-in example.

    Renders the sidebar where it is chosen (source, attached training volume and run group) and the
    session-only Hub token field.
    """
    from comparelib import settings
    from comparelib.errors import CompareError
    from comparelib.models.draft import DEFAULT, OwnDraft

    problem = None
    draft = st.session_state.get(DRAFT_STATE, DEFAULT)
    if "draft" in st.query_params:
        try:
            draft = OwnDraft.from_query(st.query_params.to_dict())
        except CompareError as exc:
            problem = f"The link's draft is not usable: {exc}"
    set_own_draft(draft)

    # keyed by what the sidebar's widgets show: the target, set on Compare drafts after the sidebar is drawn, is not
    # one of them (walk AZ: "Use ... as the target" changed it, and the next "Use this draft" found the draft changed,
    # refilled the field over the draft just typed, and kept the target as the draft)
    here = (st.session_state.get(PAGE_STATE, ""), draft.with_(target=None))
    # the widgets show the current draft after a link, a reset, another page's change, or a page switch
    # (each page has its own widgets); values typed but not yet sent stay
    if st.session_state.get("_token_shown") != here[0]:
        # a widget's state belongs to its page: the field on this page starts from the session's token
        st.session_state[TOKEN_STATE] = st.session_state.get(TOKEN_KEPT, "")
        st.session_state["_token_shown"] = here[0]
    shown = st.session_state.get("_draft_shown") == here
    if not shown:
        st.session_state["draft_source"] = draft.source
        st.session_state["draft_samples"] = draft.samples
        st.session_state["_draft_shown"] = here

    with st.sidebar:
        st.markdown("**Your draft**")
        with st.form("draft_form", border=False):
            source = st.text_input(
                "Draft: Hub URL, org/name, folder or registry:org/name",
                key="draft_source",
                placeholder="paste a Hub URL or a folder path",
                help="'example' is the built-in Kimi-K2.5 draft. Every page starts from this draft.",
            )
            # The field is on screen before the results database is read for the lists below (its first
            # read loads SQLAlchemy, 0.2 s): on a fresh server the browser fetches the field's code meanwhile.
            try:
                store = open_store(settings.database_url())
                volume_rows = store.data_volumes()
                volumes = sorted({str(v["draft"]) for v in volume_rows})
                groups = store.groups()
            except CompareError as exc:
                store, volume_rows, volumes, groups = None, [], [], []
                problem = str(exc)
            if not shown:
                st.session_state["draft_volume"] = draft.volume if draft.volume in volumes else _NONE
                st.session_state["draft_group"] = draft.group if draft.group in groups else _NONE
            volume = st.selectbox(
                "Training data (stored audit)",
                [_NONE, *volumes],
                key="draft_volume",
                help="Attach an audit on the Dataset audit page; it is stored under a draft name.",
            )
            samples = st.number_input(
                "…or training samples, typed in",
                min_value=1,
                max_value=10**13,
                value=None,
                step=1000,
                key="draft_samples",
                placeholder="not given",
                help="Used when no stored audit is picked above: an attached audit comes first.",
            )
            group = st.selectbox("Benchmark runs (run group)", [_NONE, *groups], key="draft_group")
            use = st.form_submit_button("Use this draft", type="primary")
        if use:
            try:
                new = OwnDraft.parse(
                    source,
                    volume=None if volume == _NONE else volume,
                    samples=samples,
                    group=None if group == _NONE else group,
                    target=draft.target,  # set on Compare drafts for this session: it stays with the next draft
                )
                if new.source != draft.source:
                    # another draft: the previous one's audit and runs stay with it unless picked again, and
                    # an audit stored under another draft's name never comes along. What was not picked in this
                    # submit is what the new draft had earlier in this session (switching back to it lost its run
                    # group), else none; its own stored audit only on its first use in the session: switching back
                    # to it with none attached (typed samples, or taken off) attached a stored audit (walk AT)
                    was = remembered(new)
                    picked_volume = new.volume != draft.volume
                    kept = new.volume if picked_volume and not new.volume_of_another else None
                    before = was.get("volume") if not picked_volume and was.get("volume") in volumes else None
                    own = None if was else new.own_volume(volume_rows)
                    new = new.with_(
                        volume=kept or before or own,
                        group=new.group
                        if new.group != draft.group or _names_draft(store, new.group, new)
                        else _known(was.get("group"), groups),
                        samples=new.samples if new.samples != draft.samples else was.get("samples"),
                    )
            except CompareError as exc:
                st.error(str(exc))
            else:
                set_own_draft(new)
                st.session_state["_draft_shown"] = None
                st.rerun()
        if _volume_lines(draft, volume_rows):
            set_own_draft(draft.with_(volume=None))
            st.session_state["_draft_shown"] = None
            st.rerun()
        if draft != DEFAULT and st.button("Back to the built-in example", key="draft_reset"):
            set_own_draft(DEFAULT)
            st.rerun()
        if refused := draft.refusal:  # the pages say it too; here: why nothing picked came along
            st.caption(f"Nothing is attached to it: {refused}.")
        if draft.uses_example_data:
            st.caption("Built-in example data is in use: paste your own draft above.")
        if draft.target:
            st.caption(
                f"Target set on Compare drafts: {draft.target}. Used where your draft names none and its runs "
                "name none; change it there."
            )
        st.text_input(
            "Hub token (this session only)",
            type="password",
            key=TOKEN_STATE,
            on_change=_keep_token,
            placeholder="for gated or private repos",
            help="Kept in this browser session's memory only: never stored, logged, exported or put in a link. "
            "HF_TOKEN in the server's environment is used when this is empty.",
        )
        try:  # checked once here: a malformed token is not used (hub_token), so rows needing none still work
            settings.check_token(str(st.session_state.get(TOKEN_STATE) or ""))
        except CompareError as exc:
            st.error(f"Hub token not used: {exc}. Paste the token alone (hf_…).")
        if problem:
            st.error(problem)
    return draft


if __name__ == "__main__":
    run()
