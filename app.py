"""specdraft compare: a thin router, like Streamlit's own ``hello`` app.

It is also the one error boundary (a page that fails shows a short message; the log keeps the
traceback) and the optional sign-in gate (SPECDRAFT_REQUIRE_LOGIN, Streamlit's built-in OIDC).
"""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

HERE = Path(__file__).parent
PAGES = HERE / "pages"
# Bundled: a ":material/...:" page icon makes the browser fetch the favicon from fonts.gstatic.com.
ICON = HERE / "assets" / "favicon.png"
LOG = logging.getLogger("specdraft.app")
UNEXPECTED = ("Something went wrong on this page. The details were logged on the server; try other input or "
              "reload the page.")


def page_boundary(body) -> None:  # type: ignore[no-untyped-def]
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
        st.error("Sign-in is required here (SPECDRAFT_REQUIRE_LOGIN) but not configured: the operator must add an "
                 "[auth] section to .streamlit/secrets.toml (see README, Shared deployment).")
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
        st.button(label, key=f"auth_login_{provider or 'default'}", type="primary",
                  on_click=st.login, args=(provider,) if provider else ())
    return False


def visitor() -> str:
    """Who is using the page, for provenance (who attached a volume): the signed-in user, else 'anonymous'."""
    if _logged_in():
        return str(st.user.get("email") or st.user.get("name") or "signed-in user")
    return "anonymous visitor"


def _logged_in() -> bool:
    """st.user.is_logged_in, False where Streamlit has no such key (no [auth] section)."""
    try:
        return bool(st.user.to_dict().get("is_logged_in", False))
    except Exception:  # noqa: BLE001 - no script context
        return False


def run() -> None:
    st.set_page_config(page_title="specdraft compare", page_icon=str(ICON), layout="wide")
    if not signed_in():
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
                st.Page(PAGES / "scaling.py", title="Acceptance vs data", icon=":material/trending_up:",
                        url_path="scaling"),
            ],
        }
    )
    page_boundary(nav.run)


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
