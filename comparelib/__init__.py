"""specdraft compare: the library behind the app and the CLI.

Counts draft-model parameters, lints their wiring, audits training data, benchmarks live
servers and fits acceptance against data volume. No UI code lives here.
"""

from __future__ import annotations

import os

# huggingface_hub would otherwise report usage to the endpoint; the app fetches only what a user asks for.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

__version__ = "0.1.0"
