"""Training data: conversations and hidden-state dumps, read, tokenised and checked.

Sources (files and Hub datasets) as rows, chat templates, token counts, the scan and what it found,
and the hidden-state dump audit.
"""

__all__ = ["conversations", "dumps", "hubdata", "result", "sandbox", "scan", "sources", "templates", "tokens"]
