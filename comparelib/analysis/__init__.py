"""Acceptance analysis: what the measurements say, and what would change them.

Acceptance against training-data volume and its fit, learning curves from training logs, the
speedup model of the step sweep, draft step cost, verdicts in sentences and the Overview's answer
(``overview``: its figures; ``summary``: its words, shared by the page and the ``overview`` command).
"""

__all__ = [
    "curves",
    "draftcost",
    "offline",
    "overview",
    "plan",
    "scaling",
    "speedup",
    "stats",
    "summary",
    "traininglogs",
    "verdicts",
]
