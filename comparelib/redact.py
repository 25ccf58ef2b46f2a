"""Secrets masked in one place: whatever the app shows, logs, exports or stores goes through here.

One placeholder (``***``, what SQLAlchemy prints for a hidden password) and one rule for which keys
hold credentials. Covered forms:

- URLs: ``scheme://user:pass@host`` (password masked, or the whole userinfo with ``mask_userinfo``),
  query strings ``?password=...&token=...``;
- libpq / shell / env style ``key=value`` pairs (``password='a b'``, ``HF_TOKEN=...``);
- command-line flags ``--api-key X`` / ``--hf-token=X`` inside longer values (launch commands);
- secret-looking values anywhere in a text: ``hf_...``, ``sk-...``, ``ghp_...``, ``Bearer ...``;
- mappings (server_info, params, notes): credential keys masked (or dropped), values cleaned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from comparelib.values import plain

PLACEHOLDER = "***"

_SECRET_WORD = re.compile(
    r"api[_\-]?key|apikey|secret|passw(or)?d|pwd|credentials?|authorization|private[_\-]?key|access[_\-]?key"
    r"|cookie|bearer|(^|[_\-.])auth($|[_\-.])|passphrase|passfile",
    re.IGNORECASE,
)
_HARMLESS_TOKEN_KEYS = {
    "bos_token",
    "eos_token",
    "pad_token",
    "unk_token",
    "sep_token",
    "cls_token",
    "mask_token",
    "chat_template_token",
    "image_token",
    "video_token",
    "audio_token",
}

# Values that are credentials on their own, wherever they appear in a text.
_SECRET_VALUES = (
    re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{8,}"),
    re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?<![A-Za-z0-9])(ghp|gho|ghs|ghu|github_pat)_[A-Za-z0-9_]{8,}"),
    re.compile(r"(?<![A-Za-z0-9])xox[abpr]-[A-Za-z0-9\-]{8,}"),
)
# "Bearer X" anywhere; Basic/Token schemes only after "Authorization:" (plain prose says "token with ...").
_BEARER = re.compile(r"\b(Bearer|Authorization:\s*(?:Basic|Token))\s+[A-Za-z0-9._~+/=\-]{4,}", re.IGNORECASE)
_WHOLE_SECRET = re.compile(
    r"^(hf_[A-Za-z0-9]{8,}|sk-[A-Za-z0-9_\-]{8,}|(ghp|gho|ghs|ghu|github_pat)_[A-Za-z0-9_]{8,}"
    r"|Bearer\s+\S+)$",
    re.IGNORECASE,
)
_USERINFO_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^\s/@:?#]*):(?P<pw>[^\s/@]*)@")
_USERINFO = re.compile(r"(://)[^/@\s]*@")
# key=value (query strings, libpq conninfo, env assignments); quoted values may hold spaces.
_PAIR = re.compile(
    r"(?<![\w.\-])(?P<key>[A-Za-z_][A-Za-z0-9_.\-]*)(?P<sep>\s*=\s*)"
    r"(?P<value>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[^\s&;,'\"]+)"
)
# --flag value / --flag=value (launch commands)
_FLAG = re.compile(
    r"(?<![\w\-])(?P<flag>--?[A-Za-z][A-Za-z0-9_\-]*)(?P<sep>[ \t]+|=)"
    r"(?P<value>'[^']*'|\"[^\"]*\"|[^\s'\"]+)"
)


def is_secret_key(key: Any) -> bool:
    """Keys whose values are credentials (api_key, hf_token, password, ...), never token counts or names."""
    k = str(key).strip().lower().lstrip("-")
    if not k or k in _HARMLESS_TOKEN_KEYS:
        return False
    if _SECRET_WORD.search(k):
        return True
    return k == "token" or k.endswith(("_token", "-token", ".token")) or k in {"access_token", "hf_token"}


def is_secret_value(value: Any) -> bool:
    """A string that is, as a whole, a credential (hf_..., sk-..., ghp_..., Bearer ...)."""
    return isinstance(value, str) and bool(_WHOLE_SECRET.match(value.strip()))


def mask_userinfo(text: str) -> str:
    """Any ``user:password@`` (or ``token@``) part of a URL replaced by ``***@``."""
    return _USERINFO.sub(r"\1" + PLACEHOLDER + "@", text)


def mask_url(text: str) -> str:
    """A pasted URL fit to show in a page, a shareable query or an error: userinfo and query secrets masked."""
    return mask_text(mask_userinfo(text))


def strip_userinfo(text: str) -> str:
    """Any ``user:password@`` part of a URL removed (for links that travel on), not masked."""
    return _USERINFO.sub(r"\1", text)


def _mask_pair(m: re.Match[str]) -> str:
    if not is_secret_key(m.group("key")):
        return m.group(0)
    return f"{m.group('key')}{m.group('sep')}{PLACEHOLDER}"


def _mask_flag(m: re.Match[str]) -> str:
    if not is_secret_key(m.group("flag").lstrip("-").replace("-", "_")):
        return m.group(0)
    return f"{m.group('flag')}{m.group('sep')}{PLACEHOLDER}"


def mask_text(text: Any, *secrets: str | None) -> str:
    """Text fit to show, log or store: every credential form listed in the module doc masked.

    ``secrets`` are known values (HF_TOKEN, a parsed password) to replace wherever they appear.
    """
    out = str(text) if text is not None else ""
    for secret in secrets:
        if secret and len(str(secret)) >= 3:
            out = out.replace(str(secret), PLACEHOLDER)
    out = _USERINFO_PASSWORD.sub(lambda m: f"{m.group('head')}:{PLACEHOLDER}@" if m.group("pw") else m.group(0), out)
    out = _PAIR.sub(_mask_pair, out)
    out = _FLAG.sub(_mask_flag, out)
    out = _BEARER.sub(lambda m: f"{m.group(1)} {PLACEHOLDER}", out)
    for pattern in _SECRET_VALUES:
        out = pattern.sub(PLACEHOLDER, out)
    return out


def traceback_text() -> str:
    """The exception being handled, formatted for the server log with credentials masked."""
    import traceback

    return mask_text(traceback.format_exc())


def strip_url(url: str) -> str:
    """An endpoint URL without its userinfo and without credential-looking query parameters (for storing)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return mask_text(url)
    netloc = parts.netloc.rsplit("@", 1)[1] if "@" in parts.netloc else parts.netloc
    query = parts.query
    if query:
        query = urlencode([(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if not is_secret_key(k)])
    return mask_text(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))


def database_url(url: Any) -> str:
    """A database URL fit to show: the password masked in every form SQLAlchemy and libpq accept."""
    text = str(url)
    try:
        import sqlalchemy as sa

        text = sa.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not a SQLAlchemy URL (libpq key=value, garbage): mask the text
        pass
    return mask_text(text)


def url_secrets(url: Any) -> list[str]:
    """The secret values inside a URL (password, secret query parameters), to scrub from driver messages."""
    found: list[str] = []
    try:
        import sqlalchemy as sa

        parsed = sa.make_url(url)
        if parsed.password:
            found.append(str(parsed.password))
        for key, value in parsed.query.items():
            if is_secret_key(key):
                found.extend([value] if isinstance(value, str) else list(value))
    except Exception:  # noqa: BLE001
        for m in _PAIR.finditer(str(url)):
            if is_secret_key(m.group("key")):
                found.append(m.group("value").strip("'\""))
    return [s for s in found if s]


def redact(obj: Any, *, drop_keys: bool = False, secrets: Iterable[str] = ()) -> Any:
    """A strict-JSON copy (:func:`comparelib.values.plain`) with credentials masked.

    Credential keys with a value are masked (or dropped with ``drop_keys``); strings are masked; NaN
    and infinities become None so the copy stores as JSON.
    """
    return _masked(plain(obj), drop_keys, tuple(s for s in secrets if s))


def _masked(obj: Any, drop_keys: bool, known: tuple[str, ...]) -> Any:
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for key, v in obj.items():
            if is_secret_key(key) and v not in (None, "", False):
                if not drop_keys:
                    out[key] = PLACEHOLDER
                continue
            out[key] = _masked(v, drop_keys, known)
        return out
    if isinstance(obj, list):
        return [_masked(v, drop_keys, known) for v in obj]
    if isinstance(obj, str):
        if is_secret_value(obj):
            return PLACEHOLDER
        return mask_text(obj, *known) if _might_hold_secret(obj) or known else obj
    return obj


_HINT = re.compile(r"[=@]|hf_|sk-|gh[posu]_|github_pat_|xox|bearer|basic |token |--", re.IGNORECASE)


def _might_hold_secret(text: str) -> bool:
    return bool(_HINT.search(text))
