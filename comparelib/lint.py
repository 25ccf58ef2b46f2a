"""Wiring checks for a draft against its target, before anyone spends GPU hours on a benchmark.

A mis-wired EAGLE-3 draft still serves and still produces correct text; it just accepts almost
nothing, so speculation ends up slower than plain decoding. The usual causes are configuration,
not weights: aux layer ids read one layer off by a different engine, a target of another size or
vocabulary, a reduced draft vocabulary shipped without its token map. These are all visible from
the config (and the checkpoint's tensor names), which is what this module reads.

Layer numbering used throughout: blocks are 0-indexed; "output of block k" is the hidden state
after block k; boundary index b is the input of block b (0 = the embedding output, N = after the
last of N blocks), i.e. HF ``output_hidden_states[b]``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from comparelib.architectures import ModelSpec

SEVERITIES: tuple[str, ...] = ("error", "warning", "info")

CAPTURE_ENGINES: tuple[str, ...] = ("SGLang", "vLLM", "SpecForge (training)", "EAGLE official")

EMBEDDING = "embedding"
MISSING = "not captured"


@dataclass(frozen=True)
class Finding:
    """One problem (or fact worth knowing) about a draft's wiring."""

    severity: str  # "error" | "warning" | "info"
    code: str
    message: str


def default_boundaries(n_layers: int) -> tuple[int, int, int]:
    """Boundary indices every engine uses when a config names no aux layers: (2, N//2, N-3).

    Equivalently the outputs of blocks 1, N//2-1 and N-4 (SpecForge writes it that way).
    """
    return (2, n_layers // 2, n_layers - 3)


def _label(boundary: int, n_layers: int, *, last_ok: bool) -> int | str:
    """What a capture at this boundary holds: 'embedding', a block index, or not captured."""
    if boundary == 0:
        return EMBEDDING
    upper = n_layers if last_ok else n_layers - 1
    if 1 <= boundary <= upper:
        return boundary - 1
    return MISSING


def _describe(captured: Sequence[int | str]) -> str:
    if all(isinstance(c, int) for c in captured):
        return "outputs of blocks " + ", ".join(str(c) for c in captured)
    return ", ".join(f"output of block {c}" if isinstance(c, int) else str(c) for c in captured)


def _blocks(captured: Sequence[int | str]) -> str:
    return ", ".join(str(c) for c in captured)


def capture_table(aux_ids: Sequence[int] | None, n_layers: int) -> list[dict[str, Any]]:
    """Which target layers each engine captures for these aux ids (None = ids absent from the config).

    ``captured`` holds, per configured id, the 0-indexed block whose output is captured, "embedding"
    (boundary 0) or "not captured" (the engine never reaches that point and the fc input comes up short).
    Rules (research notes, data_formats.md section 3):
    SGLang adds +1 to explicit ids and captures hidden_states + residual before layer id+1, so it reads
    ids as block outputs; without ids it captures before layers 2, N//2, N-3. vLLM uses ids as boundary
    indices directly, default (2, N//2, N-3). SpecForge trains on block outputs, default
    [1, N//2-1, N-4]. EAGLE's own code captures before layers 2, N//2, N-3 whatever the config says.
    """
    if n_layers < 1:
        raise ValueError(f"n_layers must be positive, got {n_layers}")
    ids = None if aux_ids is None else [int(i) for i in aux_ids]
    defaults = default_boundaries(n_layers)
    rows: list[dict[str, Any]] = []

    def row(engine: str, used: Sequence[int], boundaries: Sequence[int], rule: str, from_config: bool,
            note: str, *, last_ok: bool) -> None:
        captured = [_label(b, n_layers, last_ok=last_ok) for b in boundaries]
        rows.append({
            "engine": engine,
            "ids": list(used),
            "from_config": from_config,
            "rule": rule,
            "boundaries": list(boundaries),
            "captured": captured,
            "captured_text": _describe(captured),
            "note": note,
        })

    # SGLang: capture before layer i (i < N), so boundary N is out of its reach.
    if ids is None:
        row("SGLang", list(defaults), list(defaults), "default layers_to_capture [2, N//2, N-3], captured before "
            "each layer", False, "no ids in the config: SGLang's default", last_ok=False)
    else:
        newer = [b for b in ids] if ids and ids[0] != 1 else [i + 1 for i in ids]
        newer_captured = [_label(b, n_layers, last_ok=False) for b in newer]
        note = ("classic rule; SGLang after #25454 (2026-05) adds +1 only when the first id is 1, and reads "
                f"these ids as {_describe(newer_captured)}")
        row("SGLang", ids, [i + 1 for i in ids], "explicit ids + 1, captured before that layer (= output of "
            "block id)", True, note, last_ok=False)
    # vLLM: ids are boundary indices; boundary N (after the last block) is reachable.
    used = list(defaults) if ids is None else ids
    row("vLLM", used, used, "ids used as boundary indices (0 = embedding, k = output of block k-1)", ids is not None,
        "no ids in the config: vLLM's default (2, N//2, N-3)" if ids is None else "ids read as-is", last_ok=True)
    # SpecForge training capture: block outputs.
    spec_ids = [1, n_layers // 2 - 1, n_layers - 4] if ids is None else ids
    row("SpecForge (training)", spec_ids, [i + 1 for i in spec_ids], "ids are block outputs (default "
        "[1, N//2-1, N-4])", ids is not None,
        "no ids in the config: SpecForge's default" if ids is None else "ids read as block outputs", last_ok=True)
    # EAGLE official code: hard-coded.
    row("EAGLE official", list(defaults), list(defaults), "captures before layers 2, N//2, N-3 (hard-coded)", False,
        "EAGLE's own code ignores eagle_aux_hidden_state_layer_ids" if ids is not None else
        "no ids needed: EAGLE's own code always uses these", last_ok=False)
    return rows


def infer_convention(aux_ids: Sequence[int], n_layers: int | None) -> str | None:
    """'output-of-block', 'boundary' or None when the ids do not say which numbering they use."""
    ids = list(aux_ids)
    if not ids:
        return None
    if n_layers is not None and any(i == n_layers for i in ids):
        return "boundary"  # N only exists as "after the last block"
    if ids[0] == 1:
        return "output-of-block"
    if ids[0] == 2:
        return "boundary"
    return None


def _get(target: ModelSpec | None, name: str) -> Any:
    return getattr(target, name, None) if target is not None else None


def _scaling_equal(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    a_norm = dict(a or {})
    b_norm = dict(b or {})
    for d in (a_norm, b_norm):
        if "type" in d and "rope_type" not in d:
            d["rope_type"] = d.pop("type")
        d.pop("type", None)
        if d.get("rope_type") == "default" and len(d) == 1:
            d.clear()
    return a_norm == b_norm


def _fc_in_features(draft: ModelSpec) -> int | None:
    for t in draft.tensors:
        if t.name.split(".")[-2:] == ["fc", "weight"] and len(t.shape) == 2:
            return t.shape[1]
    return None


def _aux_findings(draft: ModelSpec, n_layers: int | None) -> list[Finding]:
    out: list[Finding] = []
    ids = list(draft.aux_layer_ids) if draft.aux_layer_ids is not None else None
    if ids is None:
        if n_layers is None:
            out.append(Finding("info", "aux-default",
                               "The config names no aux layers, so engines use their defaults: SGLang and vLLM "
                               "capture boundaries (2, N//2, N-3), SpecForge trains on outputs of blocks "
                               "1, N//2-1, N-4 (the same layers). Give the target to see them for its N."))
            return out
        b = default_boundaries(n_layers)
        out.append(Finding(
            "info", "aux-default",
            f"The config names no aux layers, so every engine uses its default for N={n_layers}: SGLang captures "
            f"before layers {list(b)}, vLLM uses boundaries {list(b)}, SpecForge trains on outputs of blocks "
            f"{[1, n_layers // 2 - 1, n_layers - 4]}, EAGLE's code captures before layers {list(b)}; all are the "
            f"outputs of blocks {_blocks([x - 1 for x in b])}. If the draft was trained on other layers, write "
            "them into eagle_config.eagle_aux_hidden_state_layer_ids, or acceptance collapses to ~1 token."))
        return out
    if len(ids) != 3:
        out.append(Finding("error", "aux-count",
                           f"eagle_aux_hidden_state_layer_ids has {len(ids)} ids ({ids}); EAGLE-3's fc layer "
                           "concatenates exactly three target layers (low, mid, high). List three ids."))
    if any(b <= a for a, b in zip(ids, ids[1:])):
        dup = len(set(ids)) != len(ids)
        out.append(Finding("error", "aux-order",
                           f"Aux layer ids {ids} are not strictly increasing"
                           + (" (a layer is repeated, so fewer than three distinct layers reach fc)" if dup else "")
                           + "; engines concatenate them in the order given, low to high. Sort them and keep "
                           "them distinct, in the order the draft was trained with."))
    negative = [i for i in ids if i < 0]
    if negative:
        out.append(Finding("error", "aux-range",
                           f"Aux layer ids {negative} are negative; layer ids count from 0. Use the ids the draft "
                           "was trained with (SpecForge default [1, N//2-1, N-4])."))
    if -1 in ids:
        out.append(Finding("error", "aux-embedding",
                           "Aux layer id -1 makes SGLang (id+1 = 0) and SpecForge capture the embedding output, "
                           "not a transformer layer. EAGLE-3 fuses three decoder layers; use the trained ids."))
    if 0 in ids:
        out.append(Finding("warning", "aux-embedding",
                           "Aux layer id 0 is boundary 0 for vLLM and speculators, i.e. the embedding output, "
                           "while SGLang and SpecForge read it as the output of block 0. Check which one the "
                           "draft was trained on; to capture block 0 in vLLM write 1."))
    if n_layers is None:
        out.append(Finding("warning", "target-unknown",
                           f"Aux layer ids {ids} cannot be checked without the target's number of layers; give the "
                           "target model (or its num_hidden_layers)."))
        return out
    too_big = [i for i in ids if i > n_layers]
    if too_big:
        out.append(Finding("error", "aux-range",
                           f"Aux layer ids {too_big} are beyond the target's {n_layers} layers (valid ids are "
                           f"0..{n_layers}, where {n_layers} means after the last block). Is this the right "
                           "target? Otherwise use the trained ids."))
    if negative or too_big or len(ids) != 3:
        return out
    table = capture_table(ids, n_layers)
    short = [r["engine"] for r in table if MISSING in r["captured"] and r["from_config"]]
    if short:
        out.append(Finding("warning", "aux-range",
                           f"With ids {ids} and {n_layers} target layers, {' and '.join(short)} cannot capture all "
                           "three states: SGLang adds +1 and captures before a layer, and SpecForge reads ids as "
                           f"block outputs, so ids {n_layers - 1}/{n_layers} point past the last block. That crashes "
                           "or degrades serving (sglang #32334); use such boundary ids only with vLLM/speculators."))
    sg = next(r for r in table if r["engine"] == "SGLang")
    vl = next(r for r in table if r["engine"] == "vLLM")
    convention = infer_convention(ids, n_layers)
    split = (f"SGLang (classic +1) captures {sg['captured_text']}; vLLM captures {vl['captured_text']}")
    if convention == "output-of-block":
        matches_default = ids == [1, n_layers // 2 - 1, n_layers - 4]
        out.append(Finding(
            "info", "aux-convention",
            f"First id 1: these read as block outputs (SpecForge/ModelOpt/SGLang numbering"
            f"{', the SpecForge default for this N' if matches_default else ''}). {split}. SGLang and SpecForge "
            f"agree; vLLM reads one layer earlier, so for vLLM/speculators write {[i + 1 for i in ids]}."))
    elif convention == "boundary":
        vllm_default = ids == list(default_boundaries(n_layers))
        out.append(Finding(
            "warning", "aux-convention",
            f"First id {ids[0]}{' (and an id equal to N)' if n_layers in ids else ''}: these look like boundary "
            f"indices (vLLM/speculators numbering{', equal to vLLM default for this N' if vllm_default else ''}). "
            f"{split}: one layer apart, and SGLang after #25454 reads them as boundaries too. Only one reading "
            "matches training: if the draft was trained with SpecForge, it learned the SGLang reading, and vLLM "
            f"needs {[i + 1 for i in ids]}; if trained with speculators/vLLM, SGLang needs {[i - 1 for i in ids]}."))
    else:
        out.append(Finding(
            "warning", "aux-convention",
            f"Aux layer ids {ids} do not say which numbering they use (first id neither 1 nor 2). {split}. Find "
            "out which engine captured the training hidden states and serve with the same reading."))
    return out


def lint(
    draft: ModelSpec,
    *,
    target: ModelSpec | None = None,
    target_layers: int | None = None,
    target_hidden_size: int | None = None,
    target_vocab_size: int | None = None,
    checkpoint_tensors: Collection[str] | None = None,
) -> list[Finding]:
    """Every wiring problem visible from the draft config, the target and (optionally) tensor names.

    Explicit ``target_*`` numbers win over the ``target`` spec. Errors mean the draft will not work
    as configured; warnings mean it may silently accept less; infos explain what engines will do.
    """
    findings: list[Finding] = []
    n_layers = target_layers if target_layers is not None else _get(target, "num_hidden_layers")
    t_hidden = target_hidden_size if target_hidden_size is not None else _get(target, "hidden_size")
    t_vocab = target_vocab_size if target_vocab_size is not None else _get(target, "vocab_size")
    if target is None and n_layers is None and t_hidden is None and t_vocab is None:
        findings.append(Finding("info", "target-unknown",
                                "No target given: only the draft's own config was checked. Give the target model "
                                "to check aux layers, hidden size and vocabulary against it."))

    is_eagle3 = draft.aux_layer_ids is not None or draft.draft_vocab_size is not None or "eagle3" in (
        f"{draft.dialect} {draft.architecture}".lower())
    if is_eagle3:
        findings.extend(_aux_findings(draft, n_layers))

    # Hidden size: EAGLE-3's fc takes 3 x target hidden; other drafts read the target's hidden directly.
    if t_hidden is not None:
        expected = draft.target_hidden_size or draft.hidden_size
        fc_in = _fc_in_features(draft)
        if fc_in is not None and is_eagle3 and fc_in != 3 * t_hidden:
            findings.append(Finding(
                "error", "hidden-mismatch",
                f"The draft's fc layer takes {fc_in} features but three target layers give 3 x {t_hidden} = "
                f"{3 * t_hidden}. This draft was built for a target with hidden size {fc_in // 3}; check the target, "
                f"or set target_hidden_size={t_hidden} if the config is wrong."))
        elif expected != t_hidden:
            field = "target_hidden_size" if draft.target_hidden_size else "hidden_size"
            findings.append(Finding(
                "error", "hidden-mismatch",
                f"The draft expects target hidden size {expected} ({field}) but the target's hidden_size is "
                f"{t_hidden}. Pick the target the draft was trained for, or set target_hidden_size={t_hidden} "
                "in the draft config if the draft's own width differs on purpose."))

    # Vocabulary.
    vocab = draft.vocab_size
    if t_vocab is not None and vocab != t_vocab:
        findings.append(Finding(
            "error", "vocab-mismatch",
            f"The draft's vocab_size is {vocab} but the target's is {t_vocab}; token ids, the shared embedding and "
            "the vocabulary map would not line up. Use the target the draft was trained for, or fix vocab_size."))
    dv = draft.draft_vocab_size
    if dv is not None and dv > vocab:
        findings.append(Finding(
            "error", "draft-vocab-larger",
            f"draft_vocab_size {dv} is larger than vocab_size {vocab}; a draft vocabulary is a subset of the "
            "target's. Set draft_vocab_size to at most vocab_size (equal means no reduction)."))
    elif dv is not None and dv < vocab and checkpoint_tensors is not None:
        names = {n.rsplit(".", 1)[-1] for n in checkpoint_tensors}
        if "d2t" not in names:
            findings.append(Finding(
                "error", "vocab-map-missing",
                f"draft_vocab_size {dv} < vocab_size {vocab} but the checkpoint has no d2t tensor, so engines cannot "
                "map draft token ids to target ids and the drafted tokens will be wrong. Export d2t (and t2d) "
                "from the training run's vocabulary mapping."))
        elif "t2d" not in names:
            findings.append(Finding(
                "warning", "vocab-map-missing",
                "The checkpoint has d2t but no t2d. vLLM only needs d2t, but SpecForge's SGLang exporter and "
                "EAGLE's loader expect both; export t2d too."))

    # Positions.
    t_theta, t_scaling, t_maxpos = (_get(target, "rope_theta"), _get(target, "rope_scaling"),
                                    _get(target, "max_position_embeddings"))
    if target is not None:
        theta_differs = draft.rope_theta is not None and t_theta is not None and draft.rope_theta != t_theta
        scaling_differs = (draft.rope_theta is not None or draft.rope_scaling is not None) and not _scaling_equal(
            draft.rope_scaling, t_scaling)
        if theta_differs or scaling_differs:
            what = []
            if theta_differs:
                what.append(f"rope_theta {draft.rope_theta:g} vs target {t_theta:g}")
            if scaling_differs:
                what.append(f"rope_scaling {dict(draft.rope_scaling or {}) or None} vs target "
                            f"{dict(t_scaling or {}) or None}")
            findings.append(Finding(
                "warning", "rope-mismatch",
                f"The draft's RoPE differs from the target's ({'; '.join(what)}). Many published drafts do "
                "this and work, as long as the config is exactly the one the draft was trained with; a RoPE edited "
                "after training shifts every attention score, and long contexts past the draft's training length "
                "may accept less. Keep the trained values."))
        d_maxpos = draft.max_position_embeddings
        if d_maxpos is not None and t_maxpos is not None and d_maxpos < t_maxpos:
            findings.append(Finding(
                "warning", "max-position-mismatch",
                f"The draft's max_position_embeddings is {draft.max_position_embeddings} but the target serves up "
                f"to {t_maxpos} positions; beyond the draft's range some engines cap the context or the draft "
                "degrades. Raise it to match the target if the draft was trained for long contexts."))
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: order.get(f.severity, len(order)))
