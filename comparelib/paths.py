"""Paths a user typed (dataset, folder, dump, prompt file): confined to SPECDRAFT_DATA_ROOT when it is set.

On a shared dashboard a visitor must not be able to read server files by naming them, nor learn
which exist. With ``SPECDRAFT_DATA_ROOT`` set, every user path is resolved (symlinks followed,
relative paths taken from the root) and refused unless it lies inside the root or the app's own
shipped data; the check runs before anything about the path is looked at. Unset, paths are used
as given (a local single user).

The ``uploads/`` folder under the root holds every visitor's uploads, so no typed path may reach it: a
browser session reads only the files saved for its own upload widgets (``save_upload`` / ``keep_upload``
record them); a reader with no session (the CLI, a Ray worker, a page's worker thread) only an upload
file's exact path, never the folder. The app tells this module which session is asking
(``set_session_source``) because this library never imports Streamlit.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from comparelib import settings
from comparelib.errors import LocalPathRefusedError, OutsideDataRootError


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives
        return False


_SESSION: list[Callable[[], str | None]] = []  # who is asking: the browser session's id, set by the app
_ISSUED: dict[str, set[str | None]] = {}  # real path of an upload saved here -> the sessions it was saved for
_ISSUED_LOCK = threading.Lock()


def set_session_source(source: Callable[[], str | None]) -> None:
    """How to tell which browser session is running (its id, None outside one): ``uploadgate`` sets it."""
    _SESSION[:] = [source]


def _session() -> str | None:
    return _SESSION[0]() if _SESSION else None


def _uploads_real(root_real: str) -> str:
    return os.path.realpath(os.path.join(root_real, "uploads"))


def _issue(path: Path) -> None:
    """Record that the running session (None: no session) may read the upload saved at ``path``."""
    with _ISSUED_LOCK:
        _ISSUED.setdefault(os.path.realpath(path), set()).add(_session())


def _forget_issued(folder: str) -> None:
    with _ISSUED_LOCK:
        for key in [k for k in _ISSUED if _inside(k, folder)]:
            del _ISSUED[key]


def _check_upload(real: str, shown: str, what: str, root: str | os.PathLike[str], root_real: str) -> None:
    """Refuse ``real`` inside the uploads folder unless it is an upload saved for the session asking
    (with no session: an upload file's exact path, ``uploads/<folder>/<file>``). Decided on the path alone."""
    uploads = _uploads_real(root_real)
    if not _inside(real, uploads):
        return
    session = _session()
    if session is None:
        allowed = len(Path(os.path.relpath(real, uploads)).parts) == 2
    else:
        with _ISSUED_LOCK:
            allowed = session in _ISSUED.get(real, ())
    if not allowed:
        raise LocalPathRefusedError(
            f"{what} {shown!r} is in the uploads folder of the data root {root} (SPECDRAFT_DATA_ROOT), which "
            "holds the files visitors uploaded: no path typed on this server may read it; upload your file "
            "with the page's upload button instead"
        )


def _through_link(candidate: Path, root: str | os.PathLike[str], root_real: str, shipped: str) -> bool:
    """Whether ``candidate`` (spelled under the root) leaves it through a symbolic link inside the root.

    Only entries inside the root are looked at (``lstat``), never a link's target, so the answer does not
    depend on whether the target exists."""
    for base in (root_real, os.path.abspath(root)):
        try:
            rel = candidate.relative_to(base)
            break
        except ValueError:
            continue
    else:
        return False
    cur = root_real
    for part in rel.parts:
        if part in ("", "."):
            continue
        if part == "..":
            cur = os.path.dirname(cur)
            if not _inside(cur, root_real):
                return False  # a plain path out of the root, not a link
            continue
        cur = os.path.join(cur, part)
        if os.path.islink(cur):
            target = os.path.realpath(cur)
            if not (_inside(target, root_real) or _inside(target, shipped)):
                return True
            cur = target
    return False


def in_uploads(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` lies in the data root's uploads folder (False without a data root)."""
    root = settings.data_root()
    if root is None:
        return False
    return _inside(os.path.realpath(path), _uploads_real(os.path.realpath(root)))


def walk(top: str | os.PathLike[str]) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk`` that never enters the uploads folder: a typed folder (the data root itself, say) is read the
    same for every session, so a result cached from one session's walk holds no other session's upload, nor
    its own (its upload widget reads that)."""
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if not in_uploads(os.path.join(dirpath, d))]
        yield dirpath, dirnames, filenames


def resolve_user_path(text: str | os.PathLike[str], what: str = "path") -> Path:
    """``text`` as a Path the server may read; OutsideDataRootError when it leaves SPECDRAFT_DATA_ROOT,
    LocalPathRefusedError when it leaves through a link in the root or reaches the uploads folder."""
    raw = os.fspath(text)
    root = settings.data_root()
    if root is None:
        return Path(raw).expanduser()
    if "\x00" in raw:
        raise OutsideDataRootError(f"{what} {raw!r} holds a NUL character")
    root_real = os.path.realpath(root)
    candidate = Path(raw)
    if raw.startswith("~"):
        candidate = candidate.expanduser()
    if not candidate.is_absolute():
        candidate = Path(root_real) / candidate
    real = os.path.realpath(candidate)
    shipped = os.path.realpath(settings.BUILTIN_DIR)
    if _inside(real, root_real):
        _check_upload(real, raw, what, root, root_real)
        return Path(real)
    if _inside(real, shipped):
        return Path(real)
    if _through_link(candidate, root, root_real, shipped):
        raise LocalPathRefusedError(
            f"{what} {raw!r} leads outside the data root {root} (SPECDRAFT_DATA_ROOT) through a symbolic link "
            "inside it: on this server only files under it can be read; copy the files into the root instead "
            "of linking them"
        )
    raise OutsideDataRootError(
        f"{what} {raw!r} is outside the data root {root} (SPECDRAFT_DATA_ROOT): on this server only files under "
        "it can be read; copy the file there or upload it"
    )


def member(path: str | os.PathLike[str], what: str = "file") -> Path:
    """THE check for a file found or named under a folder (a dataset member, a model's config.json, a
    tokenizer's files, a dump shard): its real path must stay inside the data root, the shipped data or
    the Hub cache (a Hub snapshot's files are symlinks into its blobs). A symlink planted inside the root
    is followed and then refused, with the same words as a typed path. Unconfined: ``path`` unchanged."""
    root = settings.data_root()
    if root is None:
        return Path(path)
    real = os.path.realpath(path)
    allowed = [os.path.realpath(root), os.path.realpath(settings.BUILTIN_DIR)]
    try:
        from huggingface_hub import constants

        allowed.append(os.path.realpath(constants.HF_HUB_CACHE))
    except ImportError:  # pragma: no cover - a pinned dependency
        pass
    if any(_inside(real, a) for a in allowed):
        _check_upload(real, os.fspath(path), what, root, allowed[0])
        return Path(real)
    raise OutsideDataRootError(
        f"{what} {os.fspath(path)!r} leads outside the data root {root} (SPECDRAFT_DATA_ROOT), through a symbolic "
        "link: on this server only files under it can be read; copy the file there instead of linking it"
    )


def is_confined() -> bool:
    """Whether user paths are confined (SPECDRAFT_DATA_ROOT set)."""
    return settings.data_root() is not None


def upload_dir() -> Path:
    """Where uploads are streamed: ``uploads/`` under the data root, else under the app's home."""
    root = settings.data_root()
    base = Path(os.path.realpath(root)) if root is not None else settings.home()
    folder = base / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


_UPLOADS_LOCK = threading.Lock()


def _folder_bytes(folder: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def sweep_uploads(now: float | None = None) -> None:
    """Remove upload folders older than SPECDRAFT_UPLOAD_TTL_SECONDS (a closed session's leftovers)."""
    import shutil
    import time

    from comparelib import limits

    cutoff = (time.time() if now is None else now) - limits.UPLOAD_TTL.value()
    for entry in os.scandir(upload_dir()):
        try:
            if entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                shutil.rmtree(entry.path, ignore_errors=True)
                _forget_issued(os.path.realpath(entry.path))
        except OSError:
            pass


def _make_room(incoming: int, subject: str) -> None:
    """Refuse an upload that would take the upload folder over SPECDRAFT_MAX_UPLOADS_BYTES (after a sweep)."""
    from comparelib import limits

    cap = limits.UPLOADS_BYTES
    if _folder_bytes(upload_dir()) + incoming <= cap.value():
        return
    sweep_uploads()
    held = _folder_bytes(upload_dir())
    if held + incoming > cap.value():
        raise cap.refuse(subject, seen=f"{limits.human_bytes(held)} held, {limits.human_bytes(incoming)} more")


def discard_upload(path: str | os.PathLike[str] | None) -> None:
    """Delete an upload this server saved (``save_upload`` / ``keep_upload``) and its folder, once used."""
    import shutil

    if not path:
        return
    folder = Path(os.path.realpath(os.path.dirname(os.fspath(path))))
    if folder.parent == Path(os.path.realpath(upload_dir())):
        shutil.rmtree(folder, ignore_errors=True)
        _forget_issued(str(folder))


_SAFE_NAME = "".join(chr(c) for c in range(128) if chr(c).isalnum()) + "._-"


def _clean_name(name: str) -> str:
    """The last path component's safe characters (the suffix decides how a file is read)."""
    base = os.path.basename(str(name or "upload")).strip() or "upload"
    return "".join(ch if ch in _SAFE_NAME else "_" for ch in base)[-100:].lstrip(".") or "upload"


def save_upload(fileobj: object, name: str) -> Path:
    """Stream an uploaded file (anything with ``read(n)``) to a new file under ``upload_dir()``.

    The name keeps only its last component's safe characters (the suffix decides how it is read);
    the size is capped by SPECDRAFT_MAX_UPLOAD_BYTES while copying, and a refused upload leaves nothing.
    """
    import tempfile

    from comparelib import limits

    clean = _clean_name(name)
    cap = limits.UPLOAD_BYTES
    limit = cap.value()
    size = getattr(fileobj, "size", None)
    if isinstance(size, int) and size > limit:
        raise cap.refuse(f"upload {clean}", value=limit, seen=limits.human_bytes(size))
    with _UPLOADS_LOCK:
        _make_room(size if isinstance(size, int) else 0, f"upload {clean}")
        folder = Path(tempfile.mkdtemp(prefix="upload-", dir=upload_dir()))
    target = folder / clean
    done = 0
    try:
        with open(target, "wb") as out:
            while True:
                chunk = fileobj.read(1 << 20)  # type: ignore[attr-defined]
                if not chunk:
                    break
                done += len(chunk)
                if done > limit:
                    raise cap.refuse(f"upload {clean}", value=limit)
                out.write(chunk)
    except BaseException:
        target.unlink(missing_ok=True)
        folder.rmdir()
        raise
    _issue(target)
    return target


def keep_upload(data: bytes, name: str) -> Path:
    """An upload already in memory, kept once per content under ``upload_dir()``: the same bytes uploaded
    again (a page rerun) map to the same file, so a reader's cache keyed on the path and its mtime holds."""
    import hashlib

    from comparelib import limits

    clean = _clean_name(name)
    cap = limits.UPLOAD_BYTES
    if len(data) > cap.value():
        raise cap.refuse(f"upload {clean}", value=cap.value(), seen=limits.human_bytes(len(data)))
    folder = upload_dir() / hashlib.sha256(data).hexdigest()[:16]
    target = folder / clean
    with _UPLOADS_LOCK:
        if not target.exists():
            _make_room(len(data), f"upload {clean}")
            folder.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        else:
            os.utime(folder)  # still in use: not swept as stale
    _issue(target)
    return target
