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


if __name__ == "__main__":
    run()
