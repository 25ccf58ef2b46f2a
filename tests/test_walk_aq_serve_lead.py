"""Walk AQ (minor): Compare's "Will it serve?" for linglab/ling-flash-eagle3 led with "vLLM 0.34.0 (v2, only
runner) cannot serve this target" while SGLang 0.5.23 serves the trained blocks, the group's runs #11-#13 were
SGLang's, and the lint headline above said "Nothing to act on for SGLang". The engine you serve with leads, else the
newest version of an engine that serves it; the rows to act on follow."""

from __future__ import annotations

import pytest

from comparelib.models import comparison, serving

LING = "registry:AQ-MedAI/Ling-Flash-2.0-eagle3"  # BailingMoeV2: SGLang 0.5.23 serves it, no vLLM EAGLE-3 path
LLAMA = "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"


def _said(source: str, engine: tuple[str, str] | None) -> str:
    e = comparison.load_entry(source)
    return serving.headline(e.serving, serving.advice(**e.serving_args), engine=engine)


@pytest.mark.parametrize(
    ("engine", "starts", "then"),
    [
        (None, "Serves the trained blocks on SGLang 0.5.23; vLLM 0.34.0", "cannot serve this target"),
        (
            ("SGLang", "the engine your runs #11, #12, #13 served this draft with"),
            "Serves the trained blocks on SGLang 0.5.23 (the engine your runs #11, #12, #13 served this draft with); "
            "other rows: vLLM 0.34.0",
            "(3 more row(s) below)",
        ),
        (
            ("vLLM", "the engine chosen above"),
            "For vLLM (the engine chosen above): vLLM 0.34.0 (v2, only runner) cannot serve this target",
            "other row(s) to act on below",
        ),
    ],
)
def test_the_engine_that_serves_leads(engine: tuple[str, str] | None, starts: str, then: str) -> None:
    said = _said(LING, engine)
    assert said.startswith(starts), said
    assert then in said, said


def test_a_draft_every_engine_serves_is_said_so_whatever_the_engine() -> None:
    for engine in (None, ("SGLang", "the engine chosen above")):
        said = _said(LLAMA, engine)
        assert said.startswith("Serves the trained blocks on"), said
        assert "cannot" not in said and "other rows" not in said, said
