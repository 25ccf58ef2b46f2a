"""Training data: conversations and hidden-state dumps, read, tokenised and checked.

Sources (files and Hub datasets) as rows, chat templates, token counts, the scan and what it found,
the hidden-state dump audit, and both audits as Ray Data pipelines (``cluster``, Ray imported there only).
"""

__all__ = [
    "cluster",
    "conversations",
    "dumps",
    "hubdata",
    "result",
    "sandbox",
    "scan",
    "sources",
    "templates",
    "tokens",
]
