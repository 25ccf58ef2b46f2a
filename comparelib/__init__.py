"""specdraft compare: the library behind the app and the CLI.

Counts draft-model parameters, lints their wiring, audits training data, benchmarks live
servers and fits acceptance against data volume. No UI code lives here.
"""

from __future__ import annotations

__version__ = "0.1.0"
