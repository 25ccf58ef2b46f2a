"""One comparison row per draft: fetch, parse, count, reconcile, lint.

This is the glue the Compare page and the ``params`` / ``compare`` commands share, so both show
the same numbers. Sources are Hub URLs, local folders, or picks from the built-in registry
(``registry:<hub id>``), which work offline.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from comparelib.errors import (
    CompareError,
    ConfigError,
    GatedRepoError,
    HubError,
    InputError,
    OfflineError,
    UnsupportedArchitectureError,
)
from comparelib.models import architectures, engines, hub, lint, params, registry
from comparelib.models import serving as serving_model
from comparelib.models.architectures import ModelSpec
from comparelib.models.draft import (
    SHIPPED_NOTE,
    base_model_from_card,
    drafts_text,
    own_mtp,
    split_native,
    target_notice,
)

# re-exported (``x as x``): callers name a draft's source kinds through this module
from comparelib.models.sources import EXAMPLE_OWN as EXAMPLE_OWN
from comparelib.models.sources import EXAMPLE_PREFIX as EXAMPLE_PREFIX
from comparelib.models.sources import EXAMPLE_TARGET as EXAMPLE_TARGET
from comparelib.models.sources import REGISTRY_PREFIX as REGISTRY_PREFIX
from comparelib.models.sources import is_local_path as is_local_path
from comparelib.models.sources import registry_source as registry_source
from comparelib.values import percent

if TYPE_CHECKING:  # loaded by the frame builders below: the sidebar's draft needs this module, not pandas
    import pandas as pd


@dataclass
class Entry:
    """Everything the page and CLI show about one draft (or target)."""

    source: str
    label: str
    kind: str  # "hub" | "local" | "registry"
    spec: ModelSpec
    count: params.ParamCount
    components: list[params.Component]
    memory: dict[str, int]
    revision: str | None = None
    commit_sha: str | None = None
    checkpoint: params.CheckpointReport | None = None
    findings: list[lint.Finding] = field(default_factory=list)
    target_label: str | None = None
    target_count: params.ParamCount | None = None
    target_layers: int | None = None
    published: registry.PublishedDraft | None = None
    card: str | None = None
    target_family: str | None = None  # engines.FAMILIES key the capture rules were applied for
    lint_args: dict[str, Any] = field(default_factory=dict)  # what lint was given, to re-check for another engine
    serving: list[serving_model.Verdict] = field(default_factory=list)  # one per engine version and runner
    serving_args: dict[str, Any] = field(default_factory=dict)  # what serve() was given, to re-run for an engine
    # where the target came from: "given" (--target, the page's field), "named" (its config), "published" (its
    # registry entry), "card" (its model card's base_model: ``load_entry(card_target=True)``), "" (none known)
    target_from: str = ""
    target_note: str | None = None  # a card's base_model or the config's target that could not be read, and why
    # where ``target_count`` came from: "the config shipped with the app", "read: <target>@<rev>", "read for <the
    # entry whose target it also is> (...)" (``share_targets``); None while the target's size is unknown
    target_size_from: str | None = None
    # a target whose architecture the counter does not know: its total from its checkpoint (stored elements summed
    # over its safetensors headers) when they were read; active and the split by component are not known
    target_stored: int | None = None
    # that target's architecture, from its config read (None for a counted target or one not read): the engines'
    # rules are that class's or none, never a guess from the target's name (walk BL1)
    target_arch: str | None = None
    engine: str | None = None  # the engine choice the lint and the serving rows are for (None: the newest of each)

    @property
    def ratio(self) -> float | None:
        total = self.target_count.total if self.target_count is not None else self.target_stored
        if not total:
            return None
        return self.count.excluding_embedding / total

    @property
    def ratio_active(self) -> float | None:
        """The same over the parameters one text token of the target passes through (``ParamCount.per_token``):
        what a token costs the target, so a 30B-A3B target's draft is ~10x its share of the total. A dense target's
        is its total (less a vision tower or MTP module: Gemma 3's is a little above the draft/target ratio); None
        while the target is not counted (an architecture the counter does not know: ``target_size_from`` says so)."""
        if self.target_count is None or not self.target_count.per_token:
            return None
        return self.count.excluding_embedding / self.target_count.per_token


CARD_TARGET_WORDS = "the model card's base_model"  # where a ``target_from == "card"`` target came from, as said


def target_origin(entry: Entry, target_field: str = "--target") -> str | None:
    """Where a draft's target came from, when neither the user nor the draft's config gave it: its model card's
    base_model (and that ``target_field`` overrides it), or why the card's could not be used; else None."""
    if entry.target_from == "card":
        said = f"target {entry.target_label} from {CARD_TARGET_WORDS} ({target_field} overrides it)"
        return f"{said}; {entry.target_note}" if entry.target_note else said  # one it could not count: why
    return entry.target_note


_TARGETS_LOCK = threading.Lock()  # one parse per target even when a warm-up thread and a page ask at once


def _known_target(hub_id: str) -> tuple[ModelSpec, params.ParamCount] | None:
    with _TARGETS_LOCK:
        return _known_target_counted(hub_id)


@functools.lru_cache(maxsize=32)
def _known_target_counted(hub_id: str) -> tuple[ModelSpec, params.ParamCount] | None:
    """Shipped target configs, parsed and counted once per process, kept without their tensor list (a 1T
    MoE target lists ~70K tensors; all a draft's entry reads of its target is sizes and the count)."""
    known = architectures.known_target(hub_id)
    if known is None:
        return None
    with architectures.counts_only():  # the tensor list is dropped below: only its count is kept
        spec = architectures.parse_config(known, source=hub_id)
    return replace(spec, tensors=()), params.count(spec)


def prepare_targets() -> None:
    """Count the shipped targets of the default comparison ahead of the first page that needs them (the app
    calls this from a background thread once its first page has run)."""
    for hub_id in registry.DEFAULT_COMPARISON:
        try:
            published = registry.get_draft(hub_id)
            if published.target_model:
                _known_target(published.target_model)
        except CompareError:  # a registry without this draft: the page that needs it says so
            continue


SHIPPED_TARGET_WORDS = "the config shipped with the app"  # a target's size from architectures.known_target


def _target_from_text(text: str) -> tuple[ModelSpec, params.ParamCount, str, str]:
    """A target given as a Hub URL / local folder, or a hub id the app ships a config for; the last item says
    where its size came from (``Entry.target_size_from``)."""
    known = _known_target(text.strip())
    if known is not None:
        return known[0], known[1], text.strip(), SHIPPED_TARGET_WORDS
    fetched = hub.fetch_model(text, with_card=False, with_header=False, with_files=False)
    if fetched.repo_id and _in_registry(fetched.repo_id) and registry.get_draft(fetched.repo_id).mtp_module:
        of = registry.get_draft(fetched.repo_id).target_model  # its config is a copy of that target's (walk AV1)
        raise InputError(f"{fetched.repo_id} is a published MTP module (a draft) for {of}, not a target: give {of}")
    try:
        spec = architectures.parse_config(fetched.config, source=fetched.source_label)
    except UnsupportedArchitectureError as exc:
        raise _UncountedTarget(text, fetched, exc) from None
    return spec, params.count(spec), fetched.source_label, f"read: {fetched.source_label}"


class _UncountedTarget(UnsupportedArchitectureError):
    """A target whose config was read but whose architecture the counter has no rules for (``load_entry`` keeps
    it as the target, sized from its checkpoint where its headers can be read)."""

    def __init__(self, text: str, fetched: hub.FetchedModel, exc: UnsupportedArchitectureError) -> None:
        super().__init__(str(exc), architecture=exc.architecture, supported=exc.supported)
        self.text, self.fetched = text, fetched


@dataclass(frozen=True)
class UncountedTarget:
    """What is known of a target the counter cannot count: its name, architecture, the numbers of its config the
    wiring lint needs, and its total from its checkpoint (None when its headers were not read, and why)."""

    label: str
    architecture: str
    layers: int | None
    hidden: int | None
    vocab: int | None
    stored: int | None
    headers_unread: str  # why ``stored`` is None ("" when it is known)

    @property
    def size_from(self) -> str:
        return (
            f"its checkpoint: stored elements summed over the safetensors headers of {self.label} (its architecture "
            f"{self.architecture} is not one the parameter counter knows: active parameters per token and the "
            "split by component need it)"
        )

    @property
    def note(self) -> str:
        """Why the target's size is not counted from its config, and what still works."""
        size = (
            f"its total, {self.stored:,} parameters, is read from its checkpoint (stored elements in its "
            "safetensors headers), so the draft/target ratio is over that total; active parameters per token and "
            "the split by component need the architecture"
            if self.stored is not None
            else f"its checkpoint headers were not read ({self.headers_unread}), so what needs its size is left out"
        )
        read = ", ".join(
            f"{name} {value}"
            for name, value in (("layers", self.layers), ("hidden", self.hidden), ("vocabulary", self.vocab))
            if value is not None
        )
        return (
            f"{self.label} has an unsupported architecture, {self.architecture} (the parameter counter has no rules "
            f"for it): {size}. The draft's own counts and the wiring lint against the target's config "
            f"({read or 'none of its layers, hidden size or vocabulary stated'}) still work"
        )


def _int_field(config: Mapping[str, Any], key: str) -> int | None:
    for cfg in (config, config.get("text_config")):
        value = cfg.get(key) if isinstance(cfg, Mapping) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _uncounted(exc: _UncountedTarget, with_header: bool) -> UncountedTarget:
    """The target of ``exc`` as far as it is known: its config's numbers, and its checkpoint's total when its
    safetensors headers can be read (``with_header``: the draft's --no-header skips the target's too)."""
    fetched, stored, unread = exc.fetched, None, ""
    if not with_header:
        unread = "only its config was read here"
    else:
        pinned = replace(fetched.ref, revision=fetched.commit_sha) if fetched.commit_sha else fetched.ref
        try:  # at the commit its config was read from
            header = hub.fetch_model(pinned, with_card=False, with_header=True).safetensors_header
        except hub.CheckpointError:  # a local folder's file that is not whole (its message is a draft's)
            header, unread = None, "a safetensors file in its folder is not a whole safetensors file"
        except CompareError as err:  # offline, a private shard
            header, unread = None, " ".join(str(err).split())
        if header:
            stored = sum(math.prod(shape) for shape, _dtype in header.values())
        elif not unread:
            unread = (
                "the repository has no safetensors checkpoint" if header is None else "its headers list no tensors"
            )
    return UncountedTarget(
        label=fetched.source_label,
        architecture=exc.architecture,
        layers=_int_field(fetched.config, "num_hidden_layers"),
        hidden=_int_field(fetched.config, "hidden_size"),
        vocab=_int_field(fetched.config, "vocab_size"),
        stored=stored,
        headers_unread=unread,
    )


def _shipped_target(text: str, exc: HubError) -> tuple[str, str] | None:
    """(hub id, kind) when ``text`` names, at its default revision, a target the app ships a config for and the
    Hub is offline or gated to this session: a target pasted as "your draft" is then still recognised (and said)
    as a target (walk BX 2: a gated Kimi-K2.5 read only "accept its terms")."""
    if not isinstance(exc, OfflineError | GatedRepoError):
        return None
    try:
        ref = hub.parse_ref(text)
    except CompareError:
        return None
    if ref.local_path is not None or not ref.repo_id or ref.revision not in (None, "", "main"):
        return None
    known = architectures.known_target(ref.repo_id)
    if known is None:
        return None
    return next((n for n in architectures.known_targets() if n.lower() == ref.repo_id.lower()), ref.repo_id), "hub"


def _target_for_published(
    draft: registry.PublishedDraft,
) -> tuple[ModelSpec | None, params.ParamCount | None, str | None]:
    if not draft.target_model:
        return None, None, None
    known = _known_target(_shipped_checkpoint_of(draft.target_model) or draft.target_model)
    return (known[0], known[1], draft.target_model) if known is not None else (None, None, draft.target_model)


def _shipped_checkpoint_of(target: str) -> str | None:
    """The shipped target config of which ``target`` is a quantised checkpoint (``draft.same_target``: walk AI's
    Qwen3-Next-80B-A3B-Instruct-FP8, whose draft had no ratio though the BF16 config ships); None for ``target``
    itself shipped, or none. A quantisation keeps the parameter count."""
    from comparelib.models.draft import same_target as same_model

    if architectures.known_target(target) is not None:
        return None
    return next((n for n in architectures.known_targets() if same_model(target, n)), None)


def _shipped_words(target: str | None) -> str:
    """Where a published draft's target size came from: the shipped config, or the one of which it is a
    checkpoint, said so."""
    from comparelib.models.draft import QUANT

    shipped = _shipped_checkpoint_of(target) if target else None
    if shipped is None or target is None:
        return SHIPPED_TARGET_WORDS
    quant = QUANT.search(target)
    what = f"the {quant.group(1).upper()} checkpoint" if quant else "a checkpoint"
    return f"{SHIPPED_TARGET_WORDS} for {shipped}, of which {target} is {what} (the same parameters)"


def load_entry(
    text: str,
    *,
    target: str | None = None,
    target_layers: int | None = None,
    with_header: bool = True,
    with_card: bool = True,
    serving: str | None = None,
    card_target: bool = False,
) -> Entry:
    """Fetch and analyse one source. Raises CompareError subclasses with user-facing text.

    ``serving`` is the engine the draft is served with ("SGLang 0.5.23", "vLLM", ...); None checks the
    newest rules of every serving engine (engines.serving_choices()). Without the header and the card, a Hub
    draft costs one config download (no repo listing: see ``hub.fetch_model``), and one more for a target its
    config names (``speculators_config.verifier``) whose config the app does not ship.

    A Hub or local draft whose config names its target has that target (``target_from`` "named"), read with the
    session's token; one whose config cannot be read (gated, offline) stays its target by name, and
    ``target_note`` says why its size is unknown. A published draft keeps its registry entry's target: read from the
    Hub (as above) when the draft was and the app ships no config for it, never for a ``registry:`` copy.

    ``card_target`` (the CLI): a Hub or local draft given no target (nor ``target_layers``) whose config names
    none takes the ``base_model`` its model card names, as the pages take your draft's target
    (``draft.resolve_target``); ``target_from`` says so ("card"). A base_model whose config cannot be read leaves
    the target unknown and says why in ``target_note``.
    """
    engine_pair = [engines.parse_choice(serving)] if serving else None
    text = (text or "").strip()
    if not text:
        raise InputError("empty model reference: paste a Hub URL, org/name, a local folder, or pick a published draft")
    published: registry.PublishedDraft | None = None
    if text == EXAMPLE_OWN:
        # The built-in example: a team's Kimi-K2.5 draft with a full-vocabulary lm_head.
        entry = load_entry(
            str(registry.EXAMPLE_OWN_DRAFT),
            target=target or EXAMPLE_TARGET,
            target_layers=target_layers,
            with_header=with_header,
            with_card=with_card,
            serving=serving,
            card_target=card_target,
        )
        entry.source, entry.label, entry.kind = EXAMPLE_OWN, "example: own Kimi-K2.5 draft", "example"
        return entry
    if text.startswith(EXAMPLE_PREFIX):
        raise InputError(f"unknown example {text!r}; the built-in one is {EXAMPLE_OWN!r}")
    header = None
    revision = commit = card = None
    if text.startswith(REGISTRY_PREFIX):
        published = registry.get_draft(text[len(REGISTRY_PREFIX) :].strip())
        if not published.config:
            raise InputError(f"the registry has no usable config for {published.hub_id}; paste its Hub URL instead")
        config: Mapping[str, Any] = published.config
        label, kind = published.hub_id, "registry"
        spec = architectures.parse_config(config, source=published.hub_id, target=_published_target_sizes(published))
    else:
        fetched: hub.FetchedModel | None
        try:
            fetched = hub.fetch_model(text, with_card=with_card, with_header=with_header, with_files=with_header)
        except HubError as exc:
            ref_id = _repo_id_or_none(text)
            if ref_id and _in_registry(ref_id):
                again = type(exc)(
                    f"{exc} The built-in registry has a copy of {ref_id}: "
                    "pick it as a published draft to use it offline."
                )
                again.__dict__.update(exc.__dict__)  # a Hub error's repo_id, repo_type, token_given
                raise again from exc
            shipped = _shipped_target(text, exc)
            if shipped is None:
                raise
            fetched = None
            label, kind = shipped
            spec = architectures.parse_config(architectures.known_target(label) or {}, source=label)
            why = (
                "offline"
                if isinstance(exc, OfflineError)
                else "gated: accept its terms on the Hub and give a token to read it there"
            )
            spec = replace(
                spec, notes=(*spec.notes, f"{SHIPPED_NOTE} ({why}): the config of {label} shipped with the app")
            )
        if fetched is not None:
            label = fetched.source_label
            kind = "local" if fetched.ref.local_path is not None else "hub"
            revision, commit, card = fetched.revision, fetched.commit_sha, fetched.card
            header = fetched.safetensors_header
            if fetched.repo_id and _in_registry(fetched.repo_id):
                published = registry.get_draft(fetched.repo_id)
            try:
                spec = _parse_draft(fetched.config, label, published, target, header)
            except UnsupportedArchitectureError:
                # a full model the counter has no rules for is still a target pasted as a draft (walk BL6)
                stored = [(name, shape) for name, (shape, _dtype) in (header or {}).items()]
                uncounted_spec = architectures.uncounted_target(fetched.config, label, stored)
                if uncounted_spec is None:
                    raise
                spec = uncounted_spec

    target_spec: ModelSpec | None = None
    target_count: params.ParamCount | None = None
    target_label: str | None = None
    target_from, target_note, size_from = "", None, None
    uncounted: UncountedTarget | None = None
    if spec.role != "draft":
        pass  # a target model pasted as a draft has no target: its size over another model is no ratio
    elif target:
        try:
            target_spec, target_count, target_label, size_from = _target_from_text(target)
        except _UncountedTarget as exc:  # kept as the target: its config's numbers, its checkpoint's total
            uncounted = _uncounted(exc, with_header)
        target_from = "given"
    elif published is not None:
        target_spec, target_count, target_label = _target_for_published(published)
        target_from = "published" if target_label else ""
        size_from = _shipped_words(target_label) if target_count is not None else None
        if target_label and target_count is None and kind == "hub":
            # read from the Hub as the draft just was, with the session's token, as a config-named target is (walk
            # AJ3: the published Kimi-K2.7-Code draft's public target was "unknown"); registry copies fetch nothing
            try:
                target_spec, target_count, _read, size_from = _target_from_text(target_label)
            except _UncountedTarget as exc:
                uncounted = _uncounted(exc, with_header)
            except CompareError as exc:
                target_note = _unread_published_note(published, exc)
    elif spec.role == "draft":
        # the target its config names: a speculators verifier, or a Medusa head's base model (walk AQ)
        verifier = _verifier_name(spec.raw_config) or (spec.target_model if spec.dialect == "medusa" else None)
        if verifier:  # the target its config names: read as a card's base_model is (a shipped config, else the Hub)
            target_label, target_from = verifier, "named"  # its target by name even where its config is not read
            try:
                target_spec, target_count, _read, size_from = _target_from_text(verifier)
            except _UncountedTarget as exc:
                uncounted = _uncounted(exc, with_header)
            except CompareError as exc:
                target_note = _unread_named_note(label, verifier, exc)
                if _repo_id_or_none(verifier) is None:  # a folder of the trainer's machine: no model to go by here
                    target_label, target_from = None, ""
        elif card_target and kind in ("hub", "local") and target_layers is None:
            base = base_model_from_card(card)
            if base:  # the config names none; its model card does, as the pages read it
                try:
                    target_spec, target_count, target_label, size_from = _target_from_text(base)
                    target, target_from = base, "card"
                except _UncountedTarget as exc:
                    uncounted, target, target_from = _uncounted(exc, with_header), base, "card"
                except CompareError as exc:
                    target_note = (
                        f"its model card names {base} as base_model, whose config could not be read "
                        f"({' '.join(str(exc).split())}): give --target (a Hub id, local folder or shipped target) "
                        "or --target-layers"
                    )

    if uncounted is not None:  # a target named by the config keeps the name it gives
        target_label, target_note = target_label or uncounted.label, uncounted.note
        size_from = uncounted.size_from if uncounted.stored is not None else None
        target_layers = target_layers or uncounted.layers
    if target_layers is None and target_spec is None and published is not None and published.target_layers:
        target_layers = published.target_layers
    # an uncounted target's tensors are its header's: no config-built tensors to reconcile them with
    checkpoint = params.reconcile(spec, header) if header and spec.dialect != architectures.UNCOUNTED else None
    # an uncounted target's family is its config's class (the lint names it), not a guess from its name (walk BL1)
    family = _family(spec, target_spec, published, target) if uncounted is None else None
    findings: list[lint.Finding] = []
    lint_args: dict[str, Any] = {}
    serving_args = _serving_args(
        spec, target_spec, published, target, target_layers, uncounted.architecture if uncounted else None
    )
    if serving_args and _shapes(checkpoint):  # what each engine's loader does with them (serving.load_check)
        serving_args["checkpoint_shapes"] = _shapes(checkpoint)
    if spec.role == "draft":
        lint_args = dict(
            target_name=target_label or target if target_from == "given" else None,
            trained_for=_trained_for(spec, published, card, kind) if target_from == "given" else None,
            target=_slim(target_spec),
            target_layers=target_layers,
            target_hidden_size=uncounted.hidden
            if uncounted
            else published.target_hidden_size
            if published and target_spec is None
            else None,
            target_vocab_size=uncounted.vocab
            if uncounted
            else published.target_vocab_size
            if published and target_spec is None
            else None,
            checkpoint_tensors=list(header) if header else None,
            checkpoint_shapes=_shapes(checkpoint),
            # the engines' class when known; else an uncounted target's architecture, named by the lint's note
            target_family=serving_args.get("target_arch") or family or (uncounted.architecture if uncounted else None),
        )
        findings = lint.lint(spec, **lint_args, serving=engine_pair)
    verdicts = _verdicts(spec, lint_args, serving_args, serving)
    return Entry(
        source=text,
        label=label,
        kind=kind,
        spec=spec,
        count=params.count(spec),
        components=params.components(spec),
        memory=params.memory_table(spec),
        revision=revision,
        commit_sha=commit,
        checkpoint=checkpoint,
        findings=findings,
        target_label=target_label,
        target_count=target_count,
        target_layers=target_spec.num_hidden_layers if target_spec is not None else target_layers,
        published=published,
        card=card,
        target_family=family,
        lint_args=lint_args,
        serving=verdicts,
        serving_args=serving_args,
        target_from=target_from,
        target_note=target_note,
        target_size_from=size_from,
        target_stored=uncounted.stored if uncounted else None,
        target_arch=uncounted.architecture if uncounted else None,
        engine=serving,
    )


def with_unread_target(entry: Entry, target: str, note: str) -> Entry:
    """``entry``, loaded without the target it was given because that target's config could not be read (a gated
    or private repo without the token that opens it): the target is still named, and ``note`` (why, and what opens
    it) is what its size and draft/target ratio say instead (``no_ratio_reason``), not a dropped row."""
    return replace(entry, target_label=target, target_from="given", target_note=note)


def _unread_named_note(label: str, verifier: str, exc: CompareError) -> str:
    """Why the target a draft's config names has no size here: its config could not be read (gated without a
    token, offline, a folder of the trainer's machine), and what gives it."""
    return (
        f"{label}'s config names {verifier} as its target (speculators_config.verifier.name_or_path), whose config "
        f"could not be read ({' '.join(str(exc).split())}); what needs the target's size is left out (on the "
        "command line, --target with a copy that can be read, or --target-layers, gives it)"
    )


def _unread_published_note(published: registry.PublishedDraft, exc: CompareError) -> str:
    """Why the target the registry names for a published draft read from the Hub has no size here."""
    return (
        f"the registry names {published.target_model} as {published.hub_id}'s target, whose config could not be "
        f"read ({' '.join(str(exc).split())}); what needs the target's size is left out (a Hub token for a gated or "
        "private target, or on the command line --target with a copy that can be read, or --target-layers, gives it)"
    )


def _shapes(checkpoint: params.CheckpointReport | None) -> list[tuple[str, list[int], list[int]]]:
    """The checkpoint's tensors of another shape than the config builds: (name, config's, checkpoint's)."""
    if checkpoint is None:
        return []
    return [(name, list(built), list(stored)) for name, built, stored in checkpoint.shape_mismatches]


def _trained_for(
    spec: ModelSpec, published: registry.PublishedDraft | None, card: str | None, kind: str
) -> tuple[str, str] | None:
    """(the target the draft says it was trained for, where it says so), as ``draft.target_of`` reads it: its
    config, its published entry, else its model card's base_model; None when nothing names one."""
    named = _verifier_name(spec.raw_config or {}) or spec.target_model
    if named:
        return named, "the config"
    if published is not None and published.target_model:
        return published.target_model, "the published entry"
    base = base_model_from_card(card) if kind in ("hub", "local") else None
    return (base, "the model card") if base else None


def _verdicts(
    spec: ModelSpec, lint_args: Mapping[str, Any], serving_args: Mapping[str, Any], serving: str | None
) -> list[serving_model.Verdict]:
    """Will-it-serve rows for one engine choice; for a draft trained for another target than the one given, no row
    says it serves ("unknown", ``serving.for_other_target``), with how we know, vocabulary first."""
    if not serving_args:
        return []
    verdicts = serving_model.serve(**serving_args, rows=serving_model.parse_rows(serving))
    why = "; ".join(lint.other_target_reasons(spec, **lint_args))
    return serving_model.for_other_target(verdicts, why)


def _serving_args(
    spec: ModelSpec,
    target_spec: ModelSpec | None,
    published: registry.PublishedDraft | None,
    target_text: str | None,
    target_layers: int | None,
    target_arch: str | None = None,
) -> dict[str, Any]:
    """serve()'s inputs for an EAGLE-3 draft: the target's class, N and hidden size, the checkpoint's fc width
    (its safetensors header, else what the draft's trainer builds). Empty when any is unknown."""
    is_eagle3 = spec.aux_layer_ids is not None or "eagle3" in f"{spec.dialect} {spec.architecture}".lower()
    raw = dict(spec.raw_config or (published.config if published and published.config else {}))
    if spec.role != "draft" or not is_eagle3 or not raw:
        return {}
    n: int | None
    hidden: int | None
    if target_spec is not None:
        cls = serving_model.target_class(
            target_spec.architecture, (target_spec.raw_config or {}).get("model_type"), target_spec.dialect
        )
        n, hidden = target_spec.num_hidden_layers, target_spec.hidden_size
    else:
        # an uncounted target's config was read: its class, or none; never a guess from a name (walk BL1: the
        # Qwen3_5MoeForConditionalGeneration config of Qwen/Qwen3.5-397B-A17B got Qwen3-MoE's rules by its name)
        cls = serving_model.target_class(target_arch) if target_arch else None
        names = (target_text, published.target_model if published else None, spec.target_model)
        for name in (*names, _verifier_name(spec.raw_config)) if not target_arch else ():
            cls = cls or serving_model.target_class_from_name(name)
        n = target_layers
        hidden = (published.target_hidden_size if published else None) or spec.target_hidden_size or spec.hidden_size
    if cls is None or not n or not hidden:
        return {}
    fc_in = lint.fc_in_features(spec)
    return {
        "draft": raw,
        "target_arch": cls,
        "n_layers": int(n),
        "target_hidden": int(hidden),
        "fc_in_checkpoint": fc_in if fc_in is not None else serving_model.checkpoint_fc_default(raw),
    }


def no_serving_verdict(entry: Entry, target_field: str = "--target") -> str | None:
    """Why "will it serve" has no verdict for a draft (None when it has one, or for a target model).

    The engines' rules (``serving``) are for EAGLE-3 drafts on a known target: an MTP module given its target
    was told to give "an EAGLE-3 draft and its target (--target)" though --target was there. ``target_field``
    names where the target is given (the CLI's option; the Compare page's field)."""
    if entry.spec.role != "draft" or entry.serving:
        return None
    if entry.spec.dialect == "mtp":
        return (
            "the engines' rules here are for EAGLE-3 drafts; an MTP module is served by the target's own weights "
            "(its MTP layers, from the target's checkpoint), not loaded as a separate draft model"
        )
    named = f"{entry.spec.dialect} {entry.spec.architecture}".lower()
    if entry.spec.aux_layer_ids is None and "eagle3" not in named:  # as _serving_args
        return f"the engines' rules here are for EAGLE-3 drafts; this is {lint.method_phrase(entry.spec)}"
    if entry.target_label is None and not entry.target_layers:
        return f"the engines' rules need an EAGLE-3 draft and its target ({target_field})"
    target = entry.lint_args.get("target")
    if isinstance(target, ModelSpec) or entry.target_arch:  # its config was read: a class not modelled
        cls = f" ({target.architecture if isinstance(target, ModelSpec) else entry.target_arch})"
        return (
            f"the engines' rules know no EAGLE-3 target class for {entry.target_label}{cls}; give a target whose "
            "family the engines know (its config or hub id)"
        )
    if entry.target_label is not None:  # as the lint's note (lint.unknown_family_note): the class is what is missing
        return (
            f"the engines' rules need the target's class, and that of {entry.target_label} is not known here: its "
            f"config was not read (nor shipped with the app) and its name says no family the rules know; give a "
            f"copy of its config that can be read ({target_field})"
        )
    return (
        f"the engines' rules need the target's family: give its config or hub id ({target_field}), not only its layers"
    )


# Where an engine's rule and the user's runs disagree: a run group stores runs an engine served with a draft
# (its ``draft_model`` names the draft) that the engine's own code says it does not serve. The rule is the
# engine's default code path; the run is what a server did. Neither is dropped: the page says both.

_DRAFT_FLAG = {"sglang": "--speculative-draft-model-path", "vllm": "--speculative-config's model"}


def _run_served(run: Any) -> bool:
    """A finished speculative run that answered requests (a baseline or an MTP run loads no draft)."""
    return (
        not getattr(run, "is_baseline", False)
        and not registry.is_mtp(run)
        and getattr(run, "status", None) == "finished"
        and (getattr(run, "requests", 0) or 0) > (getattr(run, "errors", 0) or 0)
    )


def _run_version(run: Any) -> str | None:
    version = (getattr(run, "server_config", None) or {}).get("version")
    return (str(version).strip() or None) if version is not None else None


def served_against_rules(entry: Entry, runs: Sequence[Any]) -> list[str]:
    """One sentence per engine whose rows say it does not serve ``entry``'s draft while stored runs of this draft
    (their ``draft_model`` names it, ``draft.draft_match``) were served by that engine; [] when none disagree.

    A run whose recorded version has a row that starts is no conflict; a run of no recorded version (or one
    without a row) conflicts only when no row of its engine starts. The sentence names the runs, their group and
    measured acceptance, and what to check on the server; or, where they recorded another target than the one the
    rules were checked for, that target (walk BR 5)."""
    from comparelib.models.draft import draft_match, model_match

    if entry.spec.role != "draft" or not entry.serving:
        return []
    name = entry.source[len(REGISTRY_PREFIX) :] if entry.source.startswith(REGISTRY_PREFIX) else entry.source
    out = []
    for engine in dict.fromkeys(v.engine for v in entry.serving):
        rows = [v for v in entry.serving if v.engine == engine]
        if all(v.status == "ok" or v.load_cut for v in rows):  # a cut checkpoint starts: its runs are no conflict
            continue
        versions = {v.version for v in rows}

        def conflicts(run: Any, rows: list[serving_model.Verdict] = rows, versions: set[str] = versions) -> bool:
            version = _run_version(run)
            mine = [v for v in rows if v.version == version] if version in versions else rows
            return not any(v.status == "ok" or v.load_cut for v in mine)

        served = [
            r
            for r in runs
            if str(getattr(r, "engine", "")).strip().lower() == engine.lower()
            and _run_served(r)
            and draft_match(getattr(r, "draft_model", None), name)
            and conflicts(r)
        ]
        if not served:
            continue
        said = [v.label for v in rows if v.status != "ok"]
        ids = ", ".join(f"#{r.id}" for r in served)
        groups = sorted({str(r.group) for r in served if getattr(r, "group", None)})
        where = f" in group {', '.join(groups)}" if groups else ""
        run_versions = sorted({v for v in (_run_version(r) for r in served) if v})
        by = f"{engine} {', '.join(run_versions)}" if run_versions else engine
        measured = [(r, r.accept_length) for r in served if getattr(r, "accept_length", None) is not None]
        values = {f"{al:.2f}" for _, al in measured}
        if len(values) == 1:
            acceptance = f" (measured acceptance {values.pop()})"
        elif values:
            acceptance = " (measured acceptance " + ", ".join(f"{al:.2f} in #{r.id}" for r, al in measured) + ")"
        else:
            acceptance = ""
        flag = _DRAFT_FLAG.get(engine.lower(), "draft path")
        many = len(served) > 1
        given = entry.target_label
        served_on = sorted({str(r.model) for r in served if getattr(r, "model", None)})
        if given and served_on and all(model_match(m, given) == "other" for m in served_on):
            # walk BR 5: the runs recorded another target than the one typed here; the rules were checked for the
            # target given, so the server is not what contradicts them ("check the server's draft path" was said)
            out.append(
                f"By {engine}'s code {' and '.join(said)} {'does' if len(said) == 1 else 'do'} not serve this draft, "
                f"but run{'s' if many else ''} {ids}{where} {'were' if many else 'was'} served by {by} with this "
                f"draft on {', '.join(served_on)}{acceptance}: the rules here are checked for the target given, "
                f"{given}, not the one {'those runs' if many else 'that run'} recorded; give {served_on[0]} as the "
                "target to check the draft for it."
            )
            continue
        out.append(
            f"By {engine}'s code {' and '.join(said)} {'does' if len(said) == 1 else 'do'} not serve this draft, "
            f"but run{'s' if many else ''} {ids}{where} {'were' if many else 'was'} served by {by} "
            f"with this draft{acceptance}: the server may have loaded another revision or config of the draft, or "
            f"a build whose rule differs; check the server's {flag} and version."
        )
    return out


def _slim(target: ModelSpec | None) -> ModelSpec | None:
    """The target without its tensor list (a 1T MoE lists ~70K tensors): all lint reads are its sizes."""
    if target is None:
        return None
    return replace(target, tensors=(), raw_config={})


def relint(entry: Entry, serving: str | None) -> Entry:
    """The entry with its wiring lint re-run for one serving engine ("SGLang 0.5.23", "vLLM", ...; None: the
    newest rules of every serving engine). Counts are unchanged."""
    if entry.spec.role != "draft":
        return entry
    pair = [engines.parse_choice(serving)] if serving else None
    verdicts = _verdicts(entry.spec, entry.lint_args, entry.serving_args, serving)
    return replace(
        entry, findings=lint.lint(entry.spec, **entry.lint_args, serving=pair), serving=verdicts, engine=serving
    )


def _family(
    spec: ModelSpec, target_spec: ModelSpec | None, published: registry.PublishedDraft | None, target_text: str | None
) -> str | None:
    """The target family whose capture rules apply: from the target's config, else from the names we have."""
    if target_spec is not None:
        return engines.family_of(target_spec.dialect)
    for name in (
        target_text,
        published.target_model if published else None,
        spec.target_model,
        _verifier_name(spec.raw_config),
    ):
        fam = engines.family_of(name)
        if fam is not None:
            return fam
    return None


def _published_target_sizes(draft: registry.PublishedDraft) -> dict[str, int] | None:
    """Sizes a head-only config (Medusa-1) leaves to its base model."""
    if draft.target_hidden_size and draft.target_vocab_size:
        return {"hidden_size": draft.target_hidden_size, "vocab_size": draft.target_vocab_size}
    return None


def _parse_draft(
    config: Mapping[str, Any],
    label: str,
    published: registry.PublishedDraft | None,
    target: str | None,
    header: params.Header | None = None,
) -> ModelSpec:
    """A fetched config's spec. A Medusa-1 head names only its base model, whose hidden and vocabulary sizes are
    the head's: they come from the registry's entry, else from the target given, else from the base model its
    config names, read as a target is (walk AQ: a Medusa head pasted by Hub id was "missing required fields").
    A target config in a repo the registry lists as a published MTP module, or whose checkpoint holds only its MTP
    layers, is that MTP module (walk AV1: nebius/MTP-DeepSeek-V3-0324 was counted as the 684B target)."""
    try:
        spec = architectures.parse_config(config, source=label)
    except ConfigError:
        base = config.get("base_model_name_or_path")
        if "medusa_num_heads" not in config or not (target or isinstance(base, str)):
            raise
    else:
        listed = published is not None and published.mtp_module
        mtp_layers = spec.dialect == "deepseek-v3" and any(t.component == "mtp" for t in spec.tensors)
        only_mtp = bool(header) and architectures.mtp_only_checkpoint(config, list(header or ()))
        if spec.role != "draft" and mtp_layers and (listed or only_mtp):
            why = "the registry lists it as a published MTP module" if listed else "its checkpoint holds only them"
            mtp = architectures.mtp_spec(config, source=label)
            note = f"the MTP layer(s) of its {spec.architecture} config counted, not the whole model: {why}."
            return replace(mtp, notes=(*mtp.notes, note))
        return spec
    sizes: Mapping[str, Any] | None = _published_target_sizes(published) if published is not None else None
    if sizes is None:
        named = str(target or base).strip()
        try:
            base_spec = _target_from_text(named)[0]
            sizes = {"hidden_size": base_spec.hidden_size, "vocab_size": base_spec.vocab_size}
        except _UncountedTarget as exc:  # an architecture the counter has no rules for: its config's sizes
            sizes = exc.fetched.config
        except CompareError as exc:
            raise ConfigError(
                f"{label} is a Medusa head that takes its sizes from its base model {named}, whose config could "
                f"not be read ({exc}); give a readable copy of {named} as the target"
            ) from None
    return architectures.parse_config(config, source=label, target=sizes)


def _verifier_name(config: Mapping[str, Any]) -> str | None:
    spec_cfg = config.get("speculators_config")
    if isinstance(spec_cfg, Mapping):
        verifier = spec_cfg.get("verifier")
        if isinstance(verifier, Mapping) and isinstance(verifier.get("name_or_path"), str):
            return verifier["name_or_path"]
    return None


def _repo_id_or_none(text: str) -> str | None:
    try:
        return hub.parse_ref(text).repo_id
    except CompareError:
        return None


def target_applies(source: str, own_source: str | None = None, *, to_published: bool = False) -> bool:
    """Whether a target typed on Compare is this source's target.

    The field names the user's draft's target. A published draft (picked from the registry, or its Hub
    repo pasted) keeps the target it was trained for, unless the user asks (``to_published``): giving a
    Llama-3.1-8B draft a Kimi target would only produce hidden-size mismatches that are not there.
    """
    if to_published or source == own_source:
        return True
    if source.startswith(REGISTRY_PREFIX):
        return False
    repo = _repo_id_or_none(source) if not source.startswith(EXAMPLE_PREFIX) else None
    return not (repo and _in_registry(repo))


def _in_registry(hub_id: str) -> bool:
    return any(d.hub_id == hub_id for d in registry.load_registry())


def counts_basis(entry: Entry) -> tuple[str, bool]:
    """(what a row's counts come from, whether they are an estimate): a published draft picked from the registry
    whose config there is a template, inferred or assumed (``PublishedDraft.config_read`` False) is counted from a
    config that is not its own, so its counts are estimates and what its checkpoint stores is not known."""
    p = entry.published
    if entry.kind == "registry" and p is not None:
        return (p.config_basis, False) if p.config_read else (f"estimated from {p.config_basis}", True)
    if any(n.startswith(SHIPPED_NOTE) for n in entry.spec.notes):
        return SHIPPED_TARGET_WORDS, False
    if entry.checkpoint is not None:
        return "config.json and its checkpoint header", False
    return "config.json (no checkpoint header read)", False


def stored_count(entry: Entry) -> int | None:
    """Parameters its checkpoint holds: the header's when one was read, else what a draft's config makes its
    trainer store; None for a count estimated from a config that is not the draft's own (``counts_basis``), and
    for a target whose header was not read: no trainer's rule says what its checkpoint holds (walk BW 1)."""
    if counts_basis(entry)[1]:
        return None
    if entry.checkpoint is not None:
        return entry.checkpoint.param_elements
    return entry.count.stored if entry.spec.role == "draft" else None


def stored_note(entry: Entry) -> str | None:
    """Why a row's stored count is empty, said where it is (Compare's caption, ``compare``'s and ``params``' notes);
    None where it is filled. An uncounted target's unread headers are said by its own note (walk BL6)."""
    basis, estimated = counts_basis(entry)
    if estimated:
        return f"counts {basis}; stored is left empty: no checkpoint of it was read"
    if stored_count(entry) is None and entry.spec.tensors:
        return "stored is left empty: no checkpoint of it was read"
    return None


def no_ratio_reason(entry: Entry) -> str | None:
    """Why a draft's draft/target ratio is blank (None when it has one, or for a target model)."""
    if entry.spec.role != "draft" or entry.ratio is not None:
        return None
    if entry.target_label is None:
        return entry.target_note or "no target known"
    if entry.target_count is None and entry.target_note:  # its config was read and could not be counted: why
        return entry.target_note
    if entry.target_count is None:
        return (
            f"the config of its target {entry.target_label} is not shipped with the app and was not read for "
            "any draft here"
        )
    return f"the parameter count of its target {entry.target_label} is 0"


def _target_key(label: str | None) -> str | None:
    """A target's Hub id without its revision, for matching ("Qwen/X@388fa6b" and "Qwen/X" are one model);
    None for a local folder's name."""
    repo = (label or "").split("@", 1)[0].strip()
    return repo.lower() if repo.count("/") == 1 and not is_local_path(repo) else None


def same_target(a: str | None, b: str | None) -> bool:
    """Whether two targets as typed or labelled are one model ("Qwen/X@388fa6b" and "qwen/x" are)."""
    ka, kb = _target_key(a), _target_key(b)
    return ka is not None and ka == kb


def share_targets(entries: Sequence[Entry]) -> list[Entry]:
    """The entries, where a draft's target is known by name but not its size (a published draft's target whose
    config the app does not ship) taking the size read for another entry of the same target (your draft's, from
    the Hub): its draft/target ratio then says it, and ``target_size_from`` names the entry it was read for."""
    read: dict[str, Entry] = {}
    tried: dict[str, Entry] = {}  # read, and not countable (an architecture the counter does not know)
    # a target model pasted where a draft belongs, counted here and shown as the target (walk BK4: its published
    # draft beside it said its target's config "was not read for any draft here" under its 8,030,261,248 parameters)
    shown = {
        key: e
        for e in reversed(entries)
        if e.spec.role == "target"
        and e.spec.dialect != architectures.UNCOUNTED
        and e.count.total
        and (key := _target_key(e.label))
    }
    for e in entries:
        key = _target_key(e.target_label)
        if (
            e.spec.role == "draft"
            and key
            and ((e.target_count is not None and e.target_count.total) or e.target_stored)
        ):
            read.setdefault(key, e)
        elif e.spec.role == "draft" and key and e.target_count is None and e.target_note:
            tried.setdefault(key, e)
    out = []
    for e in entries:
        key = _target_key(e.target_label)
        unsized = key and e.spec.role == "draft" and e.target_count is None and not e.target_stored
        src = read.get(key) if unsized and key else None
        if src is None and unsized and key and key in shown:
            t = shown[key]
            sized = replace(e, target_count=t.count, target_size_from=f"read for {t.label}, shown as the target")
            out.append(_with_read_target(sized, _slim(t.spec)))
            continue
        if src is None:
            why = tried.get(key) if unsized and key and not e.target_note else None
            out.append(e if why is None else replace(e, target_note=why.target_note))  # why, not "type it"
            continue
        said = f"read for {src.label} ({src.target_label})"
        if src.target_count is None:  # its checkpoint's total: where it came from, as the entry it was read for
            said = f"{said}: {src.target_size_from}"
        sized = replace(
            e,
            target_count=src.target_count,
            target_stored=src.target_stored,
            target_arch=src.target_arch,
            target_size_from=said,
            target_note=src.target_note if src.target_count is None else e.target_note,
        )
        out.append(_with_read_target(sized, src.lint_args.get("target")))
    return out


def _with_read_target(entry: Entry, target: object) -> Entry:
    """``entry`` with its serving rows and wiring lint made on ``target``, the target config read for another entry
    (the same target) when it had none: a registry draft's target known by name and sizes only got "no verdict"
    beside a draft the rows served on that very config (walk AL). Unchanged when it has rows, or no config was read."""
    if entry.serving or entry.serving_args or not isinstance(target, ModelSpec):
        return entry
    args = _serving_args(entry.spec, target, entry.published, None, None)
    if not args:
        return entry
    if _shapes(entry.checkpoint):
        args["checkpoint_shapes"] = _shapes(entry.checkpoint)
    lint_args = {**entry.lint_args, "target_family": args["target_arch"]}
    pair = [engines.parse_choice(entry.engine)] if entry.engine else None
    return replace(
        entry,
        serving_args=args,
        lint_args=lint_args,
        findings=lint.lint(entry.spec, **lint_args, serving=pair),
        serving=_verdicts(entry.spec, lint_args, args, entry.engine),
        target_family=entry.target_family or engines.family_of(target.dialect),
    )


# ---------------------------------------------------------------------------------------------
# Tables


def entry_json(entry: Entry) -> dict[str, Any]:
    """The ``params --json`` object: stable keys documented in README."""
    c = entry.count
    ck = entry.checkpoint
    return {
        "source": entry.source,
        "label": entry.label,
        "architecture": entry.spec.architecture,
        "dialect": entry.spec.dialect,
        "role": entry.spec.role,
        "revision": entry.revision,
        "commit_sha": entry.commit_sha,
        "params": {
            "total": c.total,
            "excluding_embedding": c.excluding_embedding,
            "embedding": c.embedding,
            "lm_head": c.lm_head,
            "trainable": c.trainable,
            "frozen": c.frozen,
            "active": c.active,
            "mtp": c.mtp,
            "vision": c.vision,
            "buffers": c.buffers,
            "stored": stored_count(entry),  # the header's when one was read: Compare's figure
            "lm_head_tied": c.lm_head_tied,
        },
        "memory_bytes": dict(entry.memory),
        "memory_counts": memory_basis(entry),
        "components": [
            {
                "name": comp.name,
                "params": comp.params,
                "trainable": comp.trainable,
                "tied_to": comp.tied_to,
                "note": comp.note,
                "tensors": [
                    {
                        "name": t.name,
                        "shape": list(t.shape),
                        "trainable": t.trainable,
                        "buffer": t.is_buffer,
                        "stored": t.stored,
                    }
                    for t in comp.tensors
                ],
            }
            for comp in entry.components
        ],
        "checkpoint": None
        if ck is None
        else {
            "param_elements": ck.param_elements,
            "buffer_elements": ck.buffer_elements,
            "missing": [{"name": n, "why": why} for n, why in ck.missing],
            "unexpected": [{"name": n, "why": why} for n, why in ck.unexpected],
            "shape_mismatches": [
                {"name": n, "config": list(a), "checkpoint": list(b)} for n, a, b in ck.shape_mismatches
            ],
            "matches_config": ck.matches_config,
            "notes": list(ck.notes),
        },
        "counts_from": counts_basis(entry)[0],
        "counts_estimated": counts_basis(entry)[1],
        "target": entry.target_label,
        "target_from": entry.target_from or None,
        "target_note": entry.target_note,
        "target_size_from": entry.target_size_from,
        "draft_to_target_ratio": entry.ratio,
        "draft_to_target_active_ratio": entry.ratio_active,
        "lint": [
            {"severity": f.severity, "code": f.code, "message": f.message, "harmless": f.harmless}
            for f in lint.rank(entry.findings)
        ],
        "serving": [v.to_json() for v in entry.serving],
        "target_notice": _notice_json(entry),
    }


def memory_basis(entry: Entry) -> str:
    """What ``entry.memory`` counts (``params.memory_table``), said with the number it leaves out or keeps: a
    draft's weights shared with the target (its frozen embedding) are resident with the target and not counted
    again; a draft that keeps its own embedding counts it."""
    if entry.spec.role != "draft":
        return "the whole model's weights"
    shared: dict[str, int] = {}
    own_embedding = 0
    for t in entry.spec.tensors:
        if t.is_buffer:
            continue
        if t.shared_with_target:
            shared[t.component] = shared.get(t.component, 0) + t.numel
        elif t.component == "embedding":
            own_embedding += t.numel
    words = {"embedding": "the frozen embedding", "lm_head": "the lm_head"}
    said = [f"{words.get(c, 'the ' + c)}, {n:,} parameters" for c, n in shared.items()]
    notes = [f"not counted: {' and '.join(said)}, shared with the target and resident with it"] if said else []
    if own_embedding:
        notes.append(f"counted: its own embedding, {own_embedding:,} parameters, not shared with the target")
    if entry.count.lm_head_tied:
        notes.append("its tied lm_head is the embedding's storage")
    return "the draft's weights to load beside the target" + (f" ({'; '.join(notes)})" if notes else "")


def _notice_json(entry: Entry) -> dict[str, Any] | None:
    """What Overview and Compare say of a target model pasted as a draft, for scripts: null for a draft."""
    notice = target_notice(entry)
    if notice is None:
        return None
    drafts, native = split_native(notice.hub_id, notice.drafts)
    own = bool(native) or own_mtp(entry)  # a registry entry for its MTP layers, or its config counts them
    return {"hub_id": notice.hub_id, "drafts": drafts, "native_mtp": own, "note": role_note(entry)}


def role_note(entry: Entry) -> str | None:
    """One line for the CLI when a source is a target model, not a draft (None for a draft).

    The facts are Overview's and Compare's (``draft.target_notice``); only the action is the CLI's own.
    """
    notice = target_notice(entry)
    if notice is None:
        return None
    drafts = drafts_text(notice.hub_id, notice.drafts, own_mtp=own_mtp(entry))
    as_target = notice.hub_id or entry.source
    counts = "its counts are a target's"
    if entry.spec.dialect == architectures.UNCOUNTED:  # walk BL6: a full model the counter has no rules for
        counts = (
            "its counts are what its checkpoint stores (the parameter counter has no rules for its architecture)"
            if entry.count.total
            else "its size is not known here (the parameter counter has no rules for its architecture, and its "
            "checkpoint's headers were not read)"
        )
    return (
        f"{notice.hub_id or entry.label} is a target model ({notice.architecture}, {notice.layers} layers), "
        f"not a draft: {counts}, with no trainable split, draft-to-target ratio or wiring lint. "
        f"{drafts} Use it as the target: python -m comparelib params YOUR_DRAFT --target {as_target}"
        + "".join(f" ({n[0].upper()}{n[1:]}.)" for n in entry.spec.notes if n.startswith(SHIPPED_NOTE))
    )


def use_as_target(sources: Sequence[str], entry: Entry, loadable: Collection[str] = ()) -> tuple[list[str], str]:
    """Overview's "use it as the target" on Compare: (the sources without ``entry``, the target to type).

    ``entry`` is a target model pasted as a draft. The published drafts known for it (``draft.target_notice``)
    that can be read offline (``loadable``: registry ids with a config) join the comparison; the target is its
    hub id, else the source as pasted (a local folder).
    """
    notice = target_notice(entry)
    if notice is None:
        raise InputError(f"{entry.label} is a draft, not a target model")
    kept = [s for s in sources if s != entry.source]
    published, _ = split_native(notice.hub_id, notice.drafts)  # its own MTP layers are the target itself
    added = [registry_source(d) for d in published if d in loadable and registry_source(d) not in kept]
    return kept + added, notice.hub_id or entry.source


TABLE_COLUMNS: tuple[str, ...] = (
    "draft",
    "architecture",
    "dialect",
    "revision",
    *params.HEADLINE,
    "vocab",
    "draft_vocab",
    "bf16_GiB",
    "target",
    "draft_to_target",
    "train_samples",
    "train_tokens",
    "train_source",
    "attached_volume",
    "lint_errors",
    "lint_warnings",
    "draft_to_active",
    "counts_from",  # what the counts come from: "estimated from a SpecForge template config ..." has no stored
    "target_size_from",  # where the target's size came from, or why draft_to_target is blank
    "role",  # last: the columns before it keep their places in CSV exports
)


def volumes_by_draft(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The latest training volume stored for each draft name (store.data_volumes() rows).

    A measured or typed-in volume always wins over the built-in example's, whenever it was stored.
    """
    out: dict[str, dict[str, Any]] = {}
    per_source: dict[str, dict[str, dict[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: (r.get("kind") != "example", r.get("id") or 0)):
        out[str(row["draft"])] = dict(row)
        per_source.setdefault(str(row["draft"]), {})[str(row.get("source") or "")] = dict(row)
    for draft, row in out.items():  # every source's latest volume, newest last, for the "attached" column
        row["by_source"] = sorted(per_source[draft].values(), key=lambda r: r.get("id") or 0)
    return out


def volumes_by_label(
    entries: Sequence[Entry], volumes: Mapping[str, Mapping[str, Any]]
) -> dict[str, Mapping[str, Any]]:
    """``volumes`` (by the draft name an audit was attached under) keyed also by each entry's label: a Hub draft's
    label names its commit ("acme/d@8f13534") where the page attaches under its repo id (walk AX: the CLI's
    ``compare`` left the attached 20,000 samples out where the page's export gave them)."""
    from comparelib.models.draft import OwnDraft

    out = dict(volumes)
    for e in entries:
        name = OwnDraft(source=e.source).name if e.source else ""
        if e.label not in out and name in volumes:
            out[e.label] = volumes[name]
    return out


def _attached_text(row: Mapping[str, Any]) -> str:
    """One attached volume as a line: figures, kind and source, who and when."""
    parts = [f"{row['samples']:,} samples" if isinstance(row.get("samples"), int) else "? samples"]
    if isinstance(row.get("tokens"), int):
        parts.append(f"{row['tokens']:,} tokens")
    text = ", ".join(parts) + f" ({row.get('kind') or 'measured'}: {row.get('source') or 'dataset audit'}"
    if row.get("attached_by"):
        text += f", by {row['attached_by']}"
    when = row.get("created_at")
    if when is not None:
        text += f", {when:%Y-%m-%d}" if hasattr(when, "strftime") else f", {when}"
    return text + ")"


def volume_basis(p: registry.PublishedDraft) -> str:
    """Where a registry draft's ``train_samples`` (else ``train_tokens``) comes from, as the registry's text for it
    says: "published" where the card states it; else what it is, so an export does not call a figure read from a
    dataset's name published (walk AN: "~1M (dataset name)" became 1,000,000 "published")."""
    text = (p.train_samples_text if p.train_samples is not None else p.train_tokens_text) or ""
    low = text.lower()
    if "dataset name" in low:
        named = next((d.split()[0] for d in p.datasets if d.split() and "/" in d.split()[0]), "")
        return "approximate: from the dataset's name" + (f" ({named})" if named else "")
    if "~" in text or "approx" in low:
        return f'approximate: "{text}" as published'
    if "unverified" in low or "not read" in low:
        return f'unverified: "{text}"'
    return "published"


def volume_doubt(p: registry.PublishedDraft) -> str:
    """What a sentence resting on ``p``'s training volume must say of it: "" where it is the card's own figure
    (``volume_basis`` "published", or approximate as the card states it); else a few words, "a template figure,
    unverified" (walk AT: a headline's "largest gap is training data" rested on "1.4M (template, unverified)"
    called published), "unverified", "read from its dataset's name, not stated"."""
    basis = volume_basis(p)
    if basis == "published" or basis.startswith('approximate: "'):
        return ""
    if basis.startswith("approximate: from the dataset"):
        return "read from its dataset's name, not stated"
    text = (p.train_samples_text if p.train_samples is not None else p.train_tokens_text) or ""
    return "a template figure, unverified" if "template" in text.lower() else "unverified"


def volume_doubt_of(hub_id: str) -> str:
    """``volume_doubt`` of the registry's draft ``hub_id``; "" where the registry has no such draft."""
    try:
        return volume_doubt(registry.get_draft(hub_id))
    except CompareError:
        return ""


def _volume(
    entry: Entry, volumes: Mapping[str, Mapping[str, Any]], typed: Mapping[str, float] | None = None
) -> tuple[int | None, int | None, str | None, str | None]:
    """(samples, tokens, source, attached): the volume in use and where it came from, and every volume attached to
    the draft (each source's latest, the one in use included). A published draft keeps its published figure, the
    attached ones shown beside it; any other draft uses the samples typed in for it where they are the volume in use
    (``typed``: the sidebar's, walk AC), else the latest attached one (walk AB: your draft's export read
    "measured: ..." with ``attached_volume`` empty while the sidebar said the audit was attached)."""
    own = volumes.get(entry.label)
    p = entry.published
    attached = "; ".join(_attached_text(r) for r in own.get("by_source") or [own]) if own is not None else None
    if p is not None and (p.train_samples or p.train_tokens) and entry.label == p.hub_id:
        return p.train_samples, p.train_tokens, volume_basis(p), attached
    if typed and typed.get(entry.label):
        return int(typed[entry.label]), None, "typed in", attached
    if own is not None:
        kind = own.get("kind") or "measured"
        return own.get("samples"), own.get("tokens"), f"{kind}: {own.get('source') or 'dataset audit'}", attached
    if p is not None and (p.train_samples or p.train_tokens):
        return p.train_samples, p.train_tokens, volume_basis(p), None
    return None, None, None, None


def table(
    entries: Sequence[Entry],
    volumes: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    typed: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """The side-by-side table; integers stay integers so exports are exact.

    ``volumes`` maps a draft's label to a stored training volume (from a dataset audit or typed in);
    published drafts fall back to the volume their card reports. A volume attached under a published
    draft's own name never replaces its published figure: it is shown beside it. ``typed`` maps a draft's label to
    the samples typed in for it where they are the volume in use (the sidebar's draft: ``OwnDraft.training_samples``
    says "typed in"). ``train_samples`` / ``train_tokens`` are the volume in use and ``train_source`` where it came
    from ("published", or what the registry's figure is: "approximate: ..."; "typed in"; or the kind and source of
    the attached volume); ``attached_volume`` lists every
    volume attached to the draft, used or not.
    """
    import pandas as pd

    rows = []
    for e in entries:
        c = e.count
        samples, tokens, vol_source, attached = _volume(e, volumes or {}, typed)
        # A target model pasted where a draft belongs keeps its counts, as a target's: nothing of it is a draft's
        # trainable part, it has no target to be a fraction of, and lint (a draft's wiring) did not run on it.
        draft = e.spec.role == "draft"
        rows.append(
            {
                "draft": e.label,
                "architecture": e.spec.architecture,
                "dialect": e.spec.dialect,
                "revision": (e.commit_sha or e.revision or "")[:12] or None,
                "total": c.total,
                "excluding_embedding": c.excluding_embedding,
                "embedding": c.embedding,
                "lm_head": c.lm_head,
                "trainable": c.trainable if draft else None,
                "frozen": c.frozen if draft else None,
                "stored": stored_count(e),
                "active": c.active,
                "vocab": e.spec.vocab_size,
                "draft_vocab": e.spec.draft_vocab_size,
                "bf16_GiB": round(e.memory.get("bf16", 0) / 2**30, 3),
                "target": e.target_label if draft else None,
                "draft_to_target": None if e.ratio is None or not draft else round(e.ratio, 5),
                "draft_to_active": None if e.ratio_active is None or not draft else round(e.ratio_active, 5),
                "train_samples": samples,
                "train_tokens": tokens,
                "train_source": vol_source,
                "attached_volume": attached,
                "lint_errors": sum(f.severity == "error" for f in e.findings) if draft else None,
                # warnings to act on; the known-harmless ones (lint.HARMLESS_CODES) are not counted
                "lint_warnings": sum(f.severity == "warning" and not f.harmless for f in lint.rank(e.findings))
                if draft
                else None,
                "counts_from": counts_basis(e)[0],
                "target_size_from": (e.target_size_from if e.ratio is not None else no_ratio_reason(e))
                if draft
                else None,
                "role": e.spec.role,
            }
        )
    df = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    nullable = ("trainable", "frozen", "stored", "active", "draft_vocab", "train_samples", "train_tokens")
    for col in (*nullable, "lint_errors", "lint_warnings"):
        df[col] = df[col].astype("Int64")
    return df


def display_names(entries: Sequence[Entry]) -> list[str]:
    """One distinct name per entry for chart axes and legends.

    Labels repeat when two folders share a name (``run1/checkpoint``, ``run2/checkpoint``) or one repo
    is pasted at two revisions; those get the source as pasted, and a number if even that repeats.
    """
    labels = [e.label for e in entries]
    names = [e.label if labels.count(e.label) == 1 else e.source for e in entries]
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if names.count(name) == 1 else f"{name} ({seen[name]})")
    return out


def components_frame(entries: Sequence[Entry]) -> pd.DataFrame:
    """Long format for the stacked component chart (drafts under their distinct display names)."""
    import pandas as pd

    names = display_names(entries)
    rows = [
        {
            "draft": name,
            "component": comp.name,
            "params": comp.params,
            "trainable": {True: "trainable", False: "frozen", None: "mixed"}[comp.trainable],
        }
        for e, name in zip(entries, names, strict=False)
        for comp in e.components
        if comp.name != "buffer"
    ]
    return pd.DataFrame(rows, columns=["draft", "component", "params", "trainable"])


def tensors_frame(entry: Entry) -> pd.DataFrame:
    """The config's tensors, with a tied lm_head's flags as its component has them (the embedding's, not stored)."""
    import pandas as pd

    tied = {t.name: t for comp in entry.components if comp.tied_to for t in comp.tensors}
    rows = [
        {
            "tensor": t.name,
            "shape": " x ".join(str(s) for s in t.shape),
            "params": t.numel,
            "component": t.component,
            "trainable": t.trainable,
            "buffer": t.is_buffer,
            "stored": t.stored,
        }
        for t in (tied.get(x.name, x) for x in entry.spec.tensors)
    ]
    return pd.DataFrame(rows, columns=["tensor", "shape", "params", "component", "trainable", "buffer", "stored"])


def findings_frame(
    entries: Sequence[Entry], *, harmless: bool | None = None, engines: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Findings of every entry, ranked (errors first, known-harmless last); ``harmless`` filters to one group.
    ``engines``: the engine each entry (by label) is served with, whose findings come before other engines'."""
    import pandas as pd

    rows = [
        {"draft": e.label, "severity": f.severity, "code": f.code, "message": f.message, "harmless": f.harmless}
        for e in entries
        for group in lint_groups(e, (engines or {}).get(e.label))
        for f in group
        if harmless is None or f.harmless == harmless
    ]
    return pd.DataFrame(rows, columns=["draft", "severity", "code", "message", "harmless"])


def lint_groups(entry: Entry, engine: str | None = None) -> tuple[list[lint.Finding], list[lint.Finding]]:
    """(the findings to read, ranked; the known-harmless ones, ``lint.harmless_title``'s group): how Compare and
    ``params`` show one draft's lint. ``engine``: the one it is served with, whose findings lead."""
    ranked = lint.rank(entry.findings, engine)
    return [f for f in ranked if not f.harmless], [f for f in ranked if f.harmless]


def lint_headlines(entries: Sequence[Entry]) -> list[str]:
    """One sentence per draft saying what to act on first."""
    return [
        f"{e.label}: {lint_headline(e, _harmless_where(e), rows_where=_rows_where(e))}"
        for e in entries
        if e.spec.role == "draft"
    ]


def _rows_where(entry: Entry) -> str:
    """Where a text export's reader finds the Will-it-serve rows and their change: ``params`` prints them."""
    return f"`python -m comparelib params {entry.source}` says the change"


def lint_headline(
    entry: Entry,
    harmless_where: str = "collapsed below",
    engine: tuple[str, str] | None = None,
    rows_where: str = "Will it serve? below says the change",
) -> str:
    """The lint's headline for one draft (``lint.headline``): an all-clear names the engine rows the lint checked
    (``entry.engine``'s, else the newest of each engine) and any Will-it-serve row outside them that needs a change
    (vLLM 0.33.0's non-default V1 runner, an older version); ``engine`` (the engine the user serves with, how we
    know) leads with what matters for it."""
    covers = lint.covered_rows([engines.parse_choice(entry.engine)] if entry.engine else None)
    outside: list[serving_model.Verdict] = []
    if entry.serving and entry.serving_args:
        adv = serving_model.advice(**entry.serving_args)
        outside = [v for v in entry.serving if v.label not in covers and serving_model.change_for(v, adv)]
    return lint.headline(
        entry.findings, harmless_where, covers=covers, outside=outside, engine=engine, rows_where=rows_where
    )


def served_engine(entry: Entry, runs: Sequence[Any]) -> tuple[str, str] | None:
    """(the engine the user's runs served this draft with, how we know: "your runs #3, #4"), when every finished
    speculative run of it (its ``draft_model`` names the draft) was served by one engine; else None."""
    from comparelib.models.draft import draft_match

    if entry.spec.role != "draft":
        return None
    name = entry.source[len(REGISTRY_PREFIX) :] if entry.source.startswith(REGISTRY_PREFIX) else entry.source
    served = [r for r in runs if _run_served(r) and draft_match(getattr(r, "draft_model", None), name)]
    names = {str(getattr(r, "engine", "")).strip().lower() for r in served}
    label = {"sglang": "SGLang", "vllm": "vLLM"}.get(names.pop()) if len(names) == 1 else None
    if label is None:  # several engines, or one the rules do not model (an OpenAI-compatible server): not known
        return None
    ids = ", ".join(f"#{r.id}" for r in served)
    return label, f"the engine your run{'s' if len(served) > 1 else ''} {ids} served this draft with"


def _harmless_where(entry: Entry) -> str:
    """Where a text export's reader finds the known-harmless notes: ``params`` prints every finding."""
    return f"listed by `python -m comparelib params {entry.source}`"


def lm_rows(spec: Any) -> tuple[int | None, int | None]:
    """The lm_head's (rows, hidden) from the spec's tensors; (None, None) where none is listed."""
    for t in spec.tensors:
        if t.component == "lm_head" and len(t.shape) == 2:
            return int(t.shape[0]), int(t.shape[1])
    return None, None


def heads_differ(own: Entry, ref: Entry, own_name: str, ref_name: str) -> str:
    """How the two lm_heads differ, in words; "" where they are alike: one rule for Overview's size line and
    Compare's difference sentence. Walk AL: an EAGLE-3 draft against the EAGLE-1 reference, both over 32,000 tokens,
    read "another draft vocabulary" (Overview) and "an output layer over 32,000 tokens against 32,000" (Compare);
    the reference has no lm_head of its own (EAGLE-1/2 uses the target's)."""
    a, b = own.count, ref.count
    if a.lm_head == b.lm_head:
        return ""
    for entry, name in ((ref, ref_name), (own, own_name)):
        if entry.count.lm_head_tied:
            return f"{name}'s lm_head is tied to the embedding (tie_word_embeddings): no head of its own"
        if not entry.count.lm_head:
            user = "an EAGLE-1/2 draft" if entry.spec.dialect == "eagle1" else "it"
            return f"{name} has no lm_head of its own: {user} uses the target's"
    a_rows, a_hidden = lm_rows(own.spec)
    b_rows, b_hidden = lm_rows(ref.spec)
    if a_rows and b_rows and a_rows != b_rows:
        return f"another draft vocabulary: {a_rows:,} rows against {b_rows:,}"
    if a_rows and b_rows and a_hidden and b_hidden:
        return f"heads of another width: {a_rows:,} x {a_hidden:,} against {b_rows:,} x {b_hidden:,}"
    return f"an lm_head of {a.lm_head:,} parameters against {b.lm_head:,}"


def difference_sentence(a: Entry, b: Entry) -> str | None:
    """Name the component that explains most of the size gap between two drafts."""
    gap = a.count.excluding_embedding - b.count.excluding_embedding
    if gap == 0:
        return None
    big, small = (a, b) if gap > 0 else (b, a)
    by_name_big = {comp.name: comp.params for comp in big.components if comp.name not in ("embedding", "buffer")}
    by_name_small = {comp.name: comp.params for comp in small.components if comp.name not in ("embedding", "buffer")}
    diffs = {n: by_name_big.get(n, 0) - by_name_small.get(n, 0) for n in set(by_name_big) | set(by_name_small)}
    name, diff = max(diffs.items(), key=lambda kv: kv[1])
    share = diff / abs(gap)
    fewer = {n: -d for n, d in diffs.items() if d < 0}
    if fewer:  # components going both ways: "287% of the gap" (walk Q) said nothing; each side's change does
        less = "; ".join(f"{d:,} fewer in the {n}" for n, d in sorted(fewer.items(), key=lambda kv: -kv[1]))
        sentence = (
            f"{big.label} has {abs(gap):,} more parameters than {small.label} outside the embedding: "
            f"{diff:,} more in the {name}, {less}"
        )
        name = ""  # the lm_head words below explain a larger head, not a mix
    else:
        sentence = (
            f"{big.label} has {abs(gap):,} more parameters than {small.label} outside the embedding; "
            f"{diff:,} of them ({percent(share, 0)}) are in the {name}"
        )
    if name == "lm_head":  # what differs in the heads, as Overview says it: none of its own, tied, rows, width
        sentence += f" ({heads_differ(big, small, big.label, small.label)})"
    sentence += "."
    for e in (big, small):  # a template's count beside a read one: said, not taken as the draft's
        basis, estimated = counts_basis(e)
        if estimated:
            sentence += f" {e.label}'s counts are {basis}."
    emb = max(a.count.embedding, b.count.embedding)
    if emb:
        sentence += (
            f" Counting the frozen embedding shared with the target ({emb:,} parameters) makes both look "
            f"{emb / 1e9:.2f}B larger without any of it being trained."
        )
    return sentence


def _same_family(a: Entry, b: Entry) -> bool:
    return a.spec.hidden_size == b.spec.hidden_size and a.spec.vocab_size == b.spec.vocab_size


def headlines(entries: Sequence[Entry]) -> list[str]:
    """The sentences that answer "why is ours bigger": each own draft against a published one of its shape."""
    pairs: list[tuple[Entry, Entry]] = []
    entries = [e for e in entries if e.spec.role == "draft"]  # a target pasted among drafts is no draft to size
    published = [e for e in entries if e.kind == "registry"]
    for own in (e for e in entries if e.kind != "registry"):
        # a published draft for your draft's own target first (walk AR: a Kimi-K2.6 draft was sized against the
        # Kimi-K2-Instruct one, listed first, beside the one for its target)
        match = next((r for r in published if _same_family(own, r) and _same_target(own, r)), None)
        match = match or next((r for r in published if _same_family(own, r)), None)
        match = match or next((x for x in entries if x is not own and _same_family(own, x)), None)
        if match is not None:
            pairs.append((own, match))
    if not pairs:
        for i, a in enumerate(entries):
            b = next(
                (
                    b
                    for b in entries[i + 1 :]
                    if _same_family(a, b) and a.count.excluding_embedding != b.count.excluding_embedding
                ),
                None,
            )
            if b is not None:
                pairs.append((a, b))
                break
    out = []
    for a, b in pairs:
        sentence = difference_sentence(a, b)
        if sentence and trained_for(a) and trained_for(b) and not _same_target(a, b):
            sentence += (
                f" They are drafts trained for different targets ({a.label} for {trained_for(a)}, {b.label} for "
                f"{trained_for(b)}): the same hidden size and vocabulary, not the same target."
            )
        if sentence and sentence not in out:
            out.append(sentence)
    return out


def trained_for(e: Entry) -> str | None:
    """The target a draft was trained for: the one it names (config, published entry, card), not one typed in a
    target field, which it is only checked against (walk BS 3: "wbs-oss20b-eagle3 for meta-llama/Llama-3.1-8B-Instruct"
    of a draft whose config names openai/gpt-oss-20b)."""
    if e.target_from == "given" and (named := e.lint_args.get("trained_for")):
        return str(named[0])
    return e.target_label  # where the draft names none, the target given is all that is known (walk AR)


def _same_target(a: Entry, b: Entry) -> bool:
    """Whether two drafts are for one target (a quantised checkpoint of it counts as it: ``draft.same_target``)."""
    from comparelib.models.draft import same_target

    ta, tb = trained_for(a), trained_for(b)
    return bool(ta and tb and same_target(ta, tb))


def load_entries(sources: Sequence[str], **kwargs: Any) -> tuple[list[Entry], list[tuple[str, str]]]:
    """Load many; errors are collected per source so one bad URL doesn't hide the rest."""
    entries: list[Entry] = []
    errors: list[tuple[str, str]] = []
    for src in sources:
        try:
            entries.append(load_entry(src, **kwargs))
        except CompareError as exc:
            errors.append((src, str(exc)))
    return entries, errors
