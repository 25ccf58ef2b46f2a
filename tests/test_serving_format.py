"""A speculators-format draft on SGLang: the verdict names the draft's FORMAT, not the target, and says what loads.

The Llama-3.3-70B walk's draft (speculators ``Eagle3Speculator``, trained boundaries [2, 40, 77]) read "SGLang
0.5.23 cannot serve this target: serve it with another engine: this one has no EAGLE-3 path for it". SGLang
0.5.23 has an EAGLE-3 path for Llama (llama.py:941 marks id+1); what it lacks is a class for the format. The
fix names the conversion and the eagle_config ids under the engine's own rule.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from comparelib.models import serving


def _speculators(ids: list[int] | None, hidden: int, layer: str = "llama") -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "architectures": ["Eagle3Speculator"],
        "speculators_model_type": "eagle3",
        "transformer_layer_config": {"model_type": layer, "hidden_size": hidden},
    }
    if ids is not None:
        cfg["eagle_aux_hidden_state_layer_ids"] = ids
    return cfg


# (case, target class, layers, hidden, draft ids, trained boundaries, SGLang eagle_config ids or None, source line)
CASES = [
    ("Llama-3.3-70B (the walk)", "LlamaForCausalLM", 80, 8192, [2, 40, 77], [2, 40, 77], [1, 39, 76], "llama.py:941"),
    ("Llama-3.1-8B, no ids (speculators' default)", "LlamaForCausalLM", 32, 4096, None, [2, 16, 29], [1, 15, 28],
     "llama.py:941"),
    ("Qwen3-8B", "Qwen3ForCausalLM", 36, 4096, [2, 18, 33], [2, 18, 33], [1, 17, 32], "qwen3.py"),
    ("Kimi-K2 (+1 only when the first id is 1)", "DeepseekV3ForCausalLM", 61, 7168, [2, 30, 58], [2, 30, 58],
     [1, 29, 57], "deepseek_v2.py"),
    ("a qwen3 draft layer: no SGLang draft class", "Qwen3ForCausalLM", 36, 4096, [2, 18, 33], [2, 18, 33], None,
     None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "arch", "n", "h", "ids", "bounds", "sg_ids", "source"), CASES, ids=[c[0] for c in CASES]
)
def test_sglang_verdict_names_the_format_and_the_conversion(
    case: str,
    arch: str,
    n: int,
    h: int,
    ids: list[int] | None,
    bounds: list[int],
    sg_ids: list[int] | None,
    source: str | None,
) -> None:
    draft = _speculators(ids, h, layer="qwen3" if sg_ids is None else "llama")
    kw = {"target_arch": arch, "n_layers": n, "target_hidden": h}
    verdicts = serving.serve(draft, **kw)
    adv = serving.advice(draft, **kw)
    sg = next(v for v in verdicts if v.label.startswith("SGLang 0.5.23"))
    assert sg.status == "unsupported"
    assert sg.cite == [serving.cite("sg23.registry")]  # the registry line that refuses the class stays cited
    head = serving.headline(verdicts, adv)
    only_sglang = serving.headline([sg], adv)
    rows = serving.table_rows(verdicts, adv)
    for text in (head, only_sglang, *(r["what to change"] for r in rows[:2])):
        assert "cannot serve this target" not in text and "no EAGLE-3 path" not in text, text
        assert "No engine serves" not in text
    assert "does not load the speculators format (Eagle3Speculator)" in head
    assert serving.format_not_read(sg) and not serving.format_not_read(verdicts[-1])
    if sg_ids is None:
        assert adv.convert == {}
        assert "no EAGLE-3 draft class for a qwen3 layer" in head and "serve it as it is with vLLM" in head
        return
    assert adv.convert == {
        "architectures": ["LlamaForCausalLMEagle3"],
        "target_hidden_size": h,  # speculators' null would size SGLang's fc from nothing
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": sg_ids},
    }
    assert "though it has an EAGLE-3 path for this target" in head
    assert json.dumps({"eagle_aux_hidden_state_layer_ids": sg_ids}) in head
    assert f"captures id+1: the trained boundaries {bounds}" in head
    assert source is not None and f"sglang 0.5.23 sglang/srt/models/{source}" in head  # the hook's line, cited
    # vLLM 0.34.0, the newest vLLM, serves it as it is: it leads (walk AQ), SGLang's change follows; SGLang 0.5.1 is
    # the other row to act on
    vl = next(v for v in verdicts if v.label.startswith("vLLM 0.34.0"))
    assert head == f"Serves the trained blocks on {vl.label}; " + only_sglang.rstrip(".") + " (1 more row(s) below)"
    old = next(r for r in rows if r["engine"].startswith("SGLang 0.5.1"))
    assert old["what to change"].startswith("convert the config to LlamaForCausalLMEagle3")
    assert "serve it with SGLang 0.5.23" in old["what to change"]
