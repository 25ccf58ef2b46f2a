"""The sidebar says which volume the pages use for a published draft pasted as yours (walk AY, minor).

With ``?draft=registry:AQ-MedAI/Kimi-K2-Instruct-eagle3`` Overview answered from "1.4M samples (published: the
registry's figure ...)", while the sidebar, which says the volume every page uses, said nothing.
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from comparelib.models import registry
from tests.test_draft_volume import _ok

ROOT = Path(__file__).resolve().parents[1]
AQ = "AQ-MedAI/Kimi-K2-Instruct-eagle3"


def _in_use(at: AppTest) -> list[str]:
    return [c.value for c in at.sidebar.caption if c.value.startswith("Training data in use")]


def test_a_published_draft_shows_its_published_volume_in_the_sidebar() -> None:
    n = registry.get_draft(AQ).train_samples
    assert n  # the registry's figure the pages use
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = f"registry:{AQ}"
    _ok(at.run())
    said = _in_use(at)
    assert said == [
        f"Training data in use: {n:,} samples, published: the registry's figure for {AQ}; a number typed in "
        "or an audit attached replaces it."
    ], said


def test_a_typed_number_replaces_it_there() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = f"registry:{AQ}"
    at.query_params["draft_samples"] = "37000"
    _ok(at.run())
    assert _in_use(at) == ["Training data in use: 37,000 samples, typed in."], _in_use(at)
