"""Exact parameter counts from a ModelSpec, and reconciliation against a checkpoint header.

Counting is a sum over the spec's tensor list, so every number here can be traced to named
tensors. Drafts are compared on ``excluding_embedding`` because their embedding is usually the
target's (frozen, shared), and whether a producer stores it says nothing about the draft's size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

from comparelib.errors import ConfigError, DataError, InputError
from comparelib.models.architectures import COMPONENTS, ModelSpec, TensorSpec

MEMORY_DTYPES: dict[str, int] = {"bf16": 2, "fp8": 1, "fp32": 4}

# bytes per element of safetensors dtypes (buffers keep their own dtype whatever the weights use)
DTYPE_BYTES: dict[str, float] = {
    "F64": 8,
    "F32": 4,
    "F16": 2,
    "BF16": 2,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "F8_E8M0": 1,
    "F4": 0.5,
    "I64": 8,
    "I32": 4,
    "I16": 2,
    "I8": 1,
    "U64": 8,
    "U32": 4,
    "U16": 2,
    "U8": 1,
    "BOOL": 1,
}


@dataclass
class ParamCount:
    """Parameter elements of one model, split the ways comparisons need."""

    total: int
    excluding_embedding: int
    embedding: int
    lm_head: int
    trainable: int
    frozen: int
    active: int | None  # None for dense models; MoE: the main model's parameters a token uses (MTP module excluded)
    buffers: int  # d2t / t2d elements: stored, not parameters
    stored: int  # parameter elements a checkpoint from this producer actually holds
    shared_with_target: int = 0  # parameters that are the target's own weights (not extra memory)
    # parameters of a target's MTP module(s): included in total (the checkpoint stores them), not in active
    mtp: int = 0
    # parameters of a multimodal target's vision tower and projector: in total (stored), not in active
    vision: int = 0
    # a draft whose config ties lm_head to the embedding: the head is counted once, as the embedding (tied_lm_head)
    lm_head_tied: bool = False

    @property
    def per_token(self) -> int:
        """The main model's parameters one text token passes through: ``active`` for a MoE model; for a dense one
        its total less its MTP module(s) and vision tower (neither is on a text token's path, as for ``active``)."""
        return self.active if self.active is not None else self.total - self.mtp - self.vision


# The counts every model is shown with, in the order the CLI and the comparison table print them.
HEADLINE: tuple[str, ...] = (
    "total",
    "excluding_embedding",
    "embedding",
    "lm_head",
    "trainable",
    "frozen",
    "stored",
    "active",
)


@dataclass
class Component:
    name: str
    params: int  # elements (for "buffer": buffer elements)
    trainable: bool | None  # None when the component mixes trained and frozen tensors
    tensors: list[TensorSpec]
    tied_to: str | None = None  # "embedding" for a tied lm_head: its storage is that component's (params 0)
    note: str = ""  # what the page and CLI print beside the row (tied_note)


def _params(spec: ModelSpec) -> list[TensorSpec]:
    return [t for t in spec.tensors if not t.is_buffer]


def _distinct(tensors: tuple[TensorSpec, ...]) -> Iterable[tuple[TensorSpec, int]]:
    """Each TensorSpec object once, with how often the list holds it: a spec parsed under
    ``architectures.counts_only()`` lists a repeated block's tensors as the same objects."""
    if len(set(map(id, tensors))) == len(tensors):  # no object listed twice: the usual, named list
        return ((t, 1) for t in tensors)
    times = Counter(map(id, tensors))
    by_id = dict(zip(map(id, tensors), tensors, strict=True))
    return ((by_id[i], n) for i, n in times.items())


def tied_lm_head(spec: ModelSpec) -> bool:
    """Whether a draft's lm_head is its embedding's storage: ``tie_word_embeddings`` true on a draft listing both.

    SGLang 0.5.23 then serves embed_tokens as the head (models/llama_eagle3.py:303; set_embed swaps in the target's
    embedding when the hidden sizes match) and never loads lm_head.weight, and transformers' save_pretrained drops a
    tied copy: the head is no separate trained, stored or served parameter. (A tied target lists no lm_head tensor.)
    """
    if spec.role != "draft" or not spec.tie_word_embeddings:
        return False
    names = {t.component for t in spec.tensors}
    return "lm_head" in names and "embedding" in names


def tied_note(spec: ModelSpec) -> str | None:
    """One line on a tied draft's lm_head for the component table (None when it is not tied)."""
    if not tied_lm_head(spec):
        return None
    rows = next(t.shape for t in spec.tensors if t.component == "lm_head")
    head = " x ".join(f"{d:,}" for d in rows)
    return (
        "tied to the embedding (tie_word_embeddings true): counted once, as the embedding. SGLang 0.5.23 serves "
        "embed_tokens as the head (models/llama_eagle3.py:303) and never loads lm_head.weight; vLLM 0.33.0 and "
        f"0.34.0 ignore the flag, load a {head} lm_head.weight when the checkpoint has one (not in these counts), "
        "else use the target's lm_head."
    )


def count(spec: ModelSpec) -> ParamCount:
    """Exact counts; ``total`` includes a frozen shared embedding even when the checkpoint omits it."""
    total = embedding = lm_head = trainable = buffers = stored = shared = mtp = vision = 0
    routed: dict[float, int] = {}  # active_fraction -> elements (one Fraction per group keeps this exact)
    tied = tied_lm_head(spec)
    for t, times in _distinct(spec.tensors):
        n = t.numel * times
        if t.is_buffer:
            buffers += n
            continue
        if tied and t.component == "lm_head":
            continue  # the embedding's storage: counted once, under embedding
        total += n
        if t.component == "embedding":
            embedding += n
        elif t.component == "lm_head":
            lm_head += n
        elif t.component == "mtp":
            mtp += n
        elif t.component == "vision":
            vision += n
        if t.trainable:
            trainable += n
        if t.stored:
            stored += n
        if t.shared_with_target:
            shared += n
        if t.active_fraction < 1.0 and t.component != "mtp":
            routed[t.active_fraction] = routed.get(t.active_fraction, 0) + n
    active: int | None = None
    if routed:
        # ``active`` is the main model's: a target's MTP module is a separate draft that only runs when it
        # is served as one (SGLang/vLLM load it as the MTP draft), so neither its weights nor its routed
        # experts are part of a main-model token's path.
        inactive = sum(n * (1 - Fraction(f).limit_denominator(1_000_000)) for f, n in routed.items())
        # Likewise the vision tower: a text token never passes through it.
        active = total - mtp - vision - int(round(inactive))
    return ParamCount(
        total=total,
        excluding_embedding=total - embedding,
        embedding=embedding,
        lm_head=lm_head,
        trainable=trainable,
        frozen=total - trainable,
        active=active,
        buffers=buffers,
        stored=stored,
        shared_with_target=shared,
        mtp=mtp,
        vision=vision,
        lm_head_tied=tied,
    )


def components(spec: ModelSpec) -> list[Component]:
    """Per-component totals in COMPONENTS order; empty components are left out.

    A tied lm_head (tied_lm_head) stays listed, with 0 parameters and ``tied_to``: its tensor is the embedding's,
    trained and stored as that is.
    """
    out: list[Component] = []
    tied = tied_lm_head(spec)
    for name in COMPONENTS:
        tensors = [t for t in spec.tensors if t.component == name]
        if not tensors:
            continue
        if tied and name == "lm_head":
            emb = next(t for t in spec.tensors if t.component == "embedding")
            as_emb = [
                replace(t, trainable=emb.trainable, stored=False, shared_with_target=emb.shared_with_target)
                for t in tensors
            ]
            out.append(Component(name, 0, emb.trainable, as_emb, tied_to="embedding", note=tied_note(spec) or ""))
            continue
        flags = {t.trainable for t in tensors}
        out.append(
            Component(
                name=name,
                params=sum(t.numel for t in tensors),
                trainable=flags.pop() if len(flags) == 1 else None,
                tensors=tensors,
            )
        )
    unknown = sorted({t.component for t in spec.tensors} - set(COMPONENTS))
    for name in unknown:  # never drop elements silently
        tensors = [t for t in spec.tensors if t.component == name]
        flags = {t.trainable for t in tensors}
        out.append(Component(name, sum(t.numel for t in tensors), flags.pop() if len(flags) == 1 else None, tensors))
    return out


def memory_bytes(n_params: int, dtype: str) -> int:
    """Bytes for ``n_params`` elements stored as ``dtype`` (a MEMORY_DTYPES key)."""
    if dtype not in MEMORY_DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; choose one of {', '.join(MEMORY_DTYPES)}")
    if isinstance(n_params, bool) or not isinstance(n_params, int) or n_params < 0:
        raise InputError(f"parameter count must be a non-negative integer, got {n_params!r}")
    return n_params * MEMORY_DTYPES[dtype]


def memory_table(spec: ModelSpec) -> dict[str, int]:
    """Bytes that must sit in memory per weight dtype.

    A draft's weights shared with the target (its embedding, an MTP head) are already resident with
    the target, so they are not counted again; buffers keep their own dtype (d2t int64, t2d bool).
    """
    tied = tied_lm_head(spec)  # a tied lm_head is the embedding's storage: resident once, as that is
    own = sum(
        t.numel
        for t in _params(spec)
        if not (spec.role == "draft" and t.shared_with_target) and not (tied and t.component == "lm_head")
    )
    buffer_bytes = int(sum(t.numel * DTYPE_BYTES.get(t.dtype or "I64", 8) for t in spec.tensors if t.is_buffer))
    return {name: memory_bytes(own, name) + buffer_bytes for name in MEMORY_DTYPES}


def ratio(draft: ModelSpec | ParamCount, target: ModelSpec | ParamCount) -> float:
    """Draft size relative to its target: draft excluding embedding over target total."""
    d = count(draft) if isinstance(draft, ModelSpec) else draft
    t = count(target) if isinstance(target, ModelSpec) else target
    if not t.total:
        raise InputError("the target has no parameters; cannot compute a draft-to-target ratio")
    return d.excluding_embedding / t.total


# --------------------------------------------------------------------------------------------
# Checkpoint reconciliation
# --------------------------------------------------------------------------------------------

Header = Mapping[str, tuple[tuple[int, ...], str]]

_BUFFER_NAMES = ("d2t", "t2d")
_QUANT_SUFFIXES = (".weight_scale_inv", ".weight_scale", ".input_scale", "_scales")
_IGNORED_SUFFIXES = (".rotary_emb.inv_freq", "rotary_emb.inv_freq")
# (header prefix, spec prefix) rewrites seen in published checkpoints
_PREFIX_REWRITES: tuple[tuple[str, str], ...] = (
    ("model.", ""),
    ("", "model."),
    ("language_model.", ""),
    ("language_model.model.", "model."),
    # Gemma-3 re-saved by transformers 5 (the release uses language_model.model. / vision_tower.vision_model.)
    ("model.language_model.", "model."),
    ("model.vision_tower.", "vision_tower.vision_model."),
    ("model.multi_modal_projector.", "multi_modal_projector."),
    ("midlayer.", "layers.0."),
    ("layers.0.", "midlayer."),
    ("model.midlayer.", "midlayer."),
    ("model.layers.0.", "midlayer."),
    ("", "medusa_head."),
    ("draft_model.", ""),
)


@dataclass
class CheckpointReport:
    """What a checkpoint header holds compared with what its config implies."""

    param_elements: int
    buffer_elements: int
    missing: list[tuple[str, str]]  # (spec name, why); includes by-design omissions, see by_design
    unexpected: list[tuple[str, str]]  # (header name, why)
    shape_mismatches: list[tuple[str, tuple[int, ...], tuple[int, ...]]]  # (name, config shape, header shape)
    matches_config: bool
    by_design: list[str] = field(default_factory=list)  # names in ``missing`` the producer omits on purpose
    ignored: list[tuple[str, str]] = field(default_factory=list)  # harmless extras (scales, rope caches, ...)
    renamed: dict[str, str] = field(default_factory=dict)  # header name -> spec name when prefixes differed
    notes: list[str] = field(default_factory=list)

    @property
    def gaps(self) -> list[tuple[str, str]]:
        """Missing tensors that are real problems (not omitted by design)."""
        design = set(self.by_design)
        return [m for m in self.missing if m[0] not in design]


def _candidates(name: str) -> Iterable[str]:
    yield name
    for src, dst in _PREFIX_REWRITES:
        if name.startswith(src):
            yield dst + name[len(src) :]


def _why_absent(spec: ModelSpec, t: TensorSpec) -> str:
    short = t.name.rsplit(".weight", 1)[0].rsplit(".", 1)[-1] if "." in t.name else t.name
    if t.component == "lm_head" and tied_lm_head(spec):
        return (
            f"{short} not stored: tied to the embedding (tie_word_embeddings true); "
            "vLLM 0.33.0 and 0.34.0 then use the target's lm_head"
        )
    if t.shared_with_target and not t.trainable:
        return f"{short} not stored: shared with the target and frozen (loaded from the target at serving time)"
    return f"{short} not stored by {spec.dialect} checkpoints by design"


def reconcile(spec: ModelSpec, header: Header) -> CheckpointReport:
    """Match a safetensors header (name -> (shape, dtype)) against the spec's tensor list."""
    expected = {t.name: t for t in spec.tensors}
    matched: dict[str, str] = {}
    used: set[str] = set()
    unexpected: list[tuple[str, str]] = []
    mismatches: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = []
    ignored: list[tuple[str, str]] = []
    renamed: dict[str, str] = {}
    notes: list[str] = []
    param_elements = 0
    buffer_elements = 0
    tied = tied_lm_head(spec)

    for raw_name in sorted(header):
        entry = header[raw_name]
        try:
            shape = tuple(int(d) for d in entry[0])
            dtype = str(entry[1])
        except (TypeError, ValueError, IndexError) as exc:
            raise DataError(f"checkpoint header entry {raw_name!r} is malformed: {entry!r}") from exc
        numel = 1
        for d in shape:
            numel *= d
        quant_blocks = raw_name.endswith("_blocks")
        lookup = raw_name[: -len("_blocks")] if quant_blocks else raw_name
        hit = next((c for c in _candidates(lookup) if c in expected and c not in used), None)
        if hit is None:
            base = raw_name.rsplit(".", 1)[-1]
            if base in _BUFFER_NAMES or raw_name in _BUFFER_NAMES:
                buffer_elements += numel
                if spec.draft_vocab_size is not None and spec.draft_vocab_size == spec.vocab_size:
                    ignored.append(
                        (
                            raw_name,
                            "vocabulary map although draft_vocab_size equals vocab_size (identity mapping; harmless)",
                        )
                    )
                else:
                    unexpected.append((raw_name, "vocabulary-map buffer this config does not call for"))
                continue
            if raw_name.endswith(_QUANT_SUFFIXES):
                ignored.append((raw_name, "quantisation scale"))
                continue
            if raw_name.endswith(_IGNORED_SUFFIXES):
                ignored.append((raw_name, "rotary cache (recomputed at load time)"))
                continue
            param_elements += numel
            unexpected.append((raw_name, "not implied by the config"))
            continue
        t = expected[hit]
        matched[raw_name] = hit
        used.add(hit)
        if hit != raw_name:
            renamed[raw_name] = hit
        if t.is_buffer:
            buffer_elements += numel
        else:
            # MXFP4 blocks pack two 4-bit values per byte
            param_elements += numel * 2 if quant_blocks else numel
        logical = numel * 2 if quant_blocks else numel
        if quant_blocks:
            if logical != t.numel:
                mismatches.append((hit, t.shape, shape))
        elif shape != t.shape:
            mismatches.append((hit, t.shape, shape))
        if tied and t.component == "lm_head":
            notes.append(
                f"{hit} is present although tie_word_embeddings is true: SGLang 0.5.23 never loads it (it serves "
                "the embedding as the head, models/llama_eagle3.py:303) while vLLM 0.33.0 and 0.34.0 ignore the tie "
                "and load it, so the two engines serve different heads"
            )
        elif not t.stored:
            notes.append(
                f"{hit} is present although {spec.dialect} checkpoints usually leave it out; "
                "check it is an exact copy of the target's"
            )
        del dtype  # dtype is informative only; quantised exports legitimately differ

    present = used
    missing: list[tuple[str, str]] = []
    by_design: list[str] = []
    for t in spec.tensors:
        if t.name in present:
            continue
        # a frozen copy of the target's weights may be left out whoever saves it by default: speculators 0.9.0
        # lists embed_tokens.weight in Eagle3DraftModel._keys_to_ignore_on_load_missing and loads the verifier's
        shared = t.shared_with_target and not t.trainable
        if not t.stored or (tied and t.component == "lm_head") or shared:
            missing.append((t.name, _why_absent(spec, t)))
            by_design.append(t.name)
        else:
            missing.append((t.name, "expected by the config but absent from the checkpoint"))
    design = set(by_design)
    gaps = [m for m in missing if m[0] not in design]
    mtp = {t.name for t in spec.tensors if t.component == "mtp"}
    if mtp and mtp <= {m[0] for m in missing}:
        notes.append(
            "the whole MTP module is absent: the release stores it, a checkpoint re-saved by transformers drops it "
            "(Qwen3-Next: _keys_to_ignore_on_load_unexpected = [r'^mtp.*']); serve MTP drafts from the release"
        )
    return CheckpointReport(
        param_elements=param_elements,
        buffer_elements=buffer_elements,
        missing=missing,
        unexpected=unexpected,
        shape_mismatches=mismatches,
        matches_config=not gaps and not unexpected and not mismatches,
        by_design=by_design,
        ignored=ignored,
        renamed=renamed,
        notes=notes,
    )


def read_safetensors_header(path: str | Path) -> dict[str, tuple[tuple[int, ...], str]]:
    """Tensor name -> (shape, dtype) from a local .safetensors file, reading only its header.

    The same reader as ``hub``: header size capped, shapes non-negative integers, offsets inside the file.
    """
    from comparelib.models import hub

    p = Path(path)
    try:
        return hub.read_safetensors_header(p)
    except ConfigError as exc:
        raise DataError(str(exc)) from None
