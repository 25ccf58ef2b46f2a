"""Walk AI minor: Compare's "Will it serve?" lead began "SGLang 0.5.1 cannot serve this target" for an EAGLE-3
draft on Qwen3-Next-80B-A3B-Instruct that SGLang 0.5.23 and vLLM (0.34.0, 0.33.0) serve as trained: the only row
needing a change was an old version's, and the headline led with it. It now leads with the newest versions'
verdict and says the older version after."""

from __future__ import annotations

from comparelib.models import comparison
from comparelib.models import serving as engine_model

LMSYS = "lmsys/SGLang-EAGLE3-Qwen3-Next-80B-A3B-Instruct-FP8-SpecForge"


def test_the_lead_is_the_newest_versions_verdict_then_older_ones() -> None:
    e = comparison.load_entry(comparison.REGISTRY_PREFIX + LMSYS)
    adv = engine_model.advice(**e.serving_args)
    said = engine_model.headline(e.serving, adv)
    assert said.startswith("Serves the trained blocks on SGLang 0.5.23, vLLM 0.34.0"), said
    assert "SGLang 0.5.1 cannot serve this target" in said, said  # still said, after
    assert said.index("SGLang 0.5.23") < said.index("SGLang 0.5.1"), said
