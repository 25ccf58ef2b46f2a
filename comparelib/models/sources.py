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
    """A folder that exists inside the data root (the only local paths a page may read)."""
    from comparelib import paths
    from comparelib.errors import InputError

    try:
        return paths.resolve_user_path(text, "folder").exists()
    except (InputError, OSError, ValueError):
        return False
