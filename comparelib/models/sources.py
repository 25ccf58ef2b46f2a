"""How a draft is named: ``example:``, ``registry:<hub id>``, a local folder, else the Hub.

Apart from ``comparison`` (which loads the architectures, lint and engine rules) so that the sidebar, which
only parses a name, draws its field before any of that loads.
"""

from __future__ import annotations

REGISTRY_PREFIX = "registry:"
EXAMPLE_PREFIX = "example:"
EXAMPLE_OWN = "example:own-kimi-k2.5-draft"
EXAMPLE_TARGET = "moonshotai/Kimi-K2.5"


def registry_source(hub_id: str) -> str:
    return f"{REGISTRY_PREFIX}{hub_id}"


def is_local_path(text: str) -> bool:
    """A folder that exists inside the data root (the only local paths a page may read), or a local name the
    root refuses (a link out of it, the uploads folder): never a Hub id, and reading it says why."""
    from comparelib import paths
    from comparelib.errors import InputError

    try:
        return paths.resolve_user_path(text, "folder").exists()
    except paths.LocalPathRefusedError:
        return True
    except (InputError, OSError, ValueError):
        return False


MAX_COMPARED = 12
"""Drafts one comparison reads from the Hub or a folder (built-in ones are not counted): a link is anybody's
input, and every Hub row costs requests with the server's token."""


def capped(sources: list[str]) -> tuple[list[str], str | None]:
    """``sources`` with at most ``MAX_COMPARED`` that are not built in (``registry:``, ``example:``), and the
    sentence that says what was left out (None when nothing)."""
    kept: list[str] = []
    others = 0
    for source in sources:
        if not source.startswith((REGISTRY_PREFIX, EXAMPLE_PREFIX)):
            others += 1
            if others > MAX_COMPARED:
                continue
        kept.append(source)
    if others <= MAX_COMPARED:
        return sources, None
    left = others - MAX_COMPARED
    return kept, (
        f"{others} drafts to read from the Hub or folders; one comparison reads at most {MAX_COMPARED} (published "
        f"drafts not counted), so the last {left} {'was' if left == 1 else 'were'} left out. Compare them in "
        "another link."
    )
