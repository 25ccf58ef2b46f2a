"""Models: what a pasted draft or target is, counted and wired.

The Hub fetch, config dialects to named tensors, parameter counts, engine capture rules and the wiring
lint, the published-draft registry, one comparison row per draft, how a draft's source is named, and the
user's own draft.
"""

__all__ = [
    "architectures",
    "comparison",
    "draft",
    "engines",
    "hub",
    "lint",
    "params",
    "registry",
    "serving",
    "sources",
]
