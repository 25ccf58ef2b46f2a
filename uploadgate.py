"""Sign-in before any upload byte: with SPECDRAFT_REQUIRE_LOGIN, only signed-in sessions may upload.

Streamlit's ``PUT /_stcore/upload_file/...`` is served outside the script, so the sign-in
gate in ``app.py`` never sees it: an anonymous visitor could make the server hold six 100 MB uploads.
``install()`` wraps two things of the one Runtime: ``is_active_session`` (in Streamlit 1.67 only the
upload route calls it, before reading any body byte, so an anonymous PUT gets 400 at once) and the
upload manager's ``add_file`` (drops a file of a session not signed in, should a later Streamlit stop
asking). ``mark()`` records on every run whether the session is signed in; a session that is not also
has any file it holds removed. The state lives here, not in app.py, because the main script is
re-executed in a fresh namespace on every run. Importing this module also tells ``comparelib.paths``
which session is running, so a typed path reaches only that session's own uploads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from comparelib import paths, settings

_SIGNED: set[str] = set()
_LOCK = threading.Lock()
_INSTALLED = False
_CONNECTED: list[Any] = []  # the runtime's own is_active_session, to prune ids of sessions gone
_HELD: dict[str, set[str]] = {}  # upload path -> the sessions holding it (uploads are kept once per content)


def allowed(session_id: str) -> bool:
    """Whether this session may upload: always without required sign-in, else only once signed in."""
    if not settings.require_login():
        return True
    with _LOCK:
        return session_id in _SIGNED


def install() -> bool:
    """Wrap the running server's upload checks once; False where there is no Streamlit runtime (AppTest)."""
    global _INSTALLED
    from streamlit.runtime import Runtime

    if _INSTALLED or not Runtime.exists():
        return _INSTALLED
    with _LOCK:
        if _INSTALLED:
            return True
        gate(Runtime.instance())
        _INSTALLED = True
    return True


def gate(runtime: Any) -> None:
    """Wrap ``runtime.is_active_session`` and its upload manager's ``add_file`` with ``allowed``."""
    active = runtime.is_active_session
    _CONNECTED[:] = [active]
    runtime.is_active_session = lambda session_id: active(session_id) and allowed(session_id)
    mgr = runtime.uploaded_file_mgr
    add = mgr.add_file

    def add_file(session_id: str, file: Any) -> None:
        if allowed(session_id):
            add(session_id, file)

    mgr.add_file = add_file


def mark(signed_in: bool) -> None:
    """Record the running session as signed in or not; drop what a session not signed in holds."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with _LOCK:
        if signed_in:
            if len(_SIGNED) >= 1024 and _CONNECTED:  # keep the set to the sessions still connected
                _SIGNED.intersection_update({sid for sid in _SIGNED if _CONNECTED[0](sid)})
            _SIGNED.add(ctx.session_id)
        else:
            _SIGNED.discard(ctx.session_id)
    if not signed_in and Runtime.exists():
        Runtime.instance().uploaded_file_mgr.remove_session_files(ctx.session_id)
    if _CONNECTED:
        release_gone(_CONNECTED[0])


def _session_id() -> str | None:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def _reading_session() -> str | None:
    """The session whose script is running on this thread; None on a worker thread (no warning logged)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else None


# a typed path reaches only the uploads saved for the session that types it (paths.resolve_user_path)
paths.set_session_source(_reading_session)


def hold(path: str | None, previous: str | None) -> None:
    """The running session now holds the upload at ``path`` instead of ``previous``.

    Uploads are kept once per content, so two sessions can hold one file: a file is deleted only when no
    session holds it any more (replaced, cleared, or every holder's browser session gone: ``release_gone``).
    """
    sid = _session_id() or "-"
    orphan = False
    with _LOCK:
        if path:
            _HELD.setdefault(path, set()).add(sid)
        if previous and previous != path:
            holders = _HELD.get(previous, set())
            holders.discard(sid)
            orphan = not holders
            if orphan:
                _HELD.pop(previous, None)
    if orphan:
        paths.discard_upload(previous)


def release_gone(is_active: Callable[[str], bool]) -> list[str]:
    """Delete the uploads whose holding sessions have all ended (``is_active``: is this session connected)."""
    gone: list[str] = []
    with _LOCK:
        for path, holders in list(_HELD.items()):
            holders.intersection_update({sid for sid in holders if sid == "-" or is_active(sid)})
            if not holders:
                gone.append(path)
                del _HELD[path]
    for path in gone:
        paths.discard_upload(path)
    return gone
