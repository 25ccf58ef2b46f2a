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
                st.Page(PAGES / "scaling.py", title="Acceptance vs data", icon=":material/trending_up:", url_path="scaling"),
            ],
        }
    )
    nav.run()


run()
