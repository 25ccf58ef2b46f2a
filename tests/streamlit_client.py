"""A browser-less Streamlit client: open a session over the websocket and PUT uploads, as a visitor's script could.

Speaks the real protocol (XSRF cookie from /_stcore/health, BackMsg/ForwardMsg protobufs), so tests can
reach the upload endpoint without Chromium.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import aiohttp


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(ln.split()[1]) for ln in fh if ln.startswith("VmRSS")) / 1024


def signed_cookie(cookie_secret: str, url: str, email: str) -> str:
    """The ``_streamlit_user`` cookie Streamlit sets after an OIDC sign-in."""
    from streamlit.web.server.starlette.starlette_app_utils import create_signed_value

    value = json.dumps({"origin": url, "is_logged_in": True, "email": email})
    return create_signed_value(cookie_secret, "_streamlit_user", value).decode()


async def open_session(http: aiohttp.ClientSession, url: str) -> tuple[str, str]:
    """Run the app once over a new websocket; return (session id, XSRF token). The socket stays open."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    async with http.get(f"{url}/_stcore/health") as resp:
        assert resp.status == 200
    cookie = http.cookie_jar.filter_cookies(aiohttp.client.URL(url)).get("_streamlit_xsrf")
    xsrf = cookie.value if cookie else ""
    ws = await http.ws_connect(
        url.replace("http", "ws", 1) + "/_stcore/stream", protocols=("streamlit", xsrf), headers={"Origin": url}
    )
    back = BackMsg()
    back.rerun_script.query_string = ""
    back.rerun_script.page_script_hash = ""
    await ws.send_bytes(back.SerializeToString())
    session = ""
    while True:
        msg = await ws.receive(timeout=60)
        if msg.type != aiohttp.WSMsgType.BINARY:
            raise AssertionError(f"websocket ended: {msg.type}")
        fwd = ForwardMsg()
        fwd.ParseFromString(msg.data)
        if fwd.HasField("new_session"):
            session = fwd.new_session.initialize.session_id
        if fwd.HasField("script_finished"):
            break
    http._test_sockets = [*getattr(http, "_test_sockets", []), ws]  # type: ignore[attr-defined]
    return session, xsrf


async def put_upload(http: aiohttp.ClientSession, url: str, session: str, xsrf: str, body: bytes) -> Any:
    """One PUT to the upload endpoint; the HTTP status, or the client error's name."""
    form = aiohttp.FormData()
    form.add_field("file", body, filename="big.jsonl", content_type="application/octet-stream")
    try:
        async with http.put(
            f"{url}/_stcore/upload_file/{session}/{uuid.uuid4()}",
            data=form,
            headers={"X-Xsrftoken": xsrf, "Origin": url},
        ) as resp:
            return resp.status
    except aiohttp.ClientError as exc:
        return type(exc).__name__
