"""specdraft compare: a thin router, like Streamlit's own ``hello`` app."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).parent
PAGES = HERE / "pages"


def run() -> None:
    st.set_page_config(page_title="specdraft compare", page_icon=":material/compare_arrows:", layout="wide")
    nav = st.navigation(
        {
            "Answer": [
                st.Page(PAGES / "overview.py", title="Overview", icon=":material/dashboard:", default=True),
            ],
            "Tools": [
                st.Page(PAGES / "compare.py", title="Compare drafts", icon=":material/compare:", url_path="compare"),
                st.Page(PAGES / "audit.py", title="Dataset audit", icon=":material/dataset:", url_path="audit"),
                st.Page(PAGES / "bench.py", title="Live benchmark", icon=":material/speed:", url_path="bench"),
                st.Page(PAGES / "scaling.py", title="Acceptance vs data", icon=":material/trending_up:",
                        url_path="scaling"),
            ],
        }
    )
    nav.run()


@st.cache_resource(show_spinner=False)
def open_store(url: str):  # type: ignore[no-untyped-def]
    """One results store per database URL for the whole server, with the built-in example loaded once."""
    from comparelib.store import Store

    store = Store(url)
    store.ensure_examples()
    return store


def ensure_routed() -> None:
    """Route through ``run()`` when a page was opened by deep link before the router ever ran.

    Streamlit starts in its legacy ``pages/`` mode whenever that folder exists, until some session
    calls st.navigation; a shared link to /compare on a fresh server would otherwise render without
    the app's navigation and layout. Pages call this first.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        run()
        st.stop()


MISSING = "–"  # what a table shows for a missing value (never "None")


def column_config(table, frame=None) -> dict:  # type: ignore[no-untyped-def]
    """st.column_config for a ``comparelib.tables.Table``: units, number formats, widths, pinned name column."""
    cfg: dict = {}
    for c in table.columns:
        if frame is not None and c.name not in frame.columns:
            continue
        common = {"label": c.title, "width": c.width, "help": c.help, "pinned": True if c.pinned else None}
        if c.kind in ("int", "float"):
            cfg[c.name] = st.column_config.NumberColumn(format=c.printf(), **common)
        elif c.kind == "datetime":
            cfg[c.name] = st.column_config.DatetimeColumn(format="localized", **common)
        else:
            cfg[c.name] = st.column_config.TextColumn(**common)
    return cfg


DRAFT_STATE = "own_draft"
TOKEN_STATE = "hub_token"
_NONE = "(none)"


def hub_token() -> str | None:
    """The Hub token typed in the sidebar for this session only (st.session_state; never stored elsewhere)."""
    token = st.session_state.get(TOKEN_STATE)
    return str(token).strip() or None if token else None


def _sync_url(draft) -> None:  # type: ignore[no-untyped-def]
    """Keep the draft in the page's URL, so the link reproduces the view on any page."""
    from comparelib.draft import PARAMS

    wanted = draft.to_query()
    for key in PARAMS:
        if key in wanted:
            if st.query_params.get(key) != wanted[key]:
                st.query_params[key] = wanted[key]
        elif key in st.query_params:
            del st.query_params[key]


def set_own_draft(draft) -> None:  # type: ignore[no-untyped-def]
    """Make ``draft`` the session's draft (e.g. after attaching an audit or running a benchmark)."""
    st.session_state[DRAFT_STATE] = draft
    _sync_url(draft)


def own_draft():  # type: ignore[no-untyped-def]
    """The user's draft for this page: from the URL, else this session's, else the built-in example.

    Renders the sidebar where it is chosen (source, attached training volume and run group) and the
    session-only Hub token field.
    """
    from comparelib import settings
    from comparelib.draft import DEFAULT, OwnDraft
    from comparelib.errors import CompareError

    problem = None
    draft = st.session_state.get(DRAFT_STATE, DEFAULT)
    if "draft" in st.query_params:
        try:
            draft = OwnDraft.from_query(st.query_params.to_dict())
        except CompareError as exc:
            problem = f"The link's draft is not usable: {exc}"
    set_own_draft(draft)

    try:
        store = open_store(settings.database_url())
        volumes = sorted({str(v["draft"]) for v in store.data_volumes()})
        groups = store.groups()
    except CompareError as exc:
        volumes, groups = [], []
        problem = str(exc)

    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    here = (ctx.page_script_hash if ctx is not None else "", draft)
    # the widgets show the current draft after a link, a reset, another page's change, or a page switch
    # (each page has its own widgets); values typed but not yet sent stay
    if st.session_state.get("_draft_shown") != here:
        st.session_state["draft_source"] = draft.source
        st.session_state["draft_volume"] = draft.volume if draft.volume in volumes else _NONE
        st.session_state["draft_group"] = draft.group if draft.group in groups else _NONE
        st.session_state["draft_samples"] = draft.samples
        st.session_state["_draft_shown"] = here

    with st.sidebar:
        st.markdown("**Your draft**")
        with st.form("draft_form", border=False):
            source = st.text_input(
                "Draft: Hub URL, org/name, folder or registry:org/name", key="draft_source",
                placeholder="paste a Hub URL or a folder path",
                help="'example' is the built-in Kimi-K2.5 draft. Every page starts from this draft.",
            )
            volume = st.selectbox("Training data (stored audit)", [_NONE, *volumes], key="draft_volume",
                                  help="Attach an audit on the Dataset audit page; it is stored under a draft name.")
            samples = st.number_input("…or training samples, typed in", min_value=1, max_value=10**13, value=None,
                                      step=1000, key="draft_samples", placeholder="not given")
            group = st.selectbox("Benchmark runs (run group)", [_NONE, *groups], key="draft_group")
            use = st.form_submit_button("Use this draft", type="primary")
        if use:
            try:
                new = OwnDraft.parse(source, volume=None if volume == _NONE else volume,
                                     samples=samples, group=None if group == _NONE else group)
                if new.source != draft.source:
                    # another draft: the previous one's audit and runs stay with it unless picked again
                    new = new.with_(volume=None if new.volume == draft.volume else new.volume,
                                    group=None if new.group == draft.group else new.group,
                                    samples=None if new.samples == draft.samples else new.samples)
            except CompareError as exc:
                st.error(str(exc))
            else:
                set_own_draft(new)
                st.session_state["_draft_shown"] = None
                st.rerun()
        if draft != DEFAULT and st.button("Back to the built-in example", key="draft_reset"):
            set_own_draft(DEFAULT)
            st.rerun()
        if draft.uses_example_data:
            st.caption("Built-in example data is in use: paste your own draft above.")
        st.text_input(
            "Hub token (this session only)", type="password", key=TOKEN_STATE, placeholder="for gated or private repos",
            help="Kept in this browser session's memory only: never stored, logged, exported or put in a link. "
                 "HF_TOKEN in the server's environment is used when this is empty.",
        )
        if problem:
            st.error(problem)
    return draft


if __name__ == "__main__":
    run()
