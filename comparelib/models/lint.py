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

import itertools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from comparelib.errors import InputError, Severity
from comparelib.models import engines
from comparelib.models import serving as engine_model
from comparelib.models.architectures import ModelSpec

SEVERITIES: tuple[str, ...] = ("error", "warning", "info")

# Codes whose findings are known to be harmless for drafts that were published working this way: shown
# collapsed, after everything worth acting on.
HARMLESS_CODES: frozenset[str] = frozenset({"rope-mismatch", "max-position-mismatch", "aux-default", "aux-agree"})
HARMLESS_HEADING, HARMLESS_WHY = "Known harmless", "published drafts work this way"  # their group, and why


def harmless_title(count: int) -> str:
    """The heading of the known-harmless group: Compare's collapsed group and ``params``'s list say the same."""
    return f"{HARMLESS_HEADING} ({count}): {HARMLESS_WHY}"


MAX_TARGET_LAYERS = 10_000


def parse_target_layers(value: int | str | None, *, name: str = "Target layers") -> int | None:
    """The target's number of decoder layers as a user gave it (a page's text box or ``--target-layers``).

    None when nothing was given (None or blank text); the count when it is a whole number from 1 to
    MAX_TARGET_LAYERS; otherwise InputError naming ``name`` and what to give instead.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        count = value if isinstance(value, int) and not isinstance(value, bool) else int(str(value))
    except ValueError:
        count = None
    if count is None or not 1 <= count <= MAX_TARGET_LAYERS:
        raise InputError(
            f"{name} must be a whole number between 1 and {MAX_TARGET_LAYERS}, not {value!r}: give the target "
            "model's num_hidden_layers (from its config.json), or the target model itself."
        )
    return count


@dataclass(frozen=True)
class Finding:
    """One problem (or fact worth knowing) about a draft's wiring."""

    severity: Severity
    code: str
    message: str
    harmless: bool = False  # known harmless: grouped and collapsed, never the headline
    # the engines ("SGLang", "vLLM") the finding is about; () for every engine (the config, the target)
    engines: tuple[str, ...] = ()
    # a ``not-eagle3`` note's (method, what was checked), which the headline says with its own engine rows
    parts: tuple[str, ...] = ()
    # made on the Llama-like path for want of the target's own rules: the class the rules do not model ("" when the
    # target's config was not read); None where the target's rules applied. The headline then claims no match
    unknown_family: str | None = None


def default_boundaries(n_layers: int) -> tuple[int, int, int]:
    """Boundary indices SGLang and vLLM use when a config names no aux layers: (2, N//2, N-3).

    Read from the rule table (engines.RULES), which cites each engine's default.
    """
    b = engines.capture(engines.rule("vLLM"), None, n_layers).boundaries
    return (b[0], b[1], b[2])


def _serving(serving: Sequence[tuple[str, str]] | None) -> list[tuple[str, str]]:
    if serving:
        return [(e, v) for e, v in serving]
    return [(e, engines.newest(e)) for e in engines.SERVING_ENGINES]


def engine_captures(
    aux_ids: Sequence[int] | None,
    n_layers: int,
    *,
    family: str | None = None,
    serving: Sequence[tuple[str, str]] | None = None,
    dialect: str = "",
    expected: int | None = None,
    with_trainers: bool = True,
) -> list[engines.Capture]:
    """What each serving engine version (default: the newest of each) and each trainer captures."""
    out: list[engines.Capture] = []
    for name, version in _serving(serving):
        r = engines.rule(name, version, family)
        reads = r.reads_speculators or dialect != "speculators-eagle3"
        out.append(engines.capture(r, aux_ids, n_layers, expected=expected, reads_config=reads, family=family))
    if with_trainers:
        for name in ("SpecForge", "speculators"):
            out.append(engines.capture(engines.rule(name), aux_ids, n_layers, expected=expected, family=family))
    return out


def capture_table(
    aux_ids: Sequence[int] | None,
    n_layers: int,
    *,
    family: str | None = None,
    serving: Sequence[tuple[str, str]] | None = None,
    dialect: str = "",
) -> list[dict[str, Any]]:
    """Which target layers each engine captures for these aux ids (None = ids absent from the config).

    One row per serving engine version (default: the newest rules of SGLang and vLLM) and per trainer;
    every rule and its engine source comes from ``engines.RULES``.
    """
    if n_layers < 1:
        raise ValueError(f"n_layers must be positive, got {n_layers}")
    rows = []
    for c in engine_captures(aux_ids, n_layers, family=family, serving=serving, dialect=dialect):
        rows.append(
            {
                "engine": c.rule.label,
                "role": c.rule.role,
                "ids": None if c.ids is None else list(c.ids),
                "from_config": c.ids is not None,
                "rule": c.rule.explicit,
                "boundaries": list(c.boundaries),
                "captured": list(c.captured),
                "captured_text": engines.describe_boundaries(c.captured) if c.captured else "",
                "status": c.status,
                "note": c.note,
                "source": c.rule.source,
            }
        )
    return rows


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


def fc_in_features(draft: ModelSpec) -> int | None:
    """In-features of the checkpoint's fc.weight (from the safetensors header), or None."""
    for t in draft.tensors:
        if t.name.split(".")[-2:] == ["fc", "weight"] and len(t.shape) == 2:
            return t.shape[1]
    return None


def _eagle_config(draft: ModelSpec) -> Mapping[str, Any]:
    ec = draft.raw_config.get("eagle_config") if draft.raw_config else None
    return ec if isinstance(ec, Mapping) else {}


def expected_aux_count(draft: ModelSpec) -> int:
    """States the draft's fc concatenates, as both engines size it: num_aux_hidden_states, else the number of
    ids in eagle_config, else 3 (sglang 0.5.23 srt/models/llama_eagle3.py LlamaModel.__init__ lines 155-160;
    vllm 0.33.0 and 0.34.0 model_executor/models/llama_eagle3.py line 210)."""
    explicit = draft.raw_config.get("num_aux_hidden_states") if draft.raw_config else None
    if isinstance(explicit, int) and not isinstance(explicit, bool) and explicit > 0:
        return explicit
    ids = _eagle_config(draft).get("eagle_aux_hidden_state_layer_ids")
    if isinstance(ids, (list, tuple)) and ids:
        return len(ids)
    if draft.aux_layer_ids and (draft.dialect == "speculators-eagle3" or not draft.raw_config):
        return len(draft.aux_layer_ids)  # a spec built without its config: the ids are all we know
    return 3


# engines.FAMILIES keys (the old per-family rules) -> the target class that stands for the family
_FAMILY_CLASS = {
    "llama": "LlamaForCausalLM",
    "qwen-moe": "Qwen3MoeForCausalLM",
    "deepseek": "DeepseekV3ForCausalLM",
    "gpt-oss": "GptOssForCausalLM",
}
# The class whose rules stand in when the target's family is unknown: the engines' default (Llama-like) path.
LLAMA_LIKE = "LlamaForCausalLM"


def unknown_family_note(target_arch: str | None) -> str:
    """The sentence that opens every aux finding made on the Llama-like path for want of the target's own rules."""
    why = (
        f"The target's family is unknown to the engines' rules here (they do not model its class {target_arch})"
        if target_arch
        else "The target's family is unknown (its config was not read: only its number of layers is known)"
    )
    ask = (
        f"check the engine's own model file for {target_arch}"
        if target_arch
        else "give the target's config or hub id for its own rules"
    )
    return f"{why}, so this says what each engine does on a Llama-like target ({LLAMA_LIKE}); {ask}. "


def _draft_config(draft: ModelSpec) -> dict[str, Any]:
    """The raw config serve() reads; rebuilt from the spec when it was made without one."""
    if draft.raw_config:
        given = dict(draft.raw_config)
        given.setdefault("hidden_size", draft.hidden_size)
        if draft.target_hidden_size:
            given.setdefault("target_hidden_size", draft.target_hidden_size)
        return given
    ids = None if draft.aux_layer_ids is None else list(draft.aux_layer_ids)
    cfg: dict[str, Any] = {"hidden_size": draft.hidden_size}
    if draft.target_hidden_size:
        cfg["target_hidden_size"] = draft.target_hidden_size
    if draft.dialect == "speculators-eagle3":
        cfg.update(
            speculators_model_type="eagle3",
            transformer_layer_config={"model_type": "llama", "hidden_size": draft.hidden_size},
        )
        if ids is not None:
            cfg["eagle_aux_hidden_state_layer_ids"] = ids
    else:
        cfg["eagle_config"] = {} if ids is None else {"eagle_aux_hidden_state_layer_ids": ids}
    return cfg


def _verdicts(
    draft: ModelSpec,
    n_layers: int,
    family: str | None,
    serving: Sequence[tuple[str, str]] | None,
    target_hidden: int | None,
) -> tuple[list[engine_model.Verdict], engine_model.Advice, str] | None:
    """The one call into the serving model: verdicts for the chosen engine rows, and the advice."""
    cls = engine_model.target_class(_FAMILY_CLASS.get(family or "", family))
    if cls is None:
        return None
    raw = _draft_config(draft)
    hidden = target_hidden or draft.target_hidden_size or draft.hidden_size
    fc = fc_in_features(draft)
    args: dict[str, Any] = dict(
        draft=raw,
        target_arch=cls,
        n_layers=n_layers,
        target_hidden=hidden,
        fc_in_checkpoint=fc if fc is not None else engine_model.checkpoint_fc_default(raw),
    )
    chosen = set(serving) if serving else {(e, engines.newest(e)) for e in engines.SERVING_ENGINES}
    rows = [r for r in engine_model.ENGINE_ROWS if (r[0], r[1]) in chosen]
    return engine_model.serve(**args, rows=rows), engine_model.advice(**args), cls


def _what_each_does(verdicts: Sequence[engine_model.Verdict]) -> str:
    return "; ".join(
        f"{v.label}: {v.reason}" if v.status != "ok" else f"{v.label} runs on {engine_model.describe(v.captured)}"
        for v in verdicts
    )


def _id_checks(draft: ModelSpec, verdicts: Sequence[engine_model.Verdict], cls: str, n: int) -> list[Finding]:
    """What the ids themselves say (order, count, sign, range), each with what every engine row does with them."""
    out: list[Finding] = []
    ids = None if draft.aux_layer_ids is None else list(draft.aux_layer_ids)
    if ids is None:
        return out
    if len(ids) != 3 and draft.dialect != "speculators-eagle3":
        out.append(
            Finding(
                "warning",
                "aux-count",
                f"eagle_aux_hidden_state_layer_ids has {len(ids)} ids ({ids}); SpecForge 0.2.0 refuses any count "
                "other than three (algorithms/model_providers.py:206), SGLang 0.5.1 always builds the fc for 3 "
                "states, and "
                "vLLM's Model Runner V2 (0.34.0's only runner, 0.33.0's default) does not read eagle_config ids "
                "at all. " + _what_each_does(verdicts) + ".",
            )
        )
    if any(b <= a for a, b in itertools.pairwise(ids)) and len(set(ids)) == len(ids):
        out.append(
            Finding(
                "warning",
                "aux-order",
                f"Aux layer ids {ids} are not in increasing order. SGLang captures in layer order and vLLM sorts "
                "them (interfaces.py:1617), so the draft receives them low to high; write them sorted so the config "
                "says what the engines do.",
            )
        )
    negative = [i for i in ids if i < 0]
    default = engine_model.default_ids(n)
    if negative:
        fixes = [v for v in verdicts if v.status != "unsupported"]
        out.append(
            Finding(
                "error",
                "aux-negative",
                f"Aux layer ids {negative} are negative: SpecForge 0.2.0 refuses them and speculators 0.9.0 refuses "
                f"them. {_what_each_does(verdicts)}. Acceptance collapses (a real session read 19% until this was "
                f"fixed). Write the ids the draft was trained with; for this target's default layers "
                f"({engine_model.describe(default)}): "
                + _default_fix(verdicts[0] if fixes else None, draft, cls, n, default)
                + ".",
            )
        )
    too_big = [i for i in ids if i > n]
    if too_big:
        out.append(
            Finding(
                "error",
                "aux-range",
                f"Aux layer ids {too_big} are beyond the target's {n} layers (the highest boundary any engine "
                f"captures is {n}, after the last block): {_what_each_does(verdicts)}. Is this the right target? "
                "Otherwise use the trained ids.",
            )
        )
    return out


def _default_fix(v: engine_model.Verdict | None, draft: ModelSpec, cls: str, n: int, default: list[int]) -> str:
    if v is None:
        return "no engine in the set serves this target"
    hidden = draft.target_hidden_size or draft.hidden_size
    adv = engine_model.advice(
        _draft_config(draft),
        target_arch=cls,
        n_layers=n,
        target_hidden=hidden,
        boundaries=default,
    )
    if not adv.possible:
        return "no config captures them on every engine (" + "; ".join(adv.why) + ")"
    ec = adv.config.get("eagle_config", {}).get("eagle_aux_hidden_state_layer_ids")
    return (
        f"for SGLang 0.5.23 write {ec} into eagle_config; for {engine_model.VLLM_NAMES} write "
        f"{adv.config['eagle_aux_hidden_state_layer_ids']} at the top level"
    )


def _engines_of(verdicts: Sequence[engine_model.Verdict]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v.engine for v in verdicts))


def _serving_findings(
    draft: ModelSpec, verdicts: Sequence[engine_model.Verdict], adv: engine_model.Advice, n_layers: int
) -> list[Finding]:
    """Ranked findings from the verdicts: what does not start, what runs on other blocks, what agrees."""
    out: list[Finding] = []
    ids = None if draft.aux_layer_ids is None else list(draft.aux_layer_ids)
    said = f"ids {ids}" if ids is not None else "no ids (each engine's default)"
    unsupported = [v for v in verdicts if v.status == "unsupported"]
    if unsupported:
        alone = len(unsupported) == len(verdicts)
        if all(engine_model.format_not_read(v) for v in unsupported):  # the draft's format, not the target
            out.append(
                Finding(
                    "error" if alone else "warning",
                    "engine-not-read",
                    "; ".join(
                        f"{v.label} does not load this draft's format ({v.reason}; {v.cite[0] if v.cite else ''})"
                        for v in unsupported
                    )
                    + f". Fix: {engine_model.change_for(unsupported[0], adv)}.",
                    engines=_engines_of(unsupported),
                )
            )
        else:
            out.append(
                Finding(
                    "error" if alone else "warning",
                    "engine-unsupported",
                    "Unsupported on "
                    + "; ".join(f"{v.label} ({v.reason}; {v.cite[0] if v.cite else ''})" for v in unsupported)
                    + (". No engine in the set serves it." if alone else "."),
                    engines=_engines_of(unsupported),
                )
            )
    for v in verdicts:
        change = engine_model.change_for(v, adv)
        if v.status == "fails":
            out.append(
                Finding(
                    "error",
                    "aux-capture",
                    f"{v.label} does not serve this draft ({said}, {n_layers} target layers): {v.reason}. "
                    f"Fix: {change}. Source: {'; '.join(v.cite)}.",
                    engines=(v.engine,),
                )
            )
        elif v.status == "ok" and v.same_as_trained is False:
            out.append(
                Finding(
                    "warning",
                    "aux-convention",
                    f"{v.label} reads {v.ids_read} from {v.ids_from} and feeds the draft "
                    f"{engine_model.describe(v.captured)}, not the blocks it was trained on. Fix: {change}.",
                    engines=(v.engine,),
                )
            )
        elif v.status == "ok" and v.same_as_trained is None:  # walk AY: not "matches" where the trained are unknown
            out.append(
                Finding(
                    "warning",
                    "aux-unknown",
                    f"{v.label} starts and feeds the draft {engine_model.describe(v.captured)} (ids from "
                    f"{v.ids_from or 'none'}); whether these are the blocks it was trained on is unknown"
                    + (f": {'; '.join(adv.why)}." if adv.why else "."),
                    engines=(v.engine,),
                )
            )
    good = [v for v in verdicts if v.status == "ok" and v.same_as_trained is True]
    if good and not [f for f in out if f.severity == "error" or f.code == "aux-convention"]:
        parts = []
        for v in good:
            where = (
                "the top-level ids"
                if "eagle_aux_hidden_state_layer_ids" in (draft.raw_config or {})
                and "eagle_aux_hidden_state_layer_ids" not in _eagle_config(draft)
                else "eagle_config ids"
            )
            read = v.ids_read if v.ids_read is not None else engine_model.default_ids(n_layers)
            how = (
                f"uses its default (2, N//2, N-3) = {list(read)}, which happens to be what the draft was trained "
                f"on; it does not read {where}"
                if v.ids_from == "default" and ids is not None
                else f"captures {engine_model.describe(v.captured)}"
            )
            parts.append(f"{v.label} {how}")
        out.append(
            Finding(
                "info",
                "aux-default" if ids is None else "aux-agree",
                f"With {said}: " + "; ".join(parts) + ".",
                harmless=True,
            )
        )
    fed_embedding = [v for v in verdicts if v.status == "ok" and v.captured and 0 in v.captured]
    embedding = [v.label for v in fed_embedding]
    if embedding:
        out.append(
            Finding(
                "warning",
                "aux-embedding",
                f"{' and '.join(embedding)} {'feeds' if len(embedding) == 1 else 'feed'} the draft the embedding "
                "output (boundary 0) as one of its states, "
                "not a decoder layer. Keep it only if the draft was trained that way.",
                engines=_engines_of(fed_embedding),
            )
        )
    return out


def _aux_findings(
    draft: ModelSpec,
    n_layers: int | None,
    family: str | None,
    serving: Sequence[tuple[str, str]] | None,
    target_hidden: int | None = None,
    target_arch: str | None = None,
) -> list[Finding]:
    out: list[Finding] = []
    ids = list(draft.aux_layer_ids) if draft.aux_layer_ids is not None else None
    if n_layers is None:
        if ids is None:
            out.append(
                Finding(
                    "info",
                    "aux-default",
                    "The config names no aux layers, so engines use their defaults (see the rule table: SGLang and "
                    "vLLM capture boundaries (2, N//2, N-3)). Give the target to see them for its N.",
                    harmless=True,
                )
            )
        else:
            out.append(
                Finding(
                    "warning",
                    "target-unknown",
                    f"Aux layer ids {ids} cannot be checked without the target's number of layers; give "
                    "the target model (or its num_hidden_layers).",
                )
            )
        if ids is not None and any(i < 0 for i in ids):
            out.append(
                Finding(
                    "error",
                    "aux-negative",
                    f"Aux layer ids {[i for i in ids if i < 0]} are negative: SpecForge 0.2.0 and "
                    "speculators 0.9.0 refuse them, vLLM never captures them, and SGLang reads -1 as the "
                    "embedding output on Llama/Qwen targets. Use the ids the draft was trained with.",
                )
            )
        return out
    verdicts = _verdicts(draft, n_layers, family, serving, target_hidden)
    note = ""
    if verdicts is None:  # no rules for this family: say what the engines' default (Llama-like) path does, and why
        verdicts = _verdicts(draft, n_layers, LLAMA_LIKE, serving, target_hidden)
        assert verdicts is not None
        unknown = target_arch or (family if family not in _FAMILY_CLASS else None)
        note = unknown_family_note(unknown)
    checks = _id_checks(draft, verdicts[0], verdicts[2], n_layers)
    found = _serving_findings(draft, verdicts[0], verdicts[1], n_layers)
    if any(f.code in ("aux-negative", "aux-range") for f in checks):  # they already say what each row does
        found = [f for f in found if f.code in ("engine-unsupported", "engine-not-read")]
    if not note:
        return out + checks + found
    return out + [replace(f, message=note + f.message, unknown_family=unknown or "") for f in checks + found]
    return out


def lint(
    draft: ModelSpec,
    *,
    target: ModelSpec | None = None,
    target_layers: int | None = None,
    target_hidden_size: int | None = None,
    target_vocab_size: int | None = None,
    checkpoint_tensors: Collection[str] | None = None,
    target_family: str | None = None,
    serving: Sequence[tuple[str, str]] | None = None,
    target_name: str | None = None,
    trained_for: tuple[str, str] | None = None,
    checkpoint_shapes: engine_model.Shapes | None = None,
) -> list[Finding]:
    """Every wiring problem visible from the draft config, the target and (optionally) tensor names.

    Explicit ``target_*`` numbers win over the ``target`` spec. ``target_family`` (a serving.target_class() name,
    or an engines.FAMILIES key)
    picks the engines' per-family capture rule; by default it comes from the target spec. ``serving`` lists
    the (engine, version) pairs to check; default: the newest rules of SGLang and vLLM. Errors mean the
    draft will not work as configured; warnings mean it may silently accept less; infos explain what
    engines will do. Known-harmless findings are flagged and sorted last within their severity.

    ``target_name`` is the target as the user set it; ``trained_for`` is (the model the draft says it was trained
    for, where it says so: "the model card (base_model)", ...). When they name other models the lint warns
    (``trained-for-other-target``), and, as with a vocabulary or hidden size of another target, it does not say
    which blocks match training (``other_target_reasons``).

    ``checkpoint_shapes``: the checkpoint's tensors of another shape than the config builds (name, config's,
    checkpoint's; ``params.reconcile``): an error for any an engine loads (``checkpoint-shape``).
    """
    findings: list[Finding] = list(_shape_findings(checkpoint_shapes))
    n_layers = target_layers if target_layers is not None else _get(target, "num_hidden_layers")
    t_hidden = target_hidden_size if target_hidden_size is not None else _get(target, "hidden_size")
    t_vocab = target_vocab_size if target_vocab_size is not None else _get(target, "vocab_size")
    if target is None and n_layers is None and t_hidden is None and t_vocab is None:
        findings.append(
            Finding(
                "info",
                "target-unknown",
                "No target given: only the draft's own config was checked. Give the target model "
                "to check aux layers, hidden size and vocabulary against it.",
            )
        )

    is_eagle3 = checks_capture(draft)
    # the old family key where one covers the target; else the engines' class (GLM, MiniMax-M2, Phi-3, Mixtral, ...)
    family = target_family or (
        engines.family_of(target.dialect) or engine_model.target_class(target.architecture, target.dialect)
        if target is not None
        else None
    )
    other = other_target_reasons(
        draft,
        target=target,
        target_hidden_size=t_hidden,
        target_vocab_size=t_vocab,
        target_name=target_name,
        trained_for=trained_for,
    )
    named = trained_for is not None and target_name and _names_other(trained_for[0], target_name)
    if named and trained_for is not None:
        findings.append(
            Finding(
                "warning",
                "trained-for-other-target",
                f"{trained_for[1][:1].upper()}{trained_for[1][1:]} says this draft was trained for {trained_for[0]}; "
                f"the target set is {target_name}. Set the target to {trained_for[0]} (every check here is against "
                "the target set), or check that this is the draft you meant.",
            )
        )
    if not is_eagle3 and draft.role == "draft":
        findings.append(_not_eagle3(draft, serving, t_hidden, t_vocab, target is not None))
    if is_eagle3:
        aux = _aux_findings(draft, n_layers, family, serving, t_hidden, _get(target, "architecture"))
        if other:  # the blocks it was trained on were another target's: "not the trained blocks" says nothing here
            aux = [f for f in aux if f.code != "aux-convention"]
        findings.extend(aux)
        findings.extend(_norm_findings(draft))
        findings.extend(_tie_findings(draft))

    # Hidden size: EAGLE-3's fc takes target hidden x number of aux states; other drafts read it directly.
    if t_hidden is not None:
        expected = draft.target_hidden_size or draft.hidden_size
        fc_in = fc_in_features(draft)
        k = expected_aux_count(draft)
        if fc_in is not None and is_eagle3 and fc_in != k * t_hidden:
            findings.append(
                Finding(
                    "error",
                    "hidden-mismatch",
                    f"The draft's fc layer takes {fc_in} features but {k} target layers give {k} x {t_hidden} = "
                    f"{k * t_hidden} (both engines size fc as target hidden x number of aux ids). This draft was "
                    f"built for a target with hidden size {fc_in // k}; check the target, or set "
                    f"target_hidden_size={t_hidden} if the config is wrong.",
                )
            )
        elif expected != t_hidden:
            field = "target_hidden_size" if draft.target_hidden_size else "hidden_size"
            findings.append(
                Finding(
                    "error",
                    "hidden-mismatch",
                    f"The draft expects target hidden size {expected} ({field}) but the target's hidden_size is "
                    f"{t_hidden}. Pick the target the draft was trained for, or set target_hidden_size={t_hidden} "
                    "in the draft config if the draft's own width differs on purpose.",
                )
            )

    # Vocabulary.
    vocab = draft.vocab_size
    if t_vocab is not None and vocab != t_vocab:
        findings.append(
            Finding(
                "error",
                "vocab-mismatch",
                f"The draft's vocab_size is {vocab} but the target's is {t_vocab}; token ids, the shared embedding "
                "and the vocabulary map would not line up. Use the target the draft was trained for, or fix "
                "vocab_size.",
            )
        )
    dv = draft.draft_vocab_size
    if dv is not None and dv > vocab:
        findings.append(
            Finding(
                "error",
                "draft-vocab-larger",
                f"draft_vocab_size {dv} is larger than vocab_size {vocab}; a draft vocabulary is a subset of the "
                "target's. Set draft_vocab_size to at most vocab_size (equal means no reduction).",
            )
        )
    elif dv is not None and dv < vocab and checkpoint_tensors is not None:
        names = {n.rsplit(".", 1)[-1] for n in checkpoint_tensors}
        if "d2t" not in names:
            findings.append(
                Finding(
                    "error",
                    "vocab-map-missing",
                    f"draft_vocab_size {dv} < vocab_size {vocab} but the checkpoint has no d2t tensor, so engines "
                    "cannot map draft token ids to target ids and the drafted tokens will be wrong. Export d2t (and "
                    "t2d) from the training run's vocabulary mapping.",
                )
            )
        elif "t2d" not in names:
            findings.append(
                Finding(
                    "warning",
                    "vocab-map-missing",
                    "The checkpoint has d2t but no t2d. vLLM only needs d2t, but SpecForge's SGLang exporter and "
                    "EAGLE's loader expect both; export t2d too.",
                )
            )

    # Positions.
    t_theta, t_scaling, t_maxpos = (
        _get(target, "rope_theta"),
        _get(target, "rope_scaling"),
        _get(target, "max_position_embeddings"),
    )
    if target is not None:
        theta_differs = draft.rope_theta is not None and t_theta is not None and draft.rope_theta != t_theta
        scaling_differs = (draft.rope_theta is not None or draft.rope_scaling is not None) and not _scaling_equal(
            draft.rope_scaling, t_scaling
        )
        if theta_differs or scaling_differs:
            what = []
            if theta_differs:
                what.append(f"rope_theta {draft.rope_theta:g} vs target {t_theta:g}")
            if scaling_differs:
                what.append(
                    f"rope_scaling {dict(draft.rope_scaling or {}) or None} vs target {dict(t_scaling or {}) or None}"
                )
            findings.append(
                Finding(
                    "warning",
                    "rope-mismatch",
                    f"The draft's RoPE differs from the target's ({'; '.join(what)}). Many published drafts do this "
                    "and work, as long as the config is exactly the one the draft was trained with; a RoPE edited "
                    "after training shifts every attention score, and long contexts past the draft's training "
                    "length may accept less. Keep the trained values.",
                )
            )
        d_maxpos = draft.max_position_embeddings
        if d_maxpos is not None and t_maxpos is not None and d_maxpos < t_maxpos:
            findings.append(
                Finding(
                    "warning",
                    "max-position-mismatch",
                    f"The draft's max_position_embeddings is {draft.max_position_embeddings} but the target serves up "
                    f"to {t_maxpos} positions; beyond the draft's range some engines cap the context or the draft "
                    "degrades. Raise it to match the target if the draft was trained for long contexts.",
                )
            )
    return rank(findings)


# How the methods whose wiring the engines' EAGLE-3 rules do not check are said in a sentence.
_METHODS: dict[str, str] = {"eagle1": "an EAGLE-1 draft", "medusa": "a Medusa draft", "mtp": "an MTP module"}


def checks_capture(draft: ModelSpec) -> bool:
    """Whether the engines' capture rules (aux layer ids, fc width, draft vocabulary map) apply: an EAGLE-3 draft."""
    return (
        draft.aux_layer_ids is not None
        or draft.draft_vocab_size is not None
        or "eagle3" in (f"{draft.dialect} {draft.architecture}".lower())
    )


def method_phrase(draft: ModelSpec) -> str:
    """The draft's method with its article ("an EAGLE-1 draft"), for sentences about drafts the rules do not check."""
    return _METHODS.get(draft.dialect, f"a draft that is not EAGLE-3 (its config reads as {draft.dialect})")


def _not_eagle3(
    draft: ModelSpec,
    serving: Sequence[tuple[str, str]] | None,
    t_hidden: int | None,
    t_vocab: int | None,
    has_target: bool,
) -> Finding:
    """What the lint checked of a draft the engines' EAGLE-3 rules do not cover: the headline's all-clear says this
    instead of a wiring match (walk AH2: an EAGLE-1 draft was said to match what SGLang and vLLM will do)."""
    what = [x for x, known in (("hidden size", t_hidden), ("vocabulary", t_vocab)) if known is not None]
    what += ["positions"] if has_target else []
    checked = f"its {_and(what)} against the target" if what else "the draft's own config only: no target was given"
    method = method_phrase(draft)
    said = f"{_rules_do_not_apply(method, covered_rows(serving))}; checked: {checked}."
    return Finding("info", "not-eagle3", said, parts=(method, checked))


def _rules_do_not_apply(method: str, covers: Sequence[str]) -> str:
    return (
        f"This is {method}: the engines' EAGLE-3 capture rules (aux layer ids, fc width, draft vocabulary map) do not "
        f"apply to it, so no wiring match with what {_and(covers)} will do is claimed"
    )


def _shape_findings(shapes: engine_model.Shapes | None) -> list[Finding]:
    """The checkpoint against the shapes its config builds: every engine builds the tensors from the config and
    loads the checkpoint into them, and its loader stops on another shape or cuts or pads it without an error
    (``serving.load_check``); t2d no engine loads."""
    loaded: list[str] = []
    skipped: list[str] = []
    for name, built, stored in shapes or ():
        said = f"{name} is {[int(d) for d in stored]} but the config builds {[int(d) for d in built]}"
        (skipped if engine_model.tensor_role(name) == "t2d" else loaded).append(said)
    out = []
    if loaded:
        out.append(
            Finding(
                "error",
                "checkpoint-shape",
                f"The checkpoint's {'; its '.join(loaded)}. SGLang and vLLM build every tensor from the config and "
                "load the checkpoint into it: on such a shape their loaders stop at load, or cut or zero-pad it "
                "without an error and serve weights that are not the trained ones (Will it serve? says what each "
                f"engine does). Fix: {engine_model.LOAD_FIX}.",
            )
        )
    if skipped:
        out.append(
            Finding(
                "warning",
                "checkpoint-shape",
                f"The checkpoint's {'; its '.join(skipped)}: no engine loads it (SGLang and vLLM skip t2d), but its "
                "length is the vocabulary it was made for; check that this config is the one it was trained with.",
            )
        )
    return out


def _names_other(a: str, b: str) -> bool:
    """Whether two model names say they are other models (``draft.model_match``: an alias or a folder is not)."""
    from comparelib.models.draft import model_match

    return model_match(a, b) == "other"


def other_target_reasons(
    draft: ModelSpec,
    *,
    target: ModelSpec | None = None,
    target_hidden_size: int | None = None,
    target_vocab_size: int | None = None,
    target_name: str | None = None,
    trained_for: tuple[str, str] | None = None,
    **_lint_args: Any,
) -> list[str]:
    """How we know the draft was trained for another target than the one given, vocabulary first: its vocab_size,
    the target width its fc or config expects, the model its card or config names; [] when nothing says so.
    Takes ``lint``'s keyword arguments (``Entry.lint_args``)."""
    t_hidden = target_hidden_size if target_hidden_size is not None else _get(target, "hidden_size")
    t_vocab = target_vocab_size if target_vocab_size is not None else _get(target, "vocab_size")
    name = target_name or _get(target, "source") or "the target"
    out = []
    if t_vocab is not None and draft.vocab_size != t_vocab:
        out.append(f"its vocab_size is {draft.vocab_size:,} but {name}'s is {t_vocab:,}")
    if t_hidden is not None:
        fc_in, k = fc_in_features(draft), expected_aux_count(draft)
        expected = fc_in // k if fc_in is not None and k else draft.target_hidden_size or draft.hidden_size
        if expected != t_hidden:
            out.append(f"it expects a target hidden size of {expected:,} but {name}'s is {t_hidden:,}")
    if trained_for is not None and target_name and _names_other(trained_for[0], target_name):
        out.append(f"{trained_for[1]} says it was trained for {trained_for[0]}")
    return out


def rank(findings: Sequence[Finding], engine: str | None = None) -> list[Finding]:
    """Errors first, then warnings, then infos; within each, what to act on before the known-harmless. With
    ``engine`` (the one the user serves with), a finding about other engines only comes after the rest."""
    marked = [f if f.harmless or f.code not in HARMLESS_CODES else replace(f, harmless=True) for f in findings]
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(marked, key=lambda f: (f.harmless, other_engine_only(f, engine), order.get(f.severity, len(order))))


def to_act_on(findings: Sequence[Finding], engine: str | None = None) -> list[Finding]:
    """The ranked findings to act on: neither known-harmless nor information (what a headline leads with)."""
    return [f for f in rank(findings, engine) if not f.harmless and f.severity != "info"]


def other_engine_only(f: Finding, engine: str | None) -> bool:
    """The finding is about other engines than ``engine`` only."""
    return bool(engine and f.engines and engine.lower() not in {e.lower() for e in f.engines})


def covered_rows(serving: Sequence[tuple[str, str]] | None = None) -> list[str]:
    """The engine rows (``serving.row_label``) lint checks for ``serving`` (default: the newest of each engine)."""
    chosen = set(_serving(serving))
    return [engine_model.row_label(*r) for r in engine_model.ENGINE_ROWS if (r[0], r[1]) in chosen]


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _row_gap(v: engine_model.Verdict) -> str:
    """What a Will-it-serve row that needs a change does, and which kind of row it is."""
    what = {
        "fails": "does not start",
        "unsupported": "cannot serve it",
        "unknown": "is not known to serve it",
    }.get(v.status, "feeds the draft other blocks than trained")
    if v.runner == "v1":
        return f"{v.engine} {v.version}'s non-default V1 runner (VLLM_USE_V2_MODEL_RUNNER=0) {what}"
    return f"{v.label}, an older version, {what}"


def headline(
    findings: Sequence[Finding],
    harmless_where: str = "collapsed below",
    *,
    covers: Sequence[str] = (),
    outside: Sequence[engine_model.Verdict] = (),
    engine: tuple[str, str] | None = None,
    rows_where: str = "Will it serve? below says the change",
) -> str:
    """One sentence saying what to act on first (the top-ranked finding that is not known-harmless).

    ``harmless_where`` says where the known-harmless notes are: the page collapses them below; the CLI's
    comparison lists none ("collapsed below" pointed at nothing there). ``covers``: the engine rows the lint
    checked (``covered_rows``; default: the newest of each engine); an all-clear says it holds for those.
    ``outside``: Will-it-serve rows outside them that need a change (a non-default runner, an older version),
    named after an all-clear, with where their change is said (``rows_where``). ``engine``: (the engine the user
    serves with, how we know), so what matters for it leads and other engines' gaps follow."""
    name = engine[0] if engine else None
    ranked = rank(findings, name)
    act = to_act_on(findings, name)
    harmless = sum(f.harmless for f in ranked)
    covers = list(covers) or covered_rows()
    mine = [f for f in act if not other_engine_only(f, name)]
    others = [f for f in act if other_engine_only(f, name)]
    if mine:
        first = mine[0]
        more = f" ({len(act) - 1} more to check below)" if len(act) > 1 else ""
        return f"Act on this first [{first.severity}, {first.code}]{more}: {first.message}"
    notes = "1 known-harmless note is" if harmless == 1 else f"{harmless} known-harmless notes are"
    tail = f" {notes} {harmless_where}." if harmless else ""
    if engine is not None:
        covers = [c for c in covers if c.lower().startswith(engine[0].lower())] or covers
        outside = [v for v in outside if v.engine.lower() == engine[0].lower()]
    unchecked = next((f.parts for f in ranked if f.code == "not-eagle3" and len(f.parts) == 2), None)
    who = f" for {engine[0]} ({engine[1]})" if engine is not None else ""
    said = f"Nothing to act on{who}: the wiring matches what {_and(covers)} will do"
    if unchecked is not None:  # the engines' rules check EAGLE-3 wiring only: no match is claimed for this draft
        said = (
            f"Nothing to act on{who} in what was checked ({unchecked[1]}). {_rules_do_not_apply(unchecked[0], covers)}"
        )
    unknown = next((f.unknown_family for f in ranked if f.unknown_family is not None), None)
    if unchecked is None and unknown is not None:  # Llama-like rules stood in for the target's own (walk BL1)
        why = (
            f"the engines' rules here do not model the target's class {unknown}"
            if unknown
            else "the target's config was not read (only its number of layers is known)"
        )
        said = (
            f"Nothing to act on{who} in what was checked, but no wiring match with what {_and(covers)} will do is "
            f"claimed: {why}, so the notes say what each engine does on a Llama-like target ({LLAMA_LIKE})"
        )
    if outside:
        said += "; of the other rows, " + "; ".join(_row_gap(v) for v in outside) + f" ({rows_where})"
    said += "."
    if others:
        first = others[0]
        more = f" ({len(others) - 1} more below)" if len(others) > 1 else ""
        said += f" For other engines [{first.severity}, {first.code}]{more}: {first.message}"
    return said + tail


def _tie_findings(draft: ModelSpec) -> list[Finding]:
    """``tie_word_embeddings: true`` on an EAGLE-3 head: SGLang 0.5.23 (models/llama_eagle3.py:303,
    ``self.lm_head = self.model.embed_tokens``) then logits through the frozen embedding and never loads the
    trained lm_head.weight, so the head the draft was trained with is not the one served."""
    raw = draft.raw_config or {}
    if raw.get("tie_word_embeddings") is not True or draft.dialect == "speculators-eagle3":
        return []
    dv = draft.draft_vocab_size
    swap = (
        f"; the {dv:,}-row head trained for the draft vocabulary is replaced by the {draft.vocab_size:,}-row "
        "embedding, which no longer matches the draft's token ids"
        if dv and dv != draft.vocab_size
        else ""
    )
    return [
        Finding(
            "error",
            "tied-lm-head",
            "tie_word_embeddings is true: SGLang 0.5.23 then uses the embedding as the draft's lm_head "
            "(models/llama_eagle3.py:303) and never loads the trained lm_head.weight" + swap + ". Set "
            "tie_word_embeddings to false in the draft's config (EAGLE-3 drafts train their own head).",
            engines=("SGLang",),
        )
    ]


def _norm_findings(draft: ModelSpec) -> list[Finding]:
    out: list[Finding] = []
    raw = draft.raw_config or {}
    ec = _eagle_config(draft)
    if (
        "norm_before_fc" in raw
        and "norm_before_fc" in ec
        and bool(raw["norm_before_fc"]) != bool(ec["norm_before_fc"])
    ):
        out.append(
            Finding(
                "warning",
                "norm-before-fc",
                f"norm_before_fc is {raw['norm_before_fc']} at the top level but {ec['norm_before_fc']} inside "
                "eagle_config; both engines read the eagle_config value (sglang srt/models/llama_eagle3.py line 173, "
                "vllm model_executor/models/llama_eagle3.py line 184). Keep one, equal to how the draft was trained.",
            )
        )
    if raw.get("use_aux_norm") and not raw.get("fc_norm"):
        out.append(
            Finding(
                "warning",
                "aux-norm-legacy",
                "use_aux_norm is SGLang's legacy name for fc_norm: SGLang builds the per-state norms (srt/models/"
                "llama_eagle3.py line 185), vLLM 0.34.0 / 0.33.0 reads only fc_norm (model_executor/models/"
                "llama_eagle3.py line 231) and would find fc_norm weights it did not build. Write fc_norm: true as "
                "well.",
                engines=("vLLM",),
            )
        )
    return out
