"""The Overview page's answer: how a draft differs from a published one in size, training data,
acceptance and live speed, and which of those gaps is the largest. Figures and sentences, no widgets.

Sizes come from ``comparison.load_entry`` (the same counts the Compare page shows), acceptance from
the registry's published points (``scaling``), live speed from a run group (``speedup``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from comparelib.analysis import speedup, traininglogs
from comparelib.errors import CompareError
from comparelib.models import architectures, engines, registry
from comparelib.models.registry import run_setting, steps_of
from comparelib.values import bench_label, human, model_id, number, prompts_apart, run_param, times

if TYPE_CHECKING:  # the answer is computed without pandas: the first page shows it before pandas loads
    import pandas as pd
from comparelib.models.comparison import Entry, volume_doubt
from comparelib.models.comparison import heads_differ as _heads_differ
from comparelib.models.comparison import lm_rows as _lm_rows
from comparelib.models.draft import (
    TargetNotice,
    checkpoint_words,
    runs_for_target,
    runs_of_draft,
    same_target,
    target_from_runs,
    target_notice,
)


def reference_choices() -> list[str]:
    """Registry drafts whose config can be counted on its own (Medusa-1 configs need their base model's:
    not offered as a reference)."""
    ids = []
    for d in registry.load_registry():
        if not d.config:
            continue
        try:
            architectures.parse_config(d.config, d.hub_id)
        except CompareError:
            continue
        ids.append(d.hub_id)
    return ids


@dataclass(frozen=True)
class Reference:
    """The published draft Overview compares yours with first, and why that one (a sentence)."""

    hub_id: str
    why: str
    # for the plan's words: "side" (measured beside yours), "group" (measured in your group at another setting),
    # else "" (chosen from the registry)
    basis: str = ""


def draft_shape(entry: Entry | None) -> tuple[int, int] | None:
    """(hidden size, vocabulary size) of a draft's config, what a published draft of the same architecture shares
    (an EAGLE-3 draft's vocab_size is its target's); None when its config is not read or does not say."""
    if entry is None:
        return None
    hidden, vocab = entry.spec.hidden_size, entry.spec.vocab_size
    return (int(hidden), int(vocab)) if hidden and vocab else None


def same_shape_reference(entry: Entry | None) -> Reference | None:
    """The published draft of ``entry``'s hidden size and vocabulary (``_same_shape``), None when none has them:
    the reference Overview shows a draft that names no target, which the plan aims at too."""
    chosen = _same_shape(draft_shape(entry), entry.label if entry is not None else None, registry.load_registry())
    return chosen if chosen.basis == "shape" else None


def _config_shape(d: registry.PublishedDraft) -> tuple[int, int] | None:
    """(hidden_size, vocab_size) of a published draft's registry config, None without one."""
    config = d.config or {}
    hidden, vocab = config.get("hidden_size"), config.get("vocab_size")
    return (hidden, vocab) if isinstance(hidden, int) and isinstance(vocab, int) else None


SET_TARGET = (
    "set your draft's target in Compare drafts' target field (or benchmark it, so its runs name the model they "
    "were served with)"
)


def _same_shape(
    own_shape: tuple[int, int] | None, own_repo: str | None, drafts: Sequence[registry.PublishedDraft]
) -> Reference:
    """With no target known: a published draft whose config has your draft's hidden size and vocabulary (of the
    same architecture's targets), one that publishes an acceptance first, then a published config, the most
    samples; else the Kimi-K2 default, said to be another architecture's. Walk P: a local Llama-3 checkpoint
    (hidden 4,096, vocabulary 128,256) was compared with the Kimi-K2 draft (hidden 7,168) and "the largest gap is
    size" was headlined."""
    from comparelib.models.registry import KIMI_REFERENCE

    own = _own_id(own_repo)
    if own_shape is None:
        return Reference(
            KIMI_REFERENCE, f"Your draft's target is not known, so the default reference is shown; {SET_TARGET}."
        )
    hidden, vocab = own_shape
    alike = [
        d
        for d in drafts
        if d.hub_id.lower() != own and d.hub_id.lower() != d.target_model.lower() and _config_shape(d) == own_shape
    ]
    if not alike:
        return Reference(
            KIMI_REFERENCE,
            f"Your draft's target is not known, and no published draft has its hidden size and vocabulary "
            f"({hidden:,} and {vocab:,}), so the default reference is shown, a draft of another architecture; "
            f"{SET_TARGET}.",
        )
    countable = set(reference_choices())
    with_accept = _with_acceptance()
    order = {d.hub_id: i for i, d in enumerate(drafts)}
    pick = min(
        alike,
        key=lambda d: (
            d.hub_id not in with_accept,
            d.config_confidence.lower().startswith("low"),
            -(d.train_samples or 0),
            d.hub_id not in countable,
            order[d.hub_id],
        ),
    )
    return Reference(
        pick.hub_id,
        f"Chosen for the same hidden size and vocabulary as your draft ({hidden:,} and {vocab:,}); no target "
        f"named: {pick.hub_id} is a draft for {pick.target_model}. To compare with a draft for your own target, "
        f"{SET_TARGET}.",
        basis="shape",
    )


NO_CONFIG = " The registry has no config for it, so its size is not known; training data and acceptance compare."
"""Said of a suggested reference without a shipped config; ``summary.reference_why`` rewords it once its Hub
config was read (walk AN)."""


def default_reference(
    choices: Sequence[str],
    own_repo: str | None,
    own_target: str | None,
    runs: Sequence[Any] = (),
    own_shape: tuple[int, int] | None = None,
) -> Reference:
    """A draft for your target is the fair first comparison: the same target's data and acceptance. The
    Kimi-K2 draft stays the default for any Kimi (moonshotai) target, the app's own story, and wherever the
    registry has no draft for your target that states a countable config, its training volume or an acceptance
    length, and none was measured in your run group; otherwise, of the drafts for your target: one measured side by
    side with yours in ``runs`` (your run group: ``side_by_side``), then one measured there at another setting,
    then one that publishes an acceptance length (as ``nearest_in_family`` prefers for another target of the
    family), then the one trained on the most samples (a config, then registry order break ties). Never your own
    draft, when it is published itself.

    A Qwen3-8B draft was compared with Tengyunw/qwen3_8b_eagle3 (a volume, no acceptance) while RedHatAI's draft
    for the same target had been measured beside it in the same group and only "left out".

    The same-target drafts are taken from the whole registry, not from ``choices`` (Overview offers drafts with a
    config, Acceptance vs data drafts with results): both pages add the pick to their options, so they preselect
    the same reference (the plan's target AL reads it too: ``plan.published_target``). Without a config its size
    is not known; its data and acceptance still compare.

    With no target known, ``own_shape`` (your draft's hidden size and vocabulary, ``draft_shape``) picks a published
    draft of the same shape (``_same_shape``), said so; without one, the Kimi-K2 default, said to be another
    architecture's."""
    from comparelib.models.registry import KIMI_REFERENCE, family_of

    drafts = registry.load_registry()
    by_id = {d.hub_id: d for d in drafts}
    own = _own_id(own_repo)
    fallback = KIMI_REFERENCE if KIMI_REFERENCE in choices else (choices[0] if choices else KIMI_REFERENCE)
    if not own_target:
        shaped = _same_shape(own_shape, own_repo, drafts)
        return shaped if shaped.basis else Reference(fallback, shaped.why)
    kimi_family = family_of(by_id[KIMI_REFERENCE].target_model) if KIMI_REFERENCE in by_id else "kimik2"
    kimi = family_of(own_target) == kimi_family
    kimi_why = f"Chosen as a published draft for a Kimi target, as yours is ({own_target})."
    if kimi and _is_example(own_repo):  # the built-in example's story: the Kimi-K2 draft
        return Reference(fallback, kimi_why)
    wanted = (model_id(own_target) or "").lower()  # "org/name@rev" is org/name: the registry has no revisions
    countable = set(reference_choices())
    side: dict[str, SideBySide] = {}  # hub id -> its first side-by-side pair in your group, like for like first
    for pair in side_by_side(runs, own_repo, own_target, qualified=True):
        if pair.draft not in side or (pair.like_for_like and not side[pair.draft].like_for_like):
            side[pair.draft] = pair
    in_group = _published_in_group(runs, own_repo, own_target)
    with_accept = _with_acceptance()
    same = [
        d
        for d in drafts
        if d.hub_id.lower() not in (own, wanted)  # nor the target's own MTP layers (its registry entry)
        and same_target(d.target_model, own_target)
        and (
            d.hub_id in countable
            or d.train_samples
            or d.train_tokens
            or d.hub_id in with_accept
            or d.hub_id in in_group
        )
    ]
    if not same:
        # a Kimi target with no published draft of its own (walk AE: K2.6 has two, and took this one); the Kimi-K2
        # draft itself pasted as yours is set against the nearest of its family instead, never against itself
        if kimi and fallback.lower() != own:
            return Reference(fallback, kimi_why)
        near = nearest_in_family(own_target, own_repo)
        if near is not None:
            return near
        # "other" only where one is known (walk BB: "No other published draft for zai-org/GLM-4.5-Air" where the
        # registry holds none for it at all)
        known = [d for d in drafts if d.hub_id.lower() != wanted and same_target(d.target_model, own_target)]
        if any(d.hub_id.lower() != own for d in known):
            why = (
                f"No other published draft for {own_target} states a config, its training volume or an acceptance "
                "length here, so the default reference is shown."
            )
        else:
            other = "other " if known else ""
            why = f"No {other}published draft for {own_target} is known here, so the default reference is shown."
        return Reference(fallback, why)
    order = {d.hub_id: i for i, d in enumerate(drafts)}
    pick = min(
        same,
        key=lambda d: (
            d.hub_id not in side,
            d.hub_id not in in_group,
            d.hub_id not in with_accept,
            -(d.train_samples or 0),
            d.hub_id not in countable,
            order[d.hub_id],
        ),
    )
    yours = f"your target ({own_target})"
    if pick.hub_id in side:
        p = side[pick.hub_id]
        why = (
            f"Chosen as the published draft for {yours} measured side by side with yours in "
            f"{_group_words(p.group)} (run #{p.theirs.id} against your #{p.yours.id}, {p.setting_words}"
            + (f", {p.qualifier}" if p.qualifier else "")
            + ")."
        )
    elif pick.hub_id in in_group:
        ids = ", ".join(f"#{r.id}" for r in in_group[pick.hub_id])
        why = (
            f"Chosen as the published draft for {yours} measured in your run group (run {ids}), though at no "
            "setting your draft ran."
        )
    elif pick.hub_id in with_accept:
        why = f"Chosen as the published draft for {yours} that publishes an acceptance length" + (
            " and was trained on the most samples." if pick.train_samples else "."
        )
    elif pick.train_samples:
        why = f"Chosen as the published draft for {yours} trained on the most samples."
    else:
        why = f"Chosen as a published draft for {yours}; none states its training samples."
    if checkpoint := checkpoint_words(pick.target_model, own_target):
        why += f" It is published for {checkpoint}."
    if pick.hub_id not in countable:
        why += NO_CONFIG
    basis = "side" if pick.hub_id in side else "group" if pick.hub_id in in_group else ""
    return Reference(pick.hub_id, why, basis)


def _is_example(own_repo: str | None) -> bool:
    """Whether ``own_repo`` names the built-in example draft (its source or its name)."""
    from comparelib.models.draft import DEFAULT

    return (own_repo or "").strip().lower() in {DEFAULT.source.lower(), DEFAULT.name.lower()}


def _with_acceptance() -> set[str]:
    """The registry drafts that publish an acceptance length (on any benchmark, at any setting)."""
    return {
        str(rec.get("hub_id")) for rec in registry.results_records() if number(rec.get("accept_length")) is not None
    }


def _group_words(group: str | None) -> str:
    return f"group {group}" if group else "your run group"


@dataclass(frozen=True)
class SideBySide:
    """A published draft for your target measured in your run group at a setting your draft also ran: the same
    engine, num_steps, topk, draft tokens and batch size, and no other benchmark parameter that differs."""

    draft: str  # the published draft's hub id
    group: str | None
    setting: str  # the setting key both ran (``registry.run_setting``)
    theirs: Any  # its run (the newest at that setting)
    yours: Any  # your draft's run (the newest at that setting)
    # False for a draft of the group that is not published (your v1 beside your v2): "measured side by side" is the
    # README's words for a published draft measured on your server; another of your drafts is named by its run
    published: bool = True
    # what both runs recorded and differ in besides the setting ("other prompts (random 256/128 against bundled)"):
    # said with the pair, never left out (walk AD: the lmsys import on random prompts beside the user's bundled run
    # read "at no setting your draft ran"); empty: like for like
    apart: tuple[str, ...] = ()
    other_prompts: bool = False  # the prompts are among ``apart``: their acceptances are an indicative gap
    # what one run did not record (``speedup.unrecorded_settings``: a bench_serving file has no temperature): said,
    # never taken as equal; None when both recorded the same parameters
    unrecorded: str | None = None

    @property
    def like_for_like(self) -> bool:
        """True when the two runs differ in nothing both recorded (the setting alike, and every other parameter)."""
        return not self.apart

    @property
    def qualifier(self) -> str:
        """ "on other prompts (random 256/128 against bundled)", "max_tokens 256 against 128", ...: how the pair is
        not like for like; "" when it is."""
        return ", ".join(("on " + a) if a.startswith("other prompts") else a for a in self.apart)

    @property
    def setting_words(self) -> str:
        """ "SGLang, num_steps 3, batch 1": the shared setting as people say it (a tree adds topk and draft tokens)."""
        r = self.theirs
        engine = str(getattr(r, "engine", None) or "unknown engine")
        parts = [engines.engine_word(engine)]
        parts.append(f"num_steps {r.num_steps}" if r.num_steps is not None else "num_steps not reported")
        if tree := speedup.tree_words(r):
            parts.append(tree)
        batch = _batch(r)
        if batch is not None:
            parts.append(f"batch {batch}")
        return ", ".join(parts)

    @property
    def sentence(self) -> str:
        """ "Measured side by side (group g, SGLang, num_steps 3, batch 1): org/draft 2.74 accept, 173.4 tok/s (#8)
        against yours 2.53, 160.4 tok/s (#4)"."""

        def acc(run: Any) -> str:
            al = _accept_of(run)
            return f"{al:.2f}" if al is not None else "acceptance not recorded"

        t, y = self.theirs, self.yours
        apart = f", {self.qualifier}" if self.qualifier else ""
        unsaid = f"; {self.unrecorded}" if self.unrecorded else ""
        if not self.published:  # walk V: "Measured side by side" of a lab's own unpublished draft
            return (
                f"Your other draft {self.draft}, measured in run #{t.id} at the setting of your run #{y.id} "
                f"({_group_words(self.group)}, {self.setting_words}){apart}: {acc(t)} accept, "
                f"{t.output_tokens_per_s:.1f} tok/s against yours {acc(y)}, {y.output_tokens_per_s:.1f} tok/s{unsaid}"
            )
        return (
            f"Measured side by side ({_group_words(self.group)}, {self.setting_words}){apart}: {self.draft} "
            f"{acc(t)} accept, {t.output_tokens_per_s:.1f} tok/s (#{t.id}) against yours {acc(y)}, "
            f"{y.output_tokens_per_s:.1f} tok/s (#{y.id}){unsaid}"
        )


def _own_id(own_repo: str | None) -> str:
    """Your draft's name as the registry's ids read it: lower case, without an @revision. The plan passes the
    draft's label ("AQ-MedAI/Kimi-K2.7-Code-eagle3@1799d63"), and walk AJ3's published draft, not known as itself,
    was the plan's reference while Overview compared it with another."""
    return (model_id(own_repo) or "").lower()


def _published_for(target: str, own_repo: str | None) -> list[str]:
    wanted, own = target.strip().lower(), _own_id(own_repo)
    return [
        d.hub_id
        for d in registry.load_registry()
        if same_target(d.target_model, target) and d.hub_id.lower() not in (own, wanted)
    ]


def _published_in_group(runs: Sequence[Any], own_repo: str | None, own_target: str | None) -> dict[str, list[Any]]:
    """Published drafts for ``own_target`` that ``runs`` (your run group) measured: hub id -> their runs."""
    from comparelib.models.draft import draft_match

    if not own_target or not own_repo or not runs:
        return {}
    others = runs_of_draft(runs_for_target(runs, own_target).kept, own_repo).left_out
    out: dict[str, list[Any]] = {}
    for hub in _published_for(own_target, own_repo):
        mine = [
            r
            for r in others
            if not registry.is_mtp(r) and r.output_tokens_per_s and draft_match(getattr(r, "draft_model", None), hub)
        ]
        if mine:
            out[hub] = mine
    return out


def _unpublished_in_group(runs: Sequence[Any], own_repo: str | None, own_target: str | None) -> dict[str, list[Any]]:
    """Drafts that are neither yours nor published (a team's v1 beside its v2) that ``runs`` measured: the name
    their first run gives -> their runs, in the order they were first run."""
    from comparelib.models.draft import draft_match

    if not own_repo or not runs:
        return {}
    others = runs_of_draft(runs_for_target(runs, own_target).kept, own_repo).left_out
    published = [d.hub_id for d in registry.load_registry()]
    out: dict[str, list[Any]] = {}
    for r in sorted(others, key=lambda r: r.id):
        name = str(getattr(r, "draft_model", None) or "").strip()
        if registry.is_mtp(r) or not name or not r.output_tokens_per_s:
            continue
        if any(draft_match(name, h) for h in published):
            continue
        key = next((k for k in out if draft_match(name, k)), name)
        out.setdefault(key, []).append(r)
    return out


def side_by_side(
    runs: Sequence[Any],
    own_repo: str | None,
    own_target: str | None,
    *,
    published: bool = True,
    qualified: bool = False,
) -> tuple[SideBySide, ...]:
    """Each published draft for your target that your run group (``runs``) measured at a setting your draft also
    ran (engine, num_steps, topk, draft tokens, batch size), one pair per setting: the newest run of each side
    there. Runs of another target are not compared; your draft's runs are those ``draft.runs_of_draft`` keeps.
    Ordered by the registry, then most num_steps first. With ``published=False``, the group's other drafts that are
    not published instead (a team's v1 beside v2).

    Only pairs whose other benchmark parameters agree where both recorded them (prompts, max_tokens, requests,
    ...), unless ``qualified``: then also pairs that differ in them, each said with the pair (``SideBySide.apart``),
    your run there with the fewest such differences first, then the newest. What one run did not record is no
    difference, and is said (``SideBySide.unrecorded``)."""
    theirs = (
        _published_in_group(runs, own_repo, own_target)
        if published
        else _unpublished_in_group(runs, own_repo, own_target)
    )
    if not theirs:
        return ()
    mine = [
        r
        for r in runs_of_draft(runs_for_target(runs, own_target).kept, own_repo).kept
        if not getattr(r, "is_baseline", False) and r.output_tokens_per_s
    ]
    out: list[SideBySide] = []
    for hub, their_runs in theirs.items():
        by_key: dict[str, list[Any]] = {}
        for r in their_runs:
            by_key.setdefault(run_setting(r)[0], []).append(r)
        for key, rs in by_key.items():
            t = max(rs, key=lambda r: r.id)
            there = [(m, _apart_words(t, m)) for m in mine if run_setting(m)[0] == key]
            there = [(m, w) for m, w in there if qualified or not w[0]]
            if there:
                yours, (apart, prompts) = min(there, key=lambda mw: (len(mw[1][0]), -mw[0].id))
                unsaid = speedup.unrecorded_settings(t, yours)
                group = getattr(t, "group", None)
                out.append(SideBySide(hub, group, key, t, yours, published, apart, prompts, unsaid))
    out.sort(key=lambda p: (list(theirs).index(p.draft), -(p.theirs.num_steps or 0), _batch(p.theirs) or 0))
    return tuple(out)


def nearest_in_family(own_target: str, own_repo: str | None = None) -> Reference | None:
    """The published draft of another target of your target's model family (``draft.model_family``: Qwen3,
    Llama-3, gpt-oss ...) that is nearest to it, where no published draft for the target itself can be compared:
    one that publishes an acceptance length first, then the target nearest in size, the most training samples, a
    countable config, registry order. None when the family has none (or the target names no known family).

    A Qwen3-32B draft was compared with the Kimi-K2 draft (the global default) while Acceptance vs data aimed at a
    Qwen3 draft's acceptance; every page and the plan choose by this one rule (``default_reference``)."""
    import math

    from comparelib.models.draft import family_words, model_family, model_size

    family = model_family(own_target)
    if family is None:
        return None
    own = _own_id(own_repo)
    wanted = (model_id(own_target) or "").lower()  # "org/name@rev" is org/name: the registry has no revisions
    countable = set(reference_choices())
    with_accept = _with_acceptance()
    drafts = registry.load_registry()
    kin = [
        d
        for d in drafts
        if d.hub_id.lower() != own
        and d.hub_id.lower() != d.target_model.lower()  # a target's own MTP layers: not a draft
        and d.target_model.lower() != wanted
        and not same_target(d.target_model, own_target)  # walk AI: the FP8 checkpoint's draft is your target's
        and model_family(d.target_model) == family
        and (d.hub_id in countable or d.train_samples or d.train_tokens)
    ]
    if not kin:
        return None
    size = model_size(own_target)

    def distance(target: str) -> float:
        theirs = model_size(target)
        return abs(math.log(theirs / size)) if size and theirs else math.inf

    order = {d.hub_id: i for i, d in enumerate(drafts)}
    pick = min(
        kin,
        key=lambda d: (
            d.hub_id not in with_accept,
            distance(d.target_model),
            -(d.train_samples or 0),
            d.hub_id not in countable,
            order[d.hub_id],
        ),
    )
    why = (
        f"No published draft for {own_target} can be compared here; the nearest is {pick.hub_id} for "
        f"{pick.target_model} (same family, {family_words(family)}), not a draft for your target."
    )
    if pick.hub_id not in countable:
        why += NO_CONFIG
    return Reference(pick.hub_id, why)


@dataclass(frozen=True)
class SizeFacts:
    """Parameter counts of two drafts and the reason they differ."""

    own_excluding_embedding: int
    own_total: int
    ref_excluding_embedding: int
    ref_total: int
    own_embedding: int
    ref_embedding: int
    own_lm_head: int
    ref_lm_head: int
    own_lm_rows: int | None
    ref_lm_rows: int | None
    hidden: int | None
    embedding_shared: bool
    sentence: str
    own_lm_tied: bool = False  # tie_word_embeddings: the head is the embedding's storage, no D x H of its own
    ref_lm_tied: bool = False
    heads_differ: str = ""  # how the lm_heads differ, in words (``_heads_differ``); "" where they are alike


def _head_words(entry: Entry, name: str) -> str:
    """One draft's lm_head in words: "163,840 x 7,168 over the full vocabulary", or tied to the embedding."""
    if entry.count.lm_head_tied:
        return f"no lm_head of its own in {name}: it is tied to the embedding (tie_word_embeddings), counted once"
    rows, hidden = _lm_rows(entry.spec)
    if rows is None or hidden is None:
        return f"no lm_head listed in {name}"
    emb = next((t.shape for t in entry.spec.tensors if t.component == "embedding" and len(t.shape) == 2), None)
    vocab = "a reduced draft vocabulary" if emb is not None and rows < int(emb[0]) else "the full vocabulary"
    return f"{rows:,} x {hidden:,} over {vocab}"


def _stores_embedding(entry: Entry) -> bool | None:
    """Whether a draft's checkpoint holds its embedding, from the header read (its elements beyond the rest of the
    draft); None where no header was read: a config alone says only what its format leaves out by default."""
    if entry.checkpoint is None or not entry.count.embedding:
        return None
    return entry.checkpoint.param_elements >= entry.count.excluding_embedding + entry.count.embedding


def size_facts(own: Entry, ref: Entry, own_name: str = "our draft", ref_name: str = "the reference") -> SizeFacts:
    """Counts outside and with the embedding, and the one-line reason (lm_head vocabulary, usually).

    ``own`` and ``ref`` are what ``comparison.load_entry`` returns: their counts are used as they are.
    """
    own_spec, ref_spec = own.spec, ref.spec
    a, b = own.count, ref.count
    a_rows, hidden = _lm_rows(own_spec)
    b_rows, _ = _lm_rows(ref_spec)
    diff = a.excluding_embedding - b.excluding_embedding
    lm_diff = a.lm_head - b.lm_head
    shared = bool(a.shared_with_target) and bool(b.shared_with_target) if hasattr(a, "shared_with_target") else False
    emb_note = ""
    if a.embedding and a.embedding == b.embedding:
        emb_shape = next((t.shape for t in own_spec.tensors if t.component == "embedding"), None)
        dims = f" ({emb_shape[0]:,} x {emb_shape[1]:,})" if emb_shape and len(emb_shape) == 2 else ""
        # walk BN: "Both carry the same 163,840,000-parameter embedding" of two checkpoints that store none (each uses
        # the target's): carried in a checkpoint only where one stores it, and that only where its header was read
        # (walk BU 1: "Neither checkpoint stores its embedding" of a SpecForge draft whose header holds embed_tokens,
        # read from its config alone, whose format leaves it out by default)
        held = [_stores_embedding(own), _stores_embedding(ref)]
        frozen = ", frozen and shared with the target" if shared else ""
        if None in held:
            known = [
                f"{name} stores it" if h else f"{name} uses the target's"
                for name, h in ((own_name, held[0]), (ref_name, held[1]))
                if h is not None
            ]
            emb_note = f" Both count the same {a.embedding:,}-parameter embedding{dims}{frozen}" + (
                f" ({known[0]}; the other's checkpoint was not read here)" if known else ""
            )
        elif all(held):
            emb_note = f" Both carry the same {a.embedding:,}-parameter embedding{dims}{frozen}"
        elif not any(held):
            emb_note = (
                f" Neither checkpoint stores its embedding: both count the target's {a.embedding:,}-parameter "
                f"embedding{dims}{frozen}"
            )
        else:
            keeps, lacks = (own_name, ref_name) if held[0] else (ref_name, own_name)
            emb_note = (
                f" Both count the same {a.embedding:,}-parameter embedding{dims}{frozen} ({keeps} stores it, "
                f"{lacks} uses the target's)"
            )
        emb_note += ", so it adds equally to both totals."
    if diff == 0:
        why = "They have the same size outside the embedding."
    elif lm_diff and abs(diff - lm_diff) <= 0.01 * abs(diff):
        bigger, smaller = (own_name, ref_name) if diff > 0 else (ref_name, own_name)
        big, small = (own, ref) if diff > 0 else (ref, own)
        if small.count.lm_head_tied:  # its head is the embedding: there is no second D x H to set against
            heads = f"{_head_words(big, bigger)} in {bigger}, and {_head_words(small, smaller)}"
        else:
            heads = f"{_head_words(big, bigger)} against {_head_words(small, smaller)} in {smaller}"
        why = (
            f"{bigger} is {abs(diff):,} parameters larger outside the embedding, and all of it is the lm_head: "
            f"{heads}."
        )
    else:
        why = (
            f"{own_name} has {count_words(abs(diff))} {'more' if diff > 0 else 'fewer'} parameters than {ref_name} "
            "outside the embedding"
        )
        if lm_diff and (lm_diff > 0) == (diff > 0) and abs(lm_diff) <= abs(diff):
            why += f"; the lm_head accounts for {count_words(abs(lm_diff))} of them."
        elif lm_diff:
            # walk AB: "647 million more ...; the lm_head accounts for 1.18 billion of them": a head difference
            # larger than the whole (or on the other side of it) is no part of it. Both parts are said
            rest = diff - lm_diff
            tied = own.count.lm_head_tied or ref.count.lm_head_tied  # said below, as elsewhere
            heads = (
                "" if tied else f" ({_head_words(own, own_name)} against {_head_words(ref, ref_name)} in {ref_name})"
            )
            why += (
                f": its lm_head is {count_words(abs(lm_diff))} {'larger' if lm_diff > 0 else 'smaller'}{heads}, and "
                f"the rest (layers, fc, norms) {count_words(abs(rest))} {'larger' if rest > 0 else 'smaller'}."
            )
        else:
            why += "."
    for entry, name in ((own, own_name), (ref, ref_name)):
        if entry.count.lm_head_tied and "tie_word_embeddings" not in why:
            who = name[:1].upper() + name[1:]
            why += f" {who}'s lm_head is tied to the embedding (tie_word_embeddings): counted once."
    heads = _heads_differ(own, ref, own_name, ref_name)
    if "no lm_head of its own" in heads:  # walk AL: why one side counts no head at all
        lead = heads.split(" ", 1)[0]  # "our draft" opens a sentence capitalised; a hub id as spelt
        why += f" {heads if '/' in lead else heads[:1].upper() + heads[1:]}."
    return SizeFacts(
        own_excluding_embedding=a.excluding_embedding,
        own_total=a.total,
        ref_excluding_embedding=b.excluding_embedding,
        ref_total=b.total,
        own_embedding=a.embedding,
        ref_embedding=b.embedding,
        own_lm_head=a.lm_head,
        ref_lm_head=b.lm_head,
        own_lm_rows=a_rows,
        ref_lm_rows=b_rows,
        hidden=hidden,
        embedding_shared=shared,
        sentence=why + emb_note,
        own_lm_tied=a.lm_head_tied,
        ref_lm_tied=b.lm_head_tied,
        heads_differ=heads,
    )


def count_words(n: float) -> str:
    """A parameter count for sentences: 1190859520 -> "1.19 billion", 52000 -> "52,000"."""
    n = abs(n)
    for div, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if n >= div:
            return f"{n / div:.3g} {word}"
    return f"{n:,.0f}"


def size_words(ratio: float) -> str:
    """own/reference as words: "2.1 times the size of", "about the same size as", "a third the size of"."""
    if 1 / SAME_SIZE <= ratio <= SAME_SIZE:
        return "about the same size as"
    if ratio > 1:
        return f"{ratio:.3g} times the size of"
    return f"{ratio * 100:.0f}% the size of"


def setting_label(key: str | None) -> str:
    """A setting key for sentences: the registry's "unspecified" reads as what it means."""
    if not key or key == "unspecified":
        return "setting not stated by the source"
    return key


HEADLINE_BENCHMARKS: tuple[str, ...] = ("gsm8k", "humaneval", "math500")
# A gap is a headline only when it is real: sizes within 10%, acceptance within 10% and data within 1.5x
# of the reference are "alike", not "the largest gap".
SAME_SIZE = 1.1
GAP_MIN: dict[str, float] = {"size": 1.1, "acceptance length": 1.1, "training data": 1.5}


@dataclass(frozen=True)
class AcceptFacts:
    own: float | None
    own_setting: str | None
    ref_lo: float | None
    ref_hi: float | None
    ref_settings: tuple[str, ...]
    same_setting: bool
    sentence: str
    # the reference's highest acceptance on each benchmark of the range (benchmark, value): what a factor compares
    by_benchmark: tuple[tuple[str, float], ...] = ()
    benchmarks: tuple[str, ...] = HEADLINE_BENCHMARKS  # the benchmarks the range was read on
    published_on: tuple[str, ...] = ()  # every benchmark the reference publishes an acceptance on (any setting)
    # the range at each setting it spans (setting label, low, high), fewest steps first
    by_setting: tuple[tuple[str, float, float], ...] = ()
    # the reference's highest acceptance on each other benchmark it publishes at the same settings (benchmark, value)
    elsewhere: tuple[tuple[str, float], ...] = ()
    # the benchmarks asked for (GSM8K/HumanEval/MATH500), where the reference publishes on none of them and the range
    # is read on the benchmarks it does publish (``benchmarks``): other prompts than yours, an indicative gap (walk U:
    # a draft publishing MT-Bench 2.56 alone was said to publish "no figure to set ours against")
    asked: tuple[str, ...] = ()
    # each setting's own figure on each benchmark of the range (setting label, ((benchmark, value), ...)), as
    # ``by_setting``: walk AT listed the 7-step figures, each benchmark's highest, beside a 3-step range unnamed
    per_setting: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = ()
    # the setting of each figure in ``by_benchmark`` and ``elsewhere`` (benchmark, setting label), where the figures
    # span several settings or are read off a range over several, not at your chain; empty where none needs naming
    figure_settings: tuple[tuple[str, str], ...] = ()

    def figure(self, bench: str, value: float) -> str:
        """A figure as "GSM8K 2.67", with " at steps=7,..." where ``figure_settings`` names its setting."""
        at = dict(self.figure_settings)
        return f"{bench_label(bench)} {value:.2f}" + (_at_setting(at[bench]) if bench in at else "")

    @property
    def other_prompts(self) -> bool:
        """True when the range is read on other benchmarks than those asked for (``asked``)."""
        return bool(self.asked)

    @property
    def ref_range(self) -> str | None:
        """The reference's acceptance as "3.17-3.49" (one value when the ends agree); None when unpublished."""
        return _range_text(self.ref_lo, self.ref_hi)

    @property
    def ref_range_words(self) -> str | None:
        """The range with the settings it spans: "3.27-3.47 at steps=3,...", or one range per setting ("3.17-3.49
        (setting not stated by the source); 4.66-5.38 at steps=7,..."): a range pooling 3-step and 7-step results
        read as one spread. None when unpublished."""
        if self.ref_range is None:
            return None
        if len(self.by_setting) <= 1:
            only = self.by_setting[0][0] if self.by_setting else None
            return self.ref_range + (_at_setting(only) if only else "")
        return "; ".join(f"{_range_text(lo, hi)}{_at_setting(key)}" for key, lo, hi in self.by_setting)


def _at_setting(label: str) -> str:
    return f" ({label})" if label == setting_label(None) else f" at {label}"


def _setting_parts(key: str) -> dict[str, str]:
    """ "steps=3,topk=1,draft=4,bs=8,sglang" as {"steps": "3", ..., "engine": "sglang"}."""
    out: dict[str, str] = {}
    for part in (key or "").split(","):
        name, sep, value = part.strip().partition("=")
        if sep:
            out[name] = value
        elif re.fullmatch(r"[a-z][a-z0-9_.-]*", name):  # "sglang"; not a phrase such as "setting not stated"
            out["engine"] = name
    return out


_WHY = {
    "steps": "more draft steps give a longer acceptance",
    "topk": "a wider draft tree accepts more",
    "draft": "more draft tokens per cycle accept more",
    "bs": "another batch size is another measurement",
    "engine": "engines verify and sample differently",
}


def setting_difference(own: str | None, refs: Sequence[str], prompts: str = "") -> str:
    """What differs between the user's setting and the reference's, and why it matters, in words: a batch size
    alone is not "more draft steps" (the page said so whatever differed). ``prompts``: how the prompts differ
    ("your 'bundled' prompts against their GSM8K"), named first (walk S named the batch size only)."""
    if not own or not refs:
        return f"prompts differ: {prompts}, so this is not like for like" if prompts else "not like for like"
    mine = _setting_parts(own)
    differ: list[str] = ["prompts"] if prompts else []
    for ref in refs:
        theirs = _setting_parts(ref)
        for name in _WHY:
            if name in mine and name in theirs and mine[name] != theirs[name] and name not in differ:
                differ.append(name)
    if not differ:
        return "not like for like"
    names = {"steps": "num_steps", "topk": "topk", "draft": "draft tokens", "bs": "batch size", "engine": "engine"}
    names["prompts"] = "prompts"
    listed = [names[n] for n in differ]
    joined = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
    why = {**_WHY, "prompts": f"{prompts} (acceptance depends on the prompts)"}
    return (
        f"{joined} differ{'s' if len(differ) == 1 and differ != ['prompts'] else ''}: "
        + "; ".join(why[n] for n in differ)
        + ", so this is not like for like"
    )


def _range_text(lo: float | None, hi: float | None) -> str | None:
    if lo is None or hi is None:
        return None
    return f"{lo:.2f}" if abs(hi - lo) < 0.005 else f"{lo:.2f}-{hi:.2f}"


def accept_facts(
    own_accept: float | None,
    own_setting: str | None,
    reference: str,
    *,
    benchmarks: Sequence[str] = HEADLINE_BENCHMARKS,
    results: pd.DataFrame | None = None,
) -> AcceptFacts:
    """Our acceptance against the reference's at the same setting, or the nearest ones, saying which.

    ``results``: the registry's results (``registry.results_frame()`` columns); None reads the registry."""
    records = registry.results_records() if results is None else results.to_dict(orient="records")
    wanted = {b.lower() for b in benchmarks}
    published_on = tuple(
        sorted(
            {
                str(rec.get("benchmark") or "").lower()
                for rec in records
                if rec.get("hub_id") == reference and number(rec.get("accept_length")) is not None
            }
        )
    )
    every = [  # (setting key, acceptance, benchmark) of each published result of the reference
        (key if isinstance(key, str) and key else None, acc, bench)  # a frame's missing key is NaN, not None
        for rec in records
        for key, bench in [(rec.get("setting_key"), str(rec.get("benchmark") or "").lower())]
        if rec.get("hub_id") == reference and (acc := number(rec.get("accept_length"))) is not None
    ]
    ref = [r for r in every if not benchmarks or r[2] in wanted]  # on these benchmarks
    asked: tuple[str, ...] = ()
    if not ref and every and benchmarks:  # none on these: the figures it does publish, said to be other prompts
        asked, benchmarks = tuple(benchmarks), published_on
        ref = every
    same = [r for r in ref if own_setting and r[0] == own_setting]
    same_setting = bool(same)
    own_steps = steps_of(own_setting)
    limit = (own_steps + 1) if own_steps is not None else None
    if limit is not None:
        known = [n for k, _, _ in ref if (n := steps_of(k)) is not None]
        limit = max(limit, min(known)) if known else limit

    def at_settings(rows: list[tuple[str | None, float, str]]) -> list[tuple[str | None, float, str]]:
        """The rows at the settings the comparison reads: ours exactly, else up to one step past ours."""
        if same_setting:
            return [r for r in rows if r[0] == own_setting]
        if limit is not None:
            return [r for r in rows if (n := steps_of(r[0])) is None or n <= limit]
        return rows

    chosen = at_settings(ref)
    # walk R: ours, on chat prompts, was set against HumanEval 3.24 "(GSM8K 2.88 and MATH500 3.23 are higher too)"
    # while the reference's MT-Bench 2.35 and GPQA 2.36 at that setting were below it: said too
    # at exactly the settings the range was read at, temperature included (walk AO: "at that setting", steps=7,T=1,
    # named the mean 4.81 published at T=0 where the T=1 mean is 4.66)
    others: dict[str, float] = {}
    figure_at: dict[str, str] = {}  # the setting each figure set against ours is from
    # each benchmark's figure the factor is read from: at your chain where the reference states one there (walk Z set
    # ours against MATH500 3.49 "setting not stated" while 3.468 was published at our chain, steps=3,topk=1,draft=4)
    at_chain = [r for r in chosen if own_setting and r[0] is not None and _same_chain(r[0], own_setting)]
    # its other benchmarks at the settings the factor reads: your chain's where it publishes there (walk BI: "on its
    # other benchmarks there, cnn_dm 2.12 at steps=2" against our steps=1 run, where its steps=1 cnn_dm is 1.69)
    keys = {k for k, _, _ in at_chain or chosen}
    for k, a, b in (r for r in every if r[2] not in wanted) if benchmarks and not asked else ():
        if k in keys and a >= others.get(b, a):
            others[b], figure_at[b] = a, setting_label(k)
    settings = tuple(sorted({setting_label(k) for k, _, _ in chosen if k is not None}))
    lo = min((a for _, a, _ in chosen), default=None)
    hi = max((a for _, a, _ in chosen), default=None)
    top: dict[str, float] = {}
    for k, a, b in at_chain or chosen:
        if a >= top.get(b, a):
            top[b], figure_at[b] = a, setting_label(k)
    spans: dict[str, list[float]] = {}
    each: dict[str, dict[str, float]] = {}
    for k, a, b in chosen:
        spans.setdefault(setting_label(k), []).append(a)
        each.setdefault(setting_label(k), {})[b] = max(each.get(setting_label(k), {}).get(b, a), a)
    by_setting = tuple(
        (label, min(v), max(v))
        for label, v in sorted(spans.items(), key=lambda t: (steps_of(t[0]) is None, steps_of(t[0]) or 0, t[0]))
    )
    benches = "/".join(bench_label(b) for b in benchmarks) if benchmarks else "all benchmarks"
    ref_text = "no published acceptance"  # replaced below by the range with its settings, once it is known
    own_text = "not measured" if own_accept is None else f"~{own_accept:.1f}"
    if lo is None:  # nothing to set ours against: no settings to compare either ("theirs none")
        sentence = f"Acceptance length: ours {own_text}; {no_acceptance(reference, benchmarks, published_on)}."
        return AcceptFacts(
            own_accept, own_setting, None, None, (), False, sentence, (), tuple(benchmarks), published_on
        )
    if same_setting:
        tail = f"at the same setting ({own_setting})."
    else:
        tail = (
            f"but the settings differ: ours {own_setting or 'unknown'}, theirs "
            f"{'; '.join(settings) or 'none'}; acceptance grows with the number of draft steps, so this is "
            "not a like-for-like comparison."
        )
    facts = AcceptFacts(
        own_accept,
        own_setting,
        lo,
        hi,
        settings,
        same_setting,
        "",
        tuple(top.items()),
        tuple(benchmarks),
        published_on,
        by_setting,
        tuple(sorted(others.items(), key=lambda t: t[1])),
        asked,
        tuple((label, tuple(each[label].items())) for label, _, _ in by_setting),
        tuple(figure_at.items()) if len(set(figure_at.values())) > 1 or (len(by_setting) > 1 and not at_chain) else (),
    )
    ref_text = facts.ref_range_words or ref_text
    if asked:  # read on other benchmarks than those asked for: said before the settings
        tail = f"other prompts than {'/'.join(bench_label(b) for b in asked)} (it publishes none there); " + tail
    return replace(facts, sentence=f"Acceptance length: ours {own_text}, {reference} {ref_text} on {benches}, {tail}")


def no_acceptance(reference: str, benchmarks: Sequence[str], published_on: Sequence[str]) -> str:
    """ "X publishes no acceptance length" (on these benchmarks, naming those it does publish)."""
    if not published_on:
        return f"{reference} publishes no acceptance length"
    on = "/".join(bench_label(b) for b in benchmarks)
    return (
        f"{reference} publishes no acceptance length on {on} (only on "
        f"{', '.join(bench_label(b) for b in published_on)})"
    )


def accept_line(
    acc: AcceptFacts,
    reference: str,
    ours: str,
    own_key: str | None,
    *,
    measured: bool,
    link: Callable[[str, str], str] = lambda text, page: text,
    own_prompts: str | None = None,
) -> str:
    """Overview's acceptance bullet: ours (``ours``, already worded and linked), the reference's range on the
    benchmarks it was read on, and how the settings differ. A reference that publishes no acceptance is said so,
    with no settings to compare (it read "not published (published) on GSM8K/HumanEval/MATH500 ... theirs none")."""
    if acc.ref_range is None:
        return (
            f"- **Acceptance length:** ours {ours}; {no_acceptance(reference, acc.benchmarks, acc.published_on)}, "
            "so there is no published figure to set ours against."
        )
    # the benchmarks a figure was read on: walk N's coder draft publishes HumanEval only among them, and read
    # "3.40 (published) on GSM8K/HumanEval/MATH500"
    read_on = [b for b in acc.benchmarks if b in {x for x, _ in acc.by_benchmark}] or list(acc.benchmarks)
    benches = "/".join(bench_label(b) for b in read_on)
    if len(acc.by_setting) > 1:  # a range over several settings is given per setting, each named
        ranges = "; ".join(
            f"{link(_range_text(lo, hi) or '', 'scaling')}{_at_setting(key)}" for key, lo, hi in acc.by_setting
        )
        text = f"- **Acceptance length:** ours {ours}, {reference} (published) on {benches}: {ranges}. "
    else:
        text = (
            f"- **Acceptance length:** ours {ours}, {reference} {link(acc.ref_range, 'scaling')} (published) on "
            + benches
        )
        # measured: the settings are compared below, unless the prompts are (other benchmarks than those asked)
        if acc.by_setting and (not measured or acc.other_prompts):
            text += _at_setting(acc.by_setting[0][0])
        # a range across benchmarks (at one setting) says which benchmark is which end
        if len(acc.by_benchmark) > 1:
            text += f" ({', '.join(f'{bench_label(b)} {v:.2f}' for b, v in acc.by_benchmark)}). "
        else:
            text += ". "
        # its other benchmarks at that setting, highest first: walk S's range 2.32-2.93 left out MT-Bench 2.96
        if acc.elsewhere:
            named = [f"{bench_label(b)} {v:.2f}" for b, v in sorted(acc.elsewhere, key=lambda t: -t[1])]
            listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
            text += f"At that setting it also publishes {listed}. "
    if acc.other_prompts:  # walk U: MT-Bench alone, against runs on GSM8K/HumanEval/MATH500 prompts
        text += f"It publishes none on {'/'.join(bench_label(b) for b in acc.asked)}. "
    if not measured:
        return text
    if acc.other_prompts:
        yours = f"your {own_prompts!r} prompts" if own_prompts else "your run's prompts"
        said = (
            f"**Prompts differ:** {yours} against their {benches} (acceptance depends on the prompts), so the gap "
            "is indicative, not like for like."
        )
        differ = "" if acc.same_setting else setting_difference(own_key, acc.ref_settings)
        if differ and differ != "not like for like":  # the settings besides: what differs, once
            said += (
                f" Settings differ too: ours {own_key or 'unknown'}, theirs {'; '.join(acc.ref_settings)} "
                f"({differ.removesuffix(', so this is not like for like')})."
            )
        return text + said
    # your run on other prompts than the benchmarks theirs was read on is another measurement too (walk S: the
    # bundled prompts beside GSM8K's 2.32, "batch size differs" only)
    other = (
        f"your {own_prompts!r} prompts against their {benches}"
        if own_prompts and str(own_prompts).lower() not in {b.lower() for b in read_on}
        else ""
    )
    if acc.same_setting and not other:
        return text + "Same setting."
    if acc.same_setting:
        return (
            text + f"Same setting, other prompts: {other} (acceptance depends on the prompts), so this is not like "
            "for like."
        )
    return (
        text + f"**Settings differ:** ours {own_key or 'unknown'}, theirs {'; '.join(acc.ref_settings)} "
        f"({setting_difference(own_key, acc.ref_settings, other)})."
    )


def accept_comparison(own: float | None, acc: AcceptFacts) -> str:
    """What an acceptance factor compares, and which way: the factor is the reference's highest benchmark against
    ours, so it names that benchmark and those on the other side of ours ("differs by a factor of 1.22" was
    HumanEval's 2.93 against our 2.40, while GSM8K's 2.32 was below ours); figures from several settings each name
    theirs (walk AT: a 7-step HumanEval read as the 3-step one)."""
    if not own or not acc.by_benchmark:
        return ""
    bench, high = max(acc.by_benchmark, key=lambda t: t[1])
    if high > own:

        def listed(sel: list[tuple[str, float]]) -> str:
            return " and ".join(acc.figure(b, v) for b, v in sel)

        above = [(b, v) for b, v in acc.by_benchmark if v > own and b != bench]
        below = [(b, v) for b, v in acc.by_benchmark if v <= own]
        parts = [f"{listed(above)} {'is' if len(above) == 1 else 'are'} higher too"] if above else []
        if below:
            parts.append(f"{listed(below)} {'is' if len(below) == 1 else 'are'} at or below ours")
        if elsewhere := _elsewhere_words(own, acc):
            parts.append(elsewhere)
        text = f"the reference's {acc.figure(bench, high)} is {high / own:.2f} times our {own:.2f}"
        return text + (f" ({'; '.join(parts)})" if parts else "")
    text = f"our {own:.2f} is {own / high:.2f} times the reference's highest, {acc.figure(bench, high)}"
    above_elsewhere = _elsewhere_words(own, acc, below=False)
    return text + (f" ({above_elsewhere})" if above_elsewhere else "")


def _elsewhere_words(own: float, acc: AcceptFacts, *, below: bool = True) -> str:
    """The reference's other benchmarks at that setting on each side of ours: those above ours were left out (walk
    AW: "on its other benchmarks there, MT-Bench 2.35 ... are at or below ours" hid LiveCodeBench 2.82 above our
    2.67). ``below`` False: those above ours only."""

    def listed(sel: list[tuple[str, float]]) -> str:
        return " and ".join(acc.figure(b, v) for b, v in sel)

    high = [(b, v) for b, v in acc.elsewhere if v > own]
    low = [(b, v) for b, v in acc.elsewhere if v <= own] if below else []
    sides = ([f"{listed(high)} {'is' if len(high) == 1 else 'are'} higher than ours"] if high else []) + (
        [f"{listed(low)} {'is' if len(low) == 1 else 'are'} at or below ours"] if low else []
    )
    return f"on its other benchmarks there, {', and '.join(sides)}" if sides else ""


@dataclass(frozen=True)
class OwnAccept:
    """Your draft's own measured acceptance: which run it is, and why that run (``own_acceptance``)."""

    run: Any
    value: float
    setting: str  # the run's setting key (``registry.run_setting``)
    why: str  # "at the reference's published setting steps=3,...", in words a page shows after the run
    # why the run is not like for like with the published figures: a tree's acceptance against a chain's, or the
    # reverse (walk AM); "" where the shapes agree, or no run of the published shape exists
    unlike: str = ""
    # where a run of the other shape was set aside for this one, for the headline: which run this is and why
    # ("Your acceptance is your best chain's, 3.45 (run #6: ...)"), and the run set aside ("tree run #9 ..."); ""
    apart: str = ""
    aside: str = ""


def reference_settings(reference: str, results: pd.DataFrame | None = None) -> tuple[str, ...]:
    """The setting keys ``reference`` publishes an acceptance length at, fewest draft steps first (a setting the
    source does not state is left out: no run can be matched with it)."""
    records = registry.results_records() if results is None else results.to_dict(orient="records")
    keys = {
        str(rec.get("setting_key"))
        for rec in records
        if rec.get("hub_id") == reference
        and number(rec.get("accept_length")) is not None
        and isinstance(rec.get("setting_key"), str)
        and rec.get("setting_key") not in ("", "unspecified")
    }
    return tuple(sorted(keys, key=lambda k: (steps_of(k) is None, steps_of(k) or 0, k)))


def reference_engine(reference: str, results: pd.DataFrame | None = None) -> str | None:
    """The engine ``reference``'s published acceptance was measured on where its own settings state none: the one
    engine every other published result of it names (lmsys's Maverick draft states no engine with its acceptance,
    and its speedup on SGLang in the SpecForge blog); None where they name none, or more than one."""
    records = registry.results_records() if results is None else results.to_dict(orient="records")
    mine = [rec for rec in records if rec.get("hub_id") == reference]
    stated = {
        str(e).strip().lower()
        for rec in mine
        if number(rec.get("accept_length")) is not None and isinstance(e := rec.get("engine"), str) and e.strip()
    }
    if stated:
        return next(iter(stated)) if len(stated) == 1 else None
    named = {str(e).strip().lower() for rec in mine if isinstance(e := rec.get("engine"), str) and e.strip()}
    return next(iter(named)) if len(named) == 1 else None


def _is_tree(key: str | None) -> bool:
    """A setting key of a draft tree (topk over 1, or a tree stated: "tree", "dynamic tree (EAGLE-2)"); a key that
    states no shape reads as a chain, as published chain figures rarely say they are one."""
    topk = number(_setting_parts(key or "").get("topk"))
    return (topk is not None and topk > 1) or any("tree" in part for part in (key or "").split(","))


def same_chain(a: str, b: str) -> bool:
    """Whether setting keys ``a`` and ``b`` draft the same chain (num_steps, tree or chain, topk and draft tokens where
    both state them); engine, batch and temperature aside."""
    return _same_chain(a, b)


def _same_chain(a: str, b: str) -> bool:
    parts_a, parts_b = _setting_parts(a), _setting_parts(b)
    if "steps" not in parts_a or parts_a.get("steps") != parts_b.get("steps"):
        return False
    if _is_tree(a) != _is_tree(b):  # a tree accepts more per cycle than the chain of its num_steps (walk AM)
        return False
    return all(parts_a.get(k) is None or parts_b.get(k) is None or parts_a[k] == parts_b[k] for k in ("topk", "draft"))


def own_acceptance(
    runs: Sequence[Any], settings: Sequence[str] = (), *, draft: str | None = None, engine: str | None = None
) -> OwnAccept | None:
    """The one run whose acceptance length is "your acceptance" on every page (Overview, Acceptance vs data).

    ``settings``: the published settings it is set against (the reference's, fewest steps first, or a fit's).
    The rule, first that applies: a run at one of those settings exactly; else a run drafting one of their chains
    (num_steps, topk, draft tokens), of the same engine first, then at the served num_steps (the lead pair's), then
    the fewest steps, then the same temperature and batch size; else the best comparable
    pair's speculative run (``speedup.best_pair``); else the fastest speculative run. Among runs alike by these,
    the best comparable pair's run, else the newest.
    Only runs with an acceptance length count; with ``draft`` only your draft's runs (``draft.runs_of_draft``).
    ``engine``: the reference's engine where its published settings state none (``reference_engine``): walk AC
    took a vLLM run over an SGLang run of the same chain, batch and acceptance against lmsys's SGLang draft.

    Overview showed the batch-8 vLLM run's 2.59 while Acceptance vs data led with an SGLang batch-1 run's 2.74."""
    mine = [
        r
        for r in runs_of_draft(runs, draft).kept
        if not getattr(r, "is_baseline", False) and _accept_of(r) is not None
    ]
    if not mine:
        return None
    keyed = [(r, run_setting(r)[0]) for r in mine]
    # the pair Overview's live speed leads with (``lead_pair``): the fastest, unless it loses and another pays more
    both = mine + [r for r in runs if getattr(r, "is_baseline", False)]
    pair = lead_pair(both)
    fastest = speedup.best_pair(both)
    served = pair is not None and fastest is not None and fastest.spec.id != pair.spec.id
    paired = pair.spec.id if pair is not None else None
    # the num_steps your live speed is served at (the lead pair's): among several published settings, the one read
    # there before the fewest-steps one (walk BI: RedHat's Maverick draft publishes vLLM chains at steps 1 to 7, and
    # an SGLang run at steps 1 was read while a vLLM run at the served steps 3 was not named)
    served_steps = steps_of(run_setting(pair.spec)[0]) if pair is not None else None
    # and the engine it is served on: where the published figure states no engine, a run on it comes before a newer
    # run on another engine (walk BM: vLLM run #12's 2.50 was taken over SGLang run #7's 3.00 at the same chain and
    # batch for being newer, and turned the headline to "Acceptance differs", while live speed and the
    # plan read SGLang)
    served_engine = str(pair.spec.engine or "").lower() or None if pair is not None else None
    order = {want: i for i, want in reversed(list(enumerate(settings)))}  # fewest steps first

    def at_served(key: str) -> bool:
        return served_steps is not None and steps_of(key) == served_steps

    exacts = [(r, k) for r, k in keyed if k in order]
    if exacts:
        r, want = max(exacts, key=lambda t: (at_served(t[1]), -order[t[1]], t[0].id == paired, t[0].id))
        n = sum(k == want for _, k in exacts)
        more = (
            ""
            if n == 1
            else "; of the runs there, the best comparable pair's"
            if r.id == paired
            else f"; the newest of {n} runs there"
        )
        return OwnAccept(r, _accept_of(r), want, f"at the published setting {want}{more}")  # type: ignore[arg-type]
    # a run drafting a published chain: the published engine first, then the served num_steps, then the fewest
    # steps, then as ``_chain_rank`` ranks the runs of one chain
    chains: list[tuple[tuple[Any, ...], Any, str, str, dict[str, str], bool]] = []
    for want in settings:
        wanted = _setting_parts(want)
        inferred = "engine" not in wanted and bool(engine)
        if inferred:  # the source states no engine with the figure; the reference publishes on this one
            wanted["engine"] = str(engine).lower()
        for r, k in keyed:
            if _same_chain(k, want):
                same_engine, *rest = _chain_rank((r, k), wanted, paired)
                on_served = served_engine is not None and _setting_parts(k).get("engine") == served_engine
                rank = (same_engine, at_served(k), -order[want], on_served, *rest)
                chains.append((rank, r, k, want, wanted, inferred))
    if chains:
        _, r, k, want, wanted, inferred = max(chains, key=lambda c: c[0])
        chained = [(o, ok) for o, ok in keyed if _same_chain(ok, want)]
        parts = _setting_parts(k)
        run_t = _run_t(r, parts)
        differ = [
            f"{name} {(run_t or 'not recorded') if key == 'T' else (parts.get(key) or 'not recorded')} "
            + (
                f"(the reference publishes on {wanted[key]})"
                if key == "engine" and inferred
                else f"(published: {wanted[key]})"
            )
            for key, name in (("engine", "engine"), ("bs", "batch"), ("T", "temperature"))
            if key in wanted and (run_t if key == "T" else parts.get(key)) != wanted[key]
        ]
        if "bs" not in wanted and parts.get("bs"):  # the source states no batch size: batch 1 is preferred
            differ.append(f"batch {parts['bs']} (the source states no batch size)")
        # one statement: the chain it drafts, and what of the published setting it does not share (walk U read
        # "at the published chain of ...; no run at that setting exactly", and took the batch-16 run)
        return OwnAccept(
            r,
            _accept_of(r),  # type: ignore[arg-type]
            k,
            f"at the published chain of {want}"
            + (f", {' and '.join(differ)}" if differ else "")
            + _other_engines_words(r, chained, wanted, paired, inferred, served_engine),
        )
    if pair is not None:
        r = pair.spec
        why = (
            "the speculative run of the pair Overview leads live speed with (the largest speedup measured; the "
            "fastest pair in tok/s loses)"
            if served
            else "the speculative run of the best comparable pair"
        )
    else:
        fast = [r for r in mine if r.output_tokens_per_s]
        r = max(fast or mine, key=lambda r: (r.output_tokens_per_s or 0, r.id))
        why = "the fastest speculative run"
    if settings:
        why += f"; no run drafts a published chain ({'; '.join(settings)})"
        if (shaped := _of_published_shape(r, keyed, settings, engine, both)) is not None:
            return shaped
        if _is_tree(run_setting(r)[0]) != all(_is_tree(s) for s in settings):  # only the other shape was measured
            ours, theirs = ("tree", "chain") if _is_tree(run_setting(r)[0]) else ("chain", "tree")
            unlike = (
                f"ours is a {ours}'s (run #{r.id}: {speedup.shape_words(r)}) and the published figures "
                + ("are a tree's" if theirs == "tree" else "state no tree (a chain's)")
                + ", and a tree and a chain are other settings"
            )
            return OwnAccept(r, _accept_of(r), run_setting(r)[0], f"{why}; {unlike}", unlike=unlike)  # type: ignore[arg-type]
    return OwnAccept(r, _accept_of(r), run_setting(r)[0], why)  # type: ignore[arg-type]


def _of_published_shape(
    taken: Any,
    keyed: Sequence[tuple[Any, str]],
    settings: Sequence[str],
    engine: str | None,
    runs: Sequence[Any] = (),
) -> OwnAccept | None:
    """Where ``taken`` (the best pair's run) is a tree and the published figures a chain's (or of no stated shape),
    or the reverse, the run of the published shape with the highest measured acceptance, at the published batch size
    (batch 1 where none is stated) and engine first; None where ``taken`` is of that shape, or none is. Walk AM set a
    tree's 4.00 against a chain's 3.53 ("ahead") while the best chain at that batch measured 3.45."""
    tree = all(_is_tree(s) for s in settings)
    if _is_tree(run_setting(taken)[0]) == tree:
        return None
    shaped = [(r, k) for r, k in keyed if _is_tree(k) == tree]
    if not shaped:
        return None
    batch = next((b for s in settings if (b := _setting_parts(s).get("bs"))), "1")
    eng = next((e for s in settings if (e := _setting_parts(s).get("engine"))), (engine or "").lower())

    def rank(t: tuple[Any, str]) -> tuple[bool, bool, float, int]:
        parts = _setting_parts(t[1])
        return parts.get("bs") == batch, not eng or parts.get("engine") == eng, _accept_of(t[0]) or 0.0, t[0].id

    r, k = max(shaped, key=rank)
    parts = _setting_parts(k)
    name, other = ("tree", "chain") if tree else ("chain", "tree")
    batch_said = f"batch {parts['bs']}" if parts.get("bs") else ""
    published = "are a tree's" if tree else "state no tree (a chain's)"
    # the run of the other shape named as set aside: the one Chains or trees sets ``r`` against, at its batch (walk
    # BK6 named the batch-16 chain #13, unbatched, while the tree was set against the batch-1 chain #7 elsewhere)
    aside_run, aside_key = _set_aside(r, k, keyed, tree, runs) or (taken, run_setting(taken)[0])
    aside_bs = _setting_parts(aside_key).get("bs")
    aside_said = f"{other} run #{aside_run.id} ({speedup.shape_words(aside_run)}" + (
        f", batch {aside_bs})" if aside_bs else ")"
    )
    # a chain accepts less than a tree only at equal depth and budget (walk BK6: a 6-step chain measured the topk-4
    # tree's 3.33), so the reason is that it is another setting, never "by construction"
    reason = (
        f"a {other} is another setting than the published {name} (what is accepted per cycle depends on the shape, "
        "depth and draft budget)"
    )
    why = (
        f"the {name} run with the highest measured acceptance{' at ' + batch_said if batch_said else ''}: the "
        f"published figures {published}, at other settings; {aside_said} measured {_accept_of(aside_run):.2f}, not "
        f"set against them: {reason}"
    )
    # a tree's only in shape: the published tree is of other settings, so never like for like (walk BK2)
    apart = (
        f"Your acceptance is your best {name}'s, {_accept_of(r):.2f} (run #{r.id}: {speedup.shape_words(r)}"
        f"{', ' + batch_said if batch_said else ''}), as the published figures {published} too, at other settings"
    )
    aside = f"{aside_said} measured {_accept_of(aside_run):.2f}, not set against them: {reason}."
    return OwnAccept(r, _accept_of(r), k, why, apart=apart, aside=aside)  # type: ignore[arg-type]


def _set_aside(
    chosen: Any, key: str, keyed: Sequence[tuple[Any, str]], tree: bool, runs: Sequence[Any]
) -> tuple[Any, str] | None:
    """The run of the other shape than ``chosen`` (of ``tree``'s shape) that Chains or trees sets it against: at
    its batch and engine, measured like it, the largest speedup against its own baseline (``speedup.chains_and_trees``
    picks the same); None where none is (or no baseline pairs one)."""
    parts = _setting_parts(key)
    rated = []
    for o, k in keyed:
        theirs = _setting_parts(k)
        if _is_tree(k) == tree or (theirs.get("bs"), theirs.get("engine")) != (parts.get("bs"), parts.get("engine")):
            continue
        if speedup.measured_otherwise(o, chosen) != ([], []) or _accept_of(o) is None:
            continue
        base = speedup.choose_baseline(runs, [o])
        ratio = speedup.speedup_against(o, base)[0] if base is not None else None
        if ratio:
            rated.append((ratio, -o.id, o, k))
    if not rated:
        return None
    best = max(rated, key=lambda t: (t[0], t[1]))
    return best[2], best[3]


def _other_engines_words(
    run: Any,
    chained: Sequence[tuple[Any, str]],
    wanted: dict[str, str],
    paired: int | None,
    inferred: bool,
    served_engine: str | None = None,
) -> str:
    """ "; SGLang run #4 measured 2.79 at the same chain and batch: ..." where another engine's run at ``run``'s chain,
    batch and temperature measured another acceptance (its newest there), and why ``run`` was taken; "" where none.
    Walk AJ: "your acceptance" moved from SGLang #4 (2.79) to a newer vLLM run (2.61) at the same chain and batch
    by the newest-run rule, and #4 was not named."""
    mine = _setting_parts(run_setting(run)[0])
    al = _accept_of(run)
    others: dict[str, Any] = {}
    for other, key in chained:
        parts = _setting_parts(key)
        engine = parts.get("engine")
        if not engine or engine == mine.get("engine") or parts.get("bs") != mine.get("bs"):
            continue
        if parts.get("T", "0") != mine.get("T", "0") or _accept_of(other) is None or al is None:
            continue
        if f"{_accept_of(other):.2f}" != f"{al:.2f}" and (engine not in others or other.id > others[engine].id):
            others[engine] = other
    if not others:
        return ""
    said = " and ".join(
        f"{engines.engine_word(e)} run #{o.id} measured {_accept_of(o):.2f}" for e, o in sorted(others.items())
    )
    if "engine" not in wanted:  # neither the figure nor the reference's other results name an engine
        rule = (
            "the best comparable pair's run"
            if run.id == paired
            else f"the run on the engine your live speed is served with ({engines.engine_word(served_engine)})"
            if served_engine and mine.get("engine") == served_engine
            else "the newest run"
        )
        why = f": the published figure states no engine (nor does the reference elsewhere), so {rule} is taken"
    elif mine.get("engine") == wanted["engine"]:
        whose = "the engine the reference publishes on" if inferred else "the published engine"
        why = f", not on {whose} ({engines.engine_word(wanted['engine'])})"
    else:
        why = ""
    return f"; {said} at the same chain and batch{why}"


def _run_t(run: Any, parts: Mapping[str, str]) -> str | None:
    """The temperature ``run`` recorded, as a setting key states it ("0" for greedy); None where it recorded none."""
    if "T" in parts:
        return parts["T"]
    return "0" if run_param(run, "temperature") is not None else None


def _chain_rank(t: tuple[Any, str], wanted: dict[str, str], paired: int | None) -> tuple[bool, bool, bool, bool, int]:
    """The run closest to the published setting: same engine first, then the same temperature (a key states T only
    when it is not 0: greedy), then the published batch size (batch 1 where the source states none: walk U took a
    batch-16 run, the fastest pair's, over batch 1 against a figure of no stated batch), then the best comparable
    pair's run, then the newest run."""
    parts = _setting_parts(t[1])
    same_engine = parts.get("engine") == wanted.get("engine")
    # a run that recorded no temperature (an imported `vllm bench serve` file) is not a greedy one: walk BE took it
    # over a run stored at T=0, same chain and engine, and said it was "at ... T=0"
    same_t = _run_t(t[0], parts) == wanted.get("T", "0")
    same_batch = parts.get("bs") == wanted.get("bs", "1")
    return same_engine, same_t, same_batch, t[0].id == paired, t[0].id


def _accept_of(run: Any) -> float | None:
    al = run.accept_length if run.accept_length is not None else getattr(run, "accept_length_mean", None)
    return number(al)


LEAD_FASTEST = "The fastest pair in tok/s"
LEAD_SERVED = "The pair to serve (the largest speedup measured; the fastest pair in tok/s loses)"
# every comparable pair loses beyond noise: none is "to serve" (walk AW led with #8/#7 at 0.58x as the pair to serve)
LEAD_NONE_GAINS = (
    "No pair gains: speculation was slower than without speculation in every comparable pair measured; "
    + "the smallest loss"
)


@dataclass(frozen=True)
class LiveFacts:
    """The group's best comparable pair: a speculative run and its baseline, both measured, named by id."""

    spec_tok_s: float
    baseline_tok_s: float
    gain: float  # spec / baseline - 1
    num_steps: int | None
    num_draft_tokens: int | None
    run_id: int
    baseline_run_id: int
    kind: str
    engine: str
    unpaired: tuple[str, ...]  # other speculative runs of the group without a comparable baseline, and why
    sentence: str
    # the best pair of each other setting (another baseline: another batch size, output length, ...), in words
    others: tuple[str, ...] = ()
    batch: int | None = None  # the pair's concurrency (batch size), when recorded
    left_out: str | None = None  # runs of another draft left out (``draft.runs_of_draft``), in one sentence
    imported: tuple[int, ...] = ()  # the pair's runs imported from another tool's file (``speedup.is_imported``)
    note: str | None = None  # settings one run of the pair did not record (``speedup.Pair.note``)
    best_other_speedup: float | None = None  # the largest speedup of ``others`` (they are listed largest first)
    # "Speculation pays at batch 1 (1.99x, #7/#4) and loses at batch 16 (0.92x, #11/#10).": where the group's pairs
    # gain beyond noise at one batch and lose beyond it at another (``batch_verdict``); "" when they agree
    verdict: str = ""
    # True where the fastest pair in tok/s loses and this pair, the largest speedup, leads instead (``lead_pair``)
    served: bool = False
    setting: str = ""  # "num_steps 3, topk 4, 16 draft tokens": the speculative run's shape (``_steps_text``)
    # every comparable pair of the group (each baseline's, ``_baseline_picks``) loses beyond run-to-run noise
    all_lose: bool = False

    @property
    def lead_words(self) -> str:
        """What the pair is, before its runs: ``LEAD_NONE_GAINS`` where several pairs were measured and every one
        loses (this one the smallest loss: walk AW called a 0.58x pair "the pair to serve"); ``LEAD_SERVED`` where the
        fastest pair in tok/s loses and this one, the largest speedup, gains; ``LEAD_FASTEST`` after a verdict; ""
        otherwise."""
        if self.all_lose and (self.served or self.others):
            return LEAD_NONE_GAINS
        return LEAD_SERVED if self.served else LEAD_FASTEST if self.verdict else ""

    @property
    def batch_words(self) -> str:
        """ "at batch 32", or "" when the pair recorded no batch size."""
        return f"at batch {self.batch}" if self.batch is not None else ""

    @property
    def speedup(self) -> float:
        return self.gain + 1.0

    @property
    def others_clause(self) -> str:
        """One short clause naming the best pair at each other setting; "" when there is none. Where another
        setting's speedup is larger beyond noise, it says so first: walk Q's Overview led with a batch-16 pair at
        1.47x (the fastest in tok/s) and left the batch-1 tree's 1.56x to a list that read as lesser pairs. Where it
        is larger as shown (two decimals) but within noise, it says that too, and that it is a tie (walk X: 2.62x
        listed after the lead's 2.59x without a word)."""
        clause = _others_clause(self.others)
        top = self.best_other_speedup
        if clause and self.verdict:  # the verdict says where speculation pays and where it loses, first
            return clause
        if clause and top is not None and top > self.speedup * (1 + speedup.TIE_TOLERANCE):
            clause = (
                f"This pair is the fastest in tok/s; the largest speedup measured, {top:.2f}x, is another "
                f"setting's (the first below). {clause}"
            )
        elif clause and top is not None and round(top, 2) > round(self.speedup, 2):
            # larger as shown, within noise: walk X led with batch 4's 2.59x and listed batch 1's 2.62x unsaid
            clause = (
                f"This pair is the fastest in tok/s; another setting's speedup is larger, {top:.2f}x (the first "
                f"below) against this pair's {self.speedup:.2f}x, within {speedup.TIE_TOLERANCE:.0%}: a tie within "
                f"run-to-run noise. {clause}"
            )
        return clause


def _others_clause(others: Sequence[str]) -> str:
    return f"Other comparable pairs at other settings: {'; '.join(others)}." if others else ""


def _steps_text(run: Any) -> str:
    """ "num_steps 3" for a chain, "num_steps 3, topk 4, 16 draft tokens" for a tree: the one label the plan and
    Chains or trees use (walk AG named a tree "num_steps=3", as its chain of num_steps 3 read)."""
    return speedup.shape_words(run)


_SETTING_WORDS = {"concurrency": "batch", "max_tokens": "max_tokens", "prompt_set": "prompts"}


def _setting_words(run: Any, other: Any, *, skip: Sequence[str] = ()) -> str:
    """How ``run``'s benchmark setting differs from ``other``'s, in a few words ("batch 1"); ``skip`` names
    parameters said elsewhere. "" when none of the others differs. A parameter one run did not record is no
    difference (``speedup.unrecorded_settings`` says it): walk AD's imported sglang.bench_serving run, which records
    no temperature or ignore_eos, read as differing in "temperature 0.0, ignore_eos False" from the user's."""
    from comparelib.values import run_param

    parts = []
    for key in speedup.RUN_PARAMS_THAT_MATTER:
        mine, theirs = run_param(run, key), run_param(other, key)
        if key not in skip and speedup._differs(mine, theirs):
            parts.append(f"{_SETTING_WORDS.get(key, key)} {mine}")
    return ", ".join(parts)


def prompt_words(run: Any) -> str:
    """A run's prompts as people say them: "bundled", "random 256/128" (a random dataset's input/output lengths, as
    sglang.bench_serving and vllm bench serve record them), "not recorded"."""
    from comparelib.values import run_param

    name = run_param(run, "prompt_set")
    if name is None:
        return "not recorded"
    params = getattr(run, "params", None) or {}
    lengths = [number(params.get(k)) for k in ("random_input_len", "random_output_len")]
    if str(name).strip().lower() == "random" and all(v is not None for v in lengths):
        return f"{name} {lengths[0]:g}/{lengths[1]:g}"
    return str(name)


def _apart_words(theirs: Any, yours: Any) -> tuple[tuple[str, ...], bool]:
    """What two runs both recorded and differ in, besides their setting (engine, chain, batch): "other prompts
    (random 256/128 against bundled)", "max_tokens 256 against 128", ... (``theirs`` first); and whether the prompts
    are among them."""
    from comparelib.values import run_param

    out: list[str] = []
    prompts = False
    for key in speedup.RUN_PARAMS_THAT_MATTER:
        if key == "concurrency":
            continue
        a, b = run_param(theirs, key), run_param(yours, key)
        if not speedup._differs(a, b):
            continue
        if key == "prompt_set":
            prompts = True
            out.insert(0, f"other prompts ({prompt_words(theirs)} against {prompt_words(yours)})")
        else:
            name = "requests" if key == "requests" else _SETTING_WORDS.get(key, key)
            out.append(f"{name} {speedup._norm(a)} against {speedup._norm(b)}")
    return tuple(out), prompts


def _batch(run: Any) -> int | None:
    from comparelib.values import run_param

    value = number(run_param(run, "concurrency"))
    return int(value) if value is not None and float(value).is_integer() else None


def _pair_words(run: Any, base: Any, ratio: float, headline: Any, also: str | None = None) -> str:
    """ "vLLM EAGLE-3 batch 32, num_steps 3 at 1.60x (#12/#13)": a pair named so that it is told from the others
    by engine, algorithm, draft (when not the headline pair's) and batch size; ``also`` goes in its parentheses
    (another baseline's speedup, ``speedup.other_baselines``)."""
    engine = str(getattr(run, "engine", None) or "unknown engine")
    who = [engines.engine_word(engine)]
    algo = registry.algorithm_label(run)
    if algo:
        who.append(algo)
    draft = str(getattr(run, "draft_model", None) or "").strip()
    if draft and not registry.is_mtp(run) and draft != str(getattr(headline, "draft_model", None) or "").strip():
        who.append(f"draft {draft}")
    batch = _batch(run)
    if batch is not None:
        who.append(f"batch {batch}")
    rest = _setting_words(run, headline, skip=("concurrency",))
    if not rest and batch == _batch(headline) and engine == getattr(headline, "engine", None):
        rest = "other server settings"
    text = " ".join(who) + (f", {rest}" if rest else "") + f", {_steps_text(run)}"
    return f"{text} at {ratio:.2f}x (#{run.id}/#{base.id}{_imported_tail(run, base)}{f'; {also}' if also else ''})"


def _imported_tail(*runs: Any) -> str:
    """ ", #19 imported" after a pair's run ids when a run of it was imported from another tool's file; else ""."""
    ids = [f"#{r.id}" for r in runs if speedup.is_imported(r)]
    return f", {' and '.join(ids)} imported" if ids else ""


def _imported_words(run: Any) -> str:
    """ "imported, " before a run's engine when it was imported from another tool's file; else ""."""
    return "imported, " if speedup.is_imported(run) else ""


def _baseline_picks(runs: Sequence[Any]) -> dict[int, tuple[Any, Any, float]]:
    """Each baseline's pair (speculative run, baseline, speedup), by baseline id: a pair of one tool first, then the
    speedup page's pick, the fewest num_steps within noise of the fastest (walk S named #8/#4, num_steps 4, where
    the plan and ``speedup`` named num_steps 3, run #7, 0.1% slower)."""
    found: dict[int, list[tuple[Any, Any, float]]] = {}
    for r in runs:
        if r.is_baseline or not r.output_tokens_per_s:
            continue
        base = speedup.choose_baseline(runs, [r])
        ratio = speedup.speedup_against(r, base)[0] if base is not None else None
        if base is not None and ratio is not None:
            found.setdefault(base.id, []).append((r, base, ratio))
    out: dict[int, tuple[Any, Any, float]] = {}
    for bid, pairs in found.items():
        one = [p for p in pairs if speedup.is_imported(p[0]) == speedup.is_imported(p[1])] or pairs
        top = max(float(p[0].output_tokens_per_s) for p in one)
        near = [p for p in one if p[0].output_tokens_per_s >= top * (1 - speedup.TIE_TOLERANCE)]
        out[bid] = min(near, key=lambda p: (p[0].num_steps or 0, -float(p[0].output_tokens_per_s)))
    return out


def _other_pairs(runs: Sequence[Any], pair: speedup.Pair) -> tuple[tuple[str, float], ...]:
    """The pair under each other baseline (``_baseline_picks``), best speedup first: a group with a batch-16 pair
    answered 1.78x without a word of its batch-1 pairs at 2.39x and 2.44x. Each is named by engine, algorithm,
    draft and batch (``_pair_words``): "batch 32, num_steps=3" did not say which."""
    best = {bid: p for bid, p in _baseline_picks(runs).items() if bid != pair.baseline.id}
    return tuple(
        # a pair that loses beyond noise is said to (walk U's batch-16 pair at 0.94x read as one more setting)
        (
            _pair_words(r, base, ratio, pair.spec, speedup.other_baselines(runs, r, base))
            + (", a loss" if ratio < 1 - speedup.TIE_TOLERANCE else ""),
            ratio,
        )
        for r, base, ratio in sorted(best.values(), key=lambda t: -t[2])
    )


def batch_verdict(runs: Sequence[Any]) -> str:
    """ "Speculation pays at batch 1 (1.99x, #7/#4) and loses at batch 16 (0.92x, #11/#10).": where the group's pairs
    (``_baseline_picks``; the largest speedup of each batch) gain beyond run-to-run noise at one batch and lose beyond
    it at another; "" when they do not disagree. Walk S's Overview led with the batch-16 loss, the fastest pair in
    tok/s, as the draft's live speed, while batch 1 measured 1.99x."""
    by_batch: dict[int, tuple[Any, Any, float]] = {}
    for r, base, ratio in _baseline_picks(runs).values():
        b = _batch(r)
        if b is not None and (b not in by_batch or ratio > by_batch[b][2]):
            by_batch[b] = (r, base, ratio)
    tol = speedup.TIE_TOLERANCE

    def said(b: int) -> str:
        r, base, ratio = by_batch[b]
        return f"batch {b} ({ratio:.2f}x, #{r.id}/#{base.id}{_imported_tail(r, base)})"

    pays = [said(b) for b in sorted(by_batch) if by_batch[b][2] > 1 + tol]
    loses = [said(b) for b in sorted(by_batch) if by_batch[b][2] < 1 - tol]
    if not pays or not loses:
        return ""
    return f"Speculation pays at {', '.join(pays)} and loses at {', '.join(loses)}."


def lead_pair(runs: Sequence[Any]) -> speedup.Pair | None:
    """The pair Overview leads live speed with: the fastest comparable pair in tok/s (``speedup.best_pair``), unless
    speculation loses there (under 1x) and another baseline's pair (``_baseline_picks``) gains more: then the one of
    the largest speedup, the pair a user would serve. Walk U led with a batch-16 pair at 0.94x (the fastest in
    tok/s) while batch 1 measured 1.80x."""
    pair = speedup.best_pair(runs)
    if pair is None or pair.speedup >= 1.0:
        return pair
    picks = [p for bid, p in _baseline_picks(runs).items() if bid != pair.baseline.id]
    if not picks:
        return pair
    # the largest speedup; within noise of it, the smallest batch (batch 1 where measured), then the newest run
    top = max(ratio for _, _, ratio in picks)
    near = [p for p in picks if p[2] >= top * (1 - speedup.TIE_TOLERANCE)]
    r, base, ratio = min(near, key=lambda p: (_batch(p[0]) or 0, -p[0].id))
    if ratio <= pair.speedup:
        return pair
    return speedup.Pair(r, base, ratio, speedup.unrecorded_settings(r, base))


def live_facts(runs: Sequence[Any], draft: str | None = None) -> LiveFacts | None:
    """The fastest speculative run of a group that has a comparable baseline, against that baseline; where speculation
    loses there, the pair of the largest speedup instead, the one a user would serve (``lead_pair``).

    Every pair of the group is tried: a newer run on another engine does not hide an older comparable pair. The
    best pair of each other setting is named too (``others``): the fastest pair in tok/s is the largest batch's,
    not the largest speedup. With ``draft`` (your draft's name) only its runs are paired, and the runs of another
    draft or of the target's own MTP layers are named in ``left_out`` (``draft.runs_of_draft``): a DeepSeek-V3
    group's MTP (NEXTN) run was reported as your draft's.
    """
    split = runs_of_draft(runs, draft)
    runs = list(split.kept)
    pair = lead_pair(runs)
    if pair is None:
        return None
    fastest = speedup.best_pair(runs)
    served = fastest is not None and fastest.spec.id != pair.spec.id  # the fastest pair loses: led by the one to serve
    best, base = pair.spec, pair.baseline
    gain = pair.speedup - 1.0
    kind = "example" if "example" in (best.kind, base.kind) else best.kind
    unpaired = []
    for r in runs:
        if r.is_baseline or not r.output_tokens_per_s or r.id == best.id:
            continue
        if speedup.choose_baseline(runs, [r]) is None:
            unpaired.append(f"run #{r.id} ({r.engine}): {speedup.no_baseline_reason(runs, [r])}")
    batch = _batch(best)
    at_batch = f" at batch {batch}" if batch is not None else ""
    verdict = batch_verdict(runs)  # where pairs disagree, both said first: not the fastest pair's alone (walk S)
    tol = speedup.TIE_TOLERANCE
    all_lose = pair.speedup < 1 - tol and all(ratio < 1 - tol for _, _, ratio in _baseline_picks(runs).values())
    paired = _other_pairs(runs, pair)
    lead = (
        LEAD_NONE_GAINS
        if all_lose and (served or paired)
        else LEAD_SERVED
        if served
        else LEAD_FASTEST
        if verdict
        else ""
    )
    opening = f"{lead}, measured{at_batch}" if lead else f"Measured{at_batch}"
    sentence = (
        (f"{verdict} {opening}" if verdict else opening)
        + f": run #{best.id} ({_imported_words(best)}{best.engine}, {_steps_text(best)}) at "
        f"{best.output_tokens_per_s:.1f} tok/s with speculation against baseline run #{base.id} "
        f"({_imported_words(base)}{base.engine}) at {base.output_tokens_per_s:.1f} "
        f"tok/s without: {pair.speedup:.2f}x ({gain * 100:+.1f}%)" + (" (example data)." if kind == "example" else ".")
    )
    if pair.note:  # a setting one side did not record: said, never taken as equal
        sentence += f" Note: {pair.note.rstrip('.')}."
    if other_base := speedup.other_baselines(runs, best, base):  # baselines measured alike that disagree (walk AE)
        sentence += f" {other_base[:1].upper()}{other_base[1:]}."
    if split.note:
        sentence += f" {split.note}"
    facts = LiveFacts(
        float(best.output_tokens_per_s),
        float(base.output_tokens_per_s),
        gain,
        best.num_steps,
        best.num_draft_tokens,
        best.id,
        base.id,
        kind,
        str(best.engine),
        tuple(unpaired),
        sentence,
        tuple(words for words, _ in paired),
        batch,
        split.note,
        tuple(r.id for r in (best, base) if speedup.is_imported(r)),
        pair.note,
        max((ratio for _, ratio in paired), default=None),
        verdict,
        served,
        _steps_text(best),
        all_lose,
    )
    return replace(facts, sentence=f"{sentence} {facts.others_clause}") if paired else facts


# -- the target's own MTP layers measured in your group
#
# A DeepSeek-V3 group holding an SGLang NEXTN (or vLLM mtp) run measured the target drafting with its own MTP layers:
# no draft to train or load. Overview only named it "another draft left out" though it measured 125.0 tok/s against
# your draft's best 96.1 at the same batch and engine (walk Z). Where it is faster, a user choosing what to serve
# must be told; where it is slower, one short clause.

MTP_WHO = "The target's own MTP layers"


@dataclass(frozen=True)
class NativeMtp:
    """A run of the target's own MTP layers (``registry.is_mtp``) set against your draft's best run in one run group:
    both measured, named by run, each with the speedup over its own comparable baseline where it has one."""

    mtp: Any  # the MTP run
    yours: Any  # your draft's run it is set against
    mtp_base: Any | None  # each run's comparable baseline (``speedup.choose_baseline``); None: none in the group
    yours_base: Any | None
    mtp_speedup: float | None
    yours_speedup: float | None
    # how the two runs' settings differ (``speedup.settings_mismatch``: "batch 8 against 1"); empty: alike, and the
    # runs' tok/s are compared; otherwise only their speedups over their own baselines are
    differs: tuple[str, ...]
    verdict: str  # "faster", "slower" or "tie" (within ``speedup.TIE_TOLERANCE``): the MTP run against yours
    # the comparison at each batch both were measured alike, lowest batch first (this one among them); walk AI
    # compared batch 16 only (slower) where batch 1 measured MTP 12.8% faster
    batches: tuple[NativeMtp, ...] = ()

    @property
    def faster(self) -> bool:
        return self.verdict == "faster"

    @property
    def _per_batch(self) -> str:
        """ "faster at batch 1 (run #4 at 184.8 tok/s against your run #3 at 163.8 tok/s, SGLang), slower at batch
        16 (...)": each batch's comparison, by measured tok/s."""
        words = {"faster": "faster", "slower": "slower", "tie": "within 2% (a tie)"}
        return ", ".join(
            f"{words[b.verdict]} at batch {_batch(b.mtp)} (run #{b.mtp.id} at {b.mtp.output_tokens_per_s:.1f} tok/s "
            f"against your run #{b.yours.id} at {b.yours.output_tokens_per_s:.1f} tok/s, "
            f"{_run_place(b.mtp).split(',')[0]})"
            for b in self.batches
        )

    @property
    def alike_words(self) -> str:
        """ "at the same engine, batch and benchmark settings", or what differs ("settings differ (batch 8 against
        1), so only the speedups over each run's own baseline compare")."""
        if not self.differs:
            return "at the same engine, batch and benchmark settings"
        return (
            f"settings differ ({'; '.join(self.differs)}), so only the speedups over each run's own baseline compare"
        )

    @property
    def sentence(self) -> str:
        """Faster: the whole comparison, which runs, their tok/s and speedups, and whether they were measured alike.
        Slower or a tie: one short clause. Measured at several batches: each batch's verdict."""
        m, y = self.mtp, self.yours
        if len(self.batches) > 1:
            said = (
                f"{MTP_WHO} were measured against your draft at each batch both ran, at the same engine and benchmark "
                f"settings: {self._per_batch}."
            )
            if not self.faster:
                return said
            at = " and ".join(f"batch {_batch(b.mtp)}" for b in self.batches if b.faster)
            return (
                f"{said} At {at}, serving the target with its own MTP layers (no draft model to load) is faster "
                "than serving your draft."
            )
        if not self.faster:
            how = (
                "measured slower than your draft"
                if self.verdict == "slower"
                else "measured within 2% of your draft, a tie"
            )
            if self.differs:  # compared by their speedups
                return (
                    f"{MTP_WHO} {how}: run #{m.id} at {m.output_tokens_per_s:.1f} tok/s ({self.mtp_speedup:.2f}x) "
                    f"against your run #{y.id} at {y.output_tokens_per_s:.1f} tok/s ({self.yours_speedup:.2f}x); "
                    f"settings differ: {'; '.join(self.differs)}."
                )
            return (
                f"{MTP_WHO} {how}: run #{m.id} at {m.output_tokens_per_s:.1f} tok/s against your run #{y.id} at "
                f"{y.output_tokens_per_s:.1f} tok/s ({_run_place(y)})."
            )

        def one(run: Any, base: Any, ratio: float | None) -> str:
            over = f"{ratio:.2f}x over baseline #{base.id}" if ratio is not None else "no comparable baseline"
            return f"#{run.id} ({_run_who(run)}) at {run.output_tokens_per_s:.1f} tok/s ({over})"

        how = "measured faster than" if not self.differs else "measured with a larger speedup than"
        said = (
            f"{MTP_WHO} were {how} your draft: run {one(m, self.mtp_base, self.mtp_speedup)} against your best run "
            f"{one(y, self.yours_base, self.yours_speedup)}"
        )
        if not self.differs:
            return (
                f"{said}, {self.alike_words}. On these runs, serving the target with its own MTP layers (no draft "
                "model to load) is faster than serving your draft."
            )
        return f"{said}; {self.alike_words}. Measure both alike to tell which to serve."

    @property
    def short(self) -> str:
        """ "The target's own MTP layers were measured faster than your draft (run #3 at 125.0 tok/s, SGLang, batch 1,
        against your run #5 at 96.1 tok/s): ...": the plan's lead says it so; "" where it is not faster."""
        if not self.faster:
            return ""
        m, y = self.mtp, self.yours
        if len(self.batches) > 1:
            at = " and ".join(f"batch {_batch(b.mtp)}" for b in self.batches if b.faster)
            return (
                f"{MTP_WHO} were measured faster than your draft at {at} ({self._per_batch}): the plan's options "
                f"improve your draft, not what is fastest to serve at {at} now."
            )
        if self.differs:
            return (
                f"{MTP_WHO} were measured with a larger speedup than your draft (run #{m.id}, "
                f"{self.mtp_speedup:.2f}x, against your run #{y.id}, {self.yours_speedup:.2f}x; settings differ: "
                f"{'; '.join(self.differs)})."
            )
        return (
            f"{MTP_WHO} were measured faster than your draft (run #{m.id} at {m.output_tokens_per_s:.1f} tok/s, "
            f"{_run_place(m)}, against your run #{y.id} at {y.output_tokens_per_s:.1f} tok/s): the plan's options "
            "improve your draft, not what is fastest to serve now."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "mtp_run_id": self.mtp.id,
            "mtp_tok_s": float(self.mtp.output_tokens_per_s),
            "mtp_baseline_run_id": self.mtp_base.id if self.mtp_base is not None else None,
            "mtp_speedup": self.mtp_speedup,
            "your_run_id": self.yours.id,
            "your_tok_s": float(self.yours.output_tokens_per_s),
            "your_baseline_run_id": self.yours_base.id if self.yours_base is not None else None,
            "your_speedup": self.yours_speedup,
            "settings_differ": list(self.differs),
            "sentence": self.sentence,
            "short": self.short,
            # each batch both were measured alike: its runs and verdict (walk AI)
            "per_batch": [
                {
                    "batch": _batch(b.mtp),
                    "verdict": b.verdict,
                    "mtp_run_id": b.mtp.id,
                    "mtp_tok_s": float(b.mtp.output_tokens_per_s),
                    "your_run_id": b.yours.id,
                    "your_tok_s": float(b.yours.output_tokens_per_s),
                }
                for b in self.batches
            ],
        }


def _run_who(run: Any) -> str:
    """ "SGLang MTP (NEXTN), batch 1, num_steps 3": engine and algorithm, batch, num_steps, and a tree's shape."""
    engine = str(getattr(run, "engine", None) or "unknown engine")
    who = " ".join(x for x in (engines.engine_word(engine), registry.algorithm_label(run)) if x)
    parts = [who]
    if (batch := _batch(run)) is not None:
        parts.append(f"batch {batch}")
    parts.append(_steps_text(run))
    return ", ".join(parts)


def _run_place(run: Any) -> str:
    """ "SGLang, batch 1": where a run was measured, in a few words."""
    engine = str(getattr(run, "engine", None) or "unknown engine")
    batch = _batch(run)
    return engines.engine_word(engine) + (f", batch {batch}" if batch is not None else "")


def _differ_words(reasons: Sequence[str]) -> tuple[str, ...]:
    """``speedup.settings_mismatch``'s reasons as settings: "different concurrency: 8 against 1" -> "batch 8 against
    1", "different prompt_set: random against bundled" -> "prompts random against bundled"."""
    out = []
    for reason in reasons:
        text = reason.removeprefix("different ")
        key, _, rest = text.partition(": ")
        out.append(f"{_SETTING_WORDS.get(key, key)} {rest}" if rest else text)
    return tuple(out)


def native_mtp(runs: Sequence[Any], draft: str | None = None, *, batch: int | None = None) -> NativeMtp | None:
    """The target's own MTP layers measured in ``runs`` (one target's group: ``draft.runs_for_target``'s kept) set
    against your draft's (``draft``: its name, ``draft.runs_of_draft``) best run; None without an MTP run or a run
    of your draft with a throughput. The one comparison Overview, the CLI's ``overview`` and the plan say.

    Runs measured alike (``speedup.settings_mismatch``: engine, batch, prompts, max_tokens, requests, temperature,
    server settings) are compared by tok/s, the fastest of each side there; at the batch ``batch`` first (default:
    the batch of Overview's live pair, ``lead_pair``). With none alike, the MTP run of the largest speedup against
    your lead pair's run, by their speedups over their own baselines, what differs said; a run with no comparable
    baseline is then not compared. Within ``speedup.TIE_TOLERANCE`` it is a tie.

    Measured alike at several batches, each batch is compared (``batches``) and the one returned is the batch asked
    where MTP is not faster at another, else the batch where it is faster: one faster batch warns (walk AI: batch
    16 slower hid batch 1, 12.8% faster), and Overview and the plan, asking different batches, say the same."""
    runs = list(runs)
    mtp = [r for r in runs if registry.is_mtp(r) and not r.is_baseline and r.output_tokens_per_s]
    if not mtp:
        return None
    kept = [r for r in runs_of_draft(runs, draft).kept if not registry.is_mtp(r)]
    mine = [r for r in kept if not r.is_baseline and r.output_tokens_per_s]
    if not mine:
        return None
    pairs: dict[int, tuple[Any, float | None]] = {}
    for r in [*mtp, *mine]:
        base = speedup.choose_baseline(runs, [r])
        pairs[r.id] = (base, speedup.speedup_against(r, base)[0] if base is not None else None)
    lead = lead_pair(kept)
    if batch is None and lead is not None:
        batch = _batch(lead.spec)
    lead_id = lead.spec.id if lead is not None else None

    def tok(r: Any) -> float:
        return float(r.output_tokens_per_s)

    found: list[tuple[tuple[Any, ...], Any, Any, tuple[str, ...]]] = []
    for m in mtp:
        for y in mine:
            differs = _differ_words(speedup.settings_mismatch(m, y))
            if differs and (pairs[m.id][1] is None or pairs[y.id][1] is None):
                continue  # measured otherwise and without a speedup: nothing compares them
            if differs:
                rank = (True, _batch(m) != batch, y.id != lead_id, -(pairs[m.id][1] or 0.0), -(pairs[y.id][1] or 0.0))
            else:
                rank = (False, _batch(m) != batch, False, -tok(m), -tok(y))
            found.append((rank, m, y, differs))
    if not found:
        return None

    def one(m: Any, y: Any, differs: tuple[str, ...]) -> NativeMtp:
        (m_base, m_ratio), (y_base, y_ratio) = pairs[m.id], pairs[y.id]
        ours, theirs = (tok(y), tok(m)) if not differs else (float(y_ratio or 0.0), float(m_ratio or 0.0))
        tol = speedup.TIE_TOLERANCE
        verdict = "faster" if theirs > ours * (1 + tol) else "slower" if theirs < ours * (1 - tol) else "tie"
        return NativeMtp(m, y, m_base, y_base, m_ratio, y_ratio, differs, verdict)

    def order(t: tuple[tuple[Any, ...], Any, Any, tuple[str, ...]]) -> tuple[Any, ...]:
        return (t[0], -t[1].id, -t[2].id)

    best = min(found, key=order)
    alike: dict[int | None, tuple[tuple[Any, ...], Any, Any, tuple[str, ...]]] = {}
    for t in sorted((t for t in found if not t[3]), key=order):
        alike.setdefault(_batch(t[1]), t)
    if len(alike) < 2:
        return one(*best[1:])
    each = tuple(one(*alike[b][1:]) for b in sorted(alike, key=lambda b: (b is None, b or 0)))
    asked = one(*best[1:])
    chosen = asked if asked.faster or not any(b.faster for b in each) else next(b for b in each if b.faster)
    return replace(chosen, batches=each)


def largest_gap(
    *,
    data_ratio: float | None,
    size_ratio: float | None,
    accept_ratio: float | None,
    accept_same_setting: bool = False,
    own_volume: float | None = None,
    ref_volume: float | None = None,
    ref_floor: bool = False,
    curve_verdict: str | None = None,
    accept_detail: str = "",
    missing: Sequence[str] | None = None,
    size_scope: str = "outside the embedding",
    curve_passes: float | None = None,
    curve_peak: Any = None,
    accept_unlike: str = "",
    curve_ceiling: str | None = None,
    accept_shape: str = "",
    ref_doubt: str = "",
    accept_apart: str = "",
) -> tuple[str, str]:
    """(name, sentence) of the largest real gap, each as a factor >= 1 against the reference.

    ``ref_doubt`` (``comparison.volume_doubt``): the reference's volume is no published figure ("a template figure,
    unverified"); a training-data gap resting on it says so (walk AT).

    ``accept_shape`` (``OwnAccept.unlike``): your acceptance is a tree's against published chain figures, or the
    reverse; it is then neither a gap nor ahead, only said with "not like for like" (walk AM: "ahead in a higher
    measured acceptance" of a tree's 4.00 against a chain's 3.53).

    ``accept_unlike``: why the acceptance factor is not like for like where it is more than the settings ("on other
    prompts: its MT-Bench against your runs' prompts"); an acceptance close to the reference's there is said as
    close and indicative, not left out (walk U's headline named no acceptance at all).

    ``curve_peak`` (``curves.Peak``): where an overfitting log's eval acceptance peaked before it fell; a data gap
    then stands, for unique data, not more passes (walk S: "plateau ... look at the data's mix and the wiring before
    adding volume" of a log whose eval fell 0.16 after pass 3 of 5 while train rose). A plateau's peak (its fall
    past noise is not called overfitting: ``why_not``) is said as that fall, not as "has plateaued".

    ``curve_passes``: the samples your training log saw over your unique training samples. A log rising over
    several passes of the same samples says more training on them helps, not what new data would add (walk R:
    "still rising, which agrees: more data should help" of a 4-epoch log of 3,000 samples).

    ``accept_apart``: your acceptance was measured on recorded prompts other than the reference's figure's, so where
    it is higher it is not said as ahead but as not compared, as the plan's more-data row says it (walk BQ 3).

    ``size_scope`` says what ``size_ratio`` counts (``size_gap``: the layers alone when the lm_heads differ).

    A factor under ``GAP_MIN`` is no gap: a draft the size of the reference gets no "largest gap is
    size" headline, nor does one larger than it (walk AL: 1.28 times it, short of nothing; said as a difference).
    A training curve that has plateaued (``curve_verdict``) contradicts "the gap is
    training data": more of the same data is not what the user's own log says will help. ``accept_detail``
    (``accept_comparison``) says which benchmark the acceptance factor compares and which way, wherever it is named.
    ``missing`` (``missing_evidence``) names what keeps a gap from being named, where nothing can be: "attach
    training data or benchmark runs" was said with runs attached and quoted on the same page.
    """
    factors: dict[str, float] = {}
    ahead: dict[str, float] = {}  # where your draft is past the reference: no gap to close there
    if data_ratio:
        (factors if data_ratio >= 1 else ahead)["training data"] = max(data_ratio, 1 / data_ratio)
    larger = ""  # walk AL: a draft larger than the reference is short of nothing there: a difference, not a gap
    if size_ratio and size_ratio >= GAP_MIN["size"]:
        larger = (
            f" Your draft is {size_words(size_ratio)} the reference {size_scope}: larger, so size is no shortfall to "
            "close."
        )
    elif size_ratio:
        factors["size"] = max(size_ratio, 1 / size_ratio)
    shape = ""  # a tree's acceptance against a chain's: said, never weighed (walk AM)
    if accept_ratio and accept_shape:
        differs = accept_detail or f"a factor of {max(accept_ratio, 1 / accept_ratio):.2f}"
        shape, accept_ratio = f" Acceptance differs: {differs}, but {accept_shape} (not like for like).", None
    if accept_ratio and accept_apart and 1 / accept_ratio >= GAP_MIN["acceptance length"]:
        # ahead only: a close figure is said as indicative, a higher one as not like for like, neither a verdict
        shape, accept_ratio = f"{shape} {accept_apart}.", None
    if accept_ratio:
        (factors if accept_ratio >= 1 else ahead)["acceptance length"] = max(accept_ratio, 1 / accept_ratio)
    ahead = {k: v for k, v in ahead.items() if v >= GAP_MIN[k]}
    ahead_text = larger
    if ahead:
        words = {"training data": "more training data", "acceptance length": "a higher measured acceptance"}
        parts = [
            f"{words[k]} ({accept_detail}; indicative: {accept_unlike})"
            if k == "acceptance length" and accept_detail and accept_unlike and not accept_same_setting
            else f"{words[k]} ({accept_detail})"
            if k == "acceptance length" and accept_detail
            else f"{words[k]} ({times(v)} the reference's)"
            for k, v in ahead.items()
        ]
        ahead_text += f" Your draft is ahead in {ahead_words(parts)}."
    if not factors:
        if ahead_text:
            still = f" Not known yet: {'; '.join(missing)}." if missing and larger else ""  # size alone is thin
            return "", "No real gap to the reference in what is known so far." + ahead_text + shape + still
        if missing:
            return "", f"Not enough evidence yet to name a gap: {'; '.join(missing)}." + shape
        return "", (
            "Not enough evidence yet to name a gap: attach training data or benchmark runs in the sidebar." + shape
        )
    real = {k: v for k, v in factors.items() if v >= GAP_MIN[k]}
    unlike = shape
    if "acceptance length" in real and not accept_same_setting:
        # measured at another num_steps than the published figures: a difference, but no headline
        factor = real.pop("acceptance length")
        why = accept_unlike or "at different settings"
        unlike = (
            f" Acceptance differs: {accept_detail}, but {why} (not like for like)."
            if accept_detail
            else f" Acceptance differs by a factor of {factor:.2f}, but {why} (not like for like)."
        )
    elif (
        accept_unlike
        and accept_ratio
        and max(accept_ratio, 1 / accept_ratio) < GAP_MIN["acceptance length"]
        and not accept_same_setting
    ):
        # within 10% on other prompts: close, and said so as indicative (no headline either way)
        close = accept_detail or f"a factor of {max(accept_ratio, 1 / accept_ratio):.2f}"
        unlike = f" Acceptance is close ({close}), but {accept_unlike}, so this is indicative, not like for like."
    if not real:
        alike = ", ".join(
            f"{_alike_name(k, size_scope)} (within {(v - 1) * 100:.0f}%)"
            for k, v in factors.items()
            if v < GAP_MIN[k] and (k != "acceptance length" or accept_same_setting)
        )
        still = f" Not known yet: {'; '.join(missing)}." if missing else ""  # "no gap" from size alone is thin
        said = (
            (f"No real gap to the reference in what is known so far: {alike}." if alike else "") + unlike + ahead_text
        )
        if not said:  # nothing comparable is known: what is missing leads (walk U's headline began " Not known")
            return "", (
                f"Not enough evidence yet to name a gap: {'; '.join(missing)}."
                if missing
                else "Not enough evidence yet to name a gap: your acceptance was measured at other settings than the "
                "published figures, and nothing else compares."
            )
        return "", (said + still).strip()
    name = max(real, key=lambda k: real[k])
    plateau = curve_verdict == "plateau"
    if name == "training data" and plateau:
        rest = {k: v for k, v in real.items() if k != "training data"}
        least = "at least " if ref_floor else ""
        data_text = (
            f"{human(own_volume)} samples against {least}{human(ref_volume)}" + (f", {ref_doubt}" if ref_doubt else "")
            if own_volume and ref_volume
            else "less data"
        )
        # a plateau whose eval fell past noise after its peak (not overfitting) is said as that, not "plateaued"
        lead = (
            f"Your training log {curve_ceiling or _stopped(curve_peak)}, so more of the same data is unlikely to "
            "close the gap, "
            f"although the reference used more ({data_text}). Look at the data's mix and the wiring before adding "
            "volume."
        )
        if rest:
            other = max(rest, key=lambda k: rest[k])
            words_other = _factor_words(other, rest[other], size_ratio, accept_ratio, accept_detail, size_scope)
            lead += f" The next gap is {other}: {words_other}."
        # an acceptance at other settings keeps its "not like for like" (walk BK2: dropped once a log was kept)
        return "training data (contradicted by your training log)", lead + unlike + ahead_text
    if name == "training data" and own_volume and ref_volume:
        least = "at least " if ref_floor else ""
        lead = (
            f"The largest gap is training data: {human(own_volume)} samples against {least}{human(ref_volume)} "
            f"({least}{times(real[name])} fewer"
            + (f"; the {human(ref_volume)} is {ref_doubt}" if ref_doubt else "")
            + ")."
        )
    elif len(factors) == 1 and not ahead:
        # walk BS 4: "The largest gap is size" where size was all that compared (no volume published, acceptance
        # not compared): the only gap known, with what is not
        lead = (
            f"The only gap known is {name}: "
            f"{_factor_words(name, real[name], size_ratio, accept_ratio, accept_detail, size_scope)}."
            + (f" Not known yet: {'; '.join(missing)}." if missing else "")
        )
    else:
        lead = (
            f"The largest gap is {name}: "
            f"{_factor_words(name, real[name], size_ratio, accept_ratio, accept_detail, size_scope)}."
        )
    others = [_other_words(k, v, size_ratio, accept_detail, size_scope) for k, v in real.items() if k != name]
    # acceptance measured at another setting is not "alike" either: it is not comparable (said in ``unlike``)
    alike_names = [
        k for k, v in factors.items() if v < GAP_MIN[k] and (k != "acceptance length" or accept_same_setting)
    ]
    if others:
        lead += f" The others are smaller ({', '.join(others)})."
    if alike_names:
        lead += f" Alike: {', '.join(_alike_name(k, size_scope) for k in alike_names)}."
    lead += unlike + ahead_text
    if name == "training data" and curve_verdict == "rising":
        lead += f" {rising_words(curve_passes, own_volume)}"
    if name == "training data" and curve_verdict == "overfitting":
        lead += f" {overfitting_words(curve_peak, short=True)}"
    return name, lead


def ahead_words(parts: Sequence[str]) -> str:
    """Where your draft is ahead of the reference, with a quantifier that agrees with the list: "A, so it is not a
    gap", "A and B, so neither is a gap", "A, B and C, so none is a gap" (walk AC: one thing ahead read "so neither
    is a gap")."""
    if not parts:
        return ""
    if len(parts) == 1:
        return f"{parts[0]}, so it is not a gap"
    listed = f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"{listed}, so {'neither' if len(parts) == 2 else 'none'} is a gap"


SAME_FACTOR = 1.5  # a unique-sample factor this many times the headline's is said beside it


def passes_caveat(read: Any, ref_volume: float | None, gap: str, ref_floor: bool = False, ref_doubt: str = "") -> str:
    """Where your training log reads the volume in use as passes over fewer unique samples (``curves.passes_read``)
    and those unique samples would be a training-data gap to the reference (``GAP_MIN``) that the volume as given
    is not: the headline's sentence saying that the gap is closed only as the volume was given (walk AC: 400K typed
    in against 320K, "no real gap", beside a log of 4 passes over about 100K); where the headline names training data
    as the largest gap, the unique samples' factor where it is well above the headline's (walk BJ). "" otherwise.
    ``ref_doubt`` as
    ``largest_gap``'s: a reference volume that is no published figure says so here too."""
    if read is None or not ref_volume:
        return ""
    given, unique = ref_volume / read.volume, ref_volume / read.unique
    if gap.startswith("training data"):
        # the headline's factor counts samples seen; the published volume counts unique samples (walk BJ: "250K
        # samples against 1.4M (5.6x fewer)" beside a log of 6 passes over about 40K, 35x fewer unique samples)
        if given <= 0 or unique / given < SAME_FACTOR:
            return ""
        least = "at least " if ref_floor else ""
        return (
            f"That counts samples seen: {read.words()}, {least}{times(unique)} fewer than the reference's "
            f"{least}{human(ref_volume)}, which counts unique samples."
        )
    if unique < GAP_MIN["training data"] or given >= GAP_MIN["training data"]:
        return ""
    least = "at least " if ref_floor else ""
    return (
        f"Training data is no gap only as your volume counts it ({human(read.volume)} samples against "
        f"{least}{human(ref_volume)}{f', {ref_doubt}' if ref_doubt else ''}): {read.words()}, {least}{times(unique)} "
        "fewer than the reference's."
    )


def _stopped(peak: Any) -> str:
    """A plateaued log in words: "has plateaued", or for one whose eval fell past noise after its peak
    (``curves.Peak`` with ``why_not``): "stopped rising: eval acceptance peaked at ... and fell 0.16 after it, past
    noise (not overfitting)"."""
    return f"stopped rising: {peak.fell_words(short=True)}" if peak is not None else "has plateaued"


def fell_words(peak: Any) -> str:
    """Overview's note on a plateau whose eval fell past noise after its peak, not called overfitting (``curves.Peak``
    with ``why_not``): it was "has plateaued" beside a measured fall of 0.16."""
    return (
        f"Your training log (Acceptance vs data) stopped rising: {peak.fell_words()}. By your own evidence, more of "
        f"the same data is unlikely to raise acceptance, whatever the published drafts' trend says; keep the "
        f"{peak.checkpoint()}."
    )


def ceiling_note(ceiling: str) -> str:
    """Overview's note on a log still rising but near its ceiling (``curves.Curve.ceiling_words``): walk W's read
    "has plateaued" beside a log that rose +0.098 per doubling over its last half-doubling, slowing."""
    return (
        f"Your training log (Acceptance vs data) {ceiling}: by your own evidence, more of the same data is unlikely "
        "to raise acceptance much."
    )


OVERFITTING_LEAD = "Your training log is overfitting"


def overfitting_words(peak: Any, own_volume: float | None = None, *, short: bool = False) -> str:
    """What an overfitting log (``curves.Peak``, or None where only the verdict is known) says of more data: more
    unique data, not more passes over the same samples, and the checkpoint to keep. ``short``: for the headline."""
    if peak is None:
        return (
            f"{OVERFITTING_LEAD}: held-out (eval) acceptance fell after its peak while train acceptance rose, so more "
            "unique data is likely to help and more epochs over the same samples are not; keep the checkpoint where "
            "eval peaked."
        )
    if short:
        return (
            f"{OVERFITTING_LEAD}: eval acceptance peaked at {peak.at()} and fell {peak.fall:.2f} after it, so more "
            f"unique data is likely to help and more epochs are not; keep the {peak.checkpoint()}."
        )
    passes = traininglogs.passes_over(peak.last_x, own_volume) if peak.unit == "samples seen" else None
    # the last eval point is not the log's end: training may run on past it (walk AM: "Its 691K samples seen are
    # about 2.8 passes" of a log whose training ran to 742K, 3 passes)
    end = getattr(peak, "end_x", None)
    ran_on = (
        f"; training runs on to {human(end)} samples seen in the log, about "
        f"{traininglogs.passes_text(end / own_volume)} passes"
        if passes is not None and own_volume and end and human(end) != human(peak.last_x)
        else ""
    )
    over = (
        f" Its last eval point, at {human(peak.last_x)} samples seen, is about {traininglogs.passes_text(passes)} "
        f"passes over your {human(own_volume)} samples, not new data{ran_on}."
        if passes is not None and own_volume
        else ""
    )
    if passes is not None and own_volume and passes > traininglogs.MAX_PLAUSIBLE_EPOCHS:  # a ratio only (walk AT)
        over = (
            f" Its last eval point, at {human(peak.last_x)} samples seen, is {traininglogs.passes_text(passes)} times "
            f"your {human(own_volume)} samples: about as many passes over them, or your {human(own_volume)} samples "
            "are of another set than the one it trained on."
        )
    return (
        f"Your training log (Acceptance vs data) is overfitting: {peak.words()}.{over} More epochs over the same "
        f"samples lower held-out acceptance: keep the {peak.checkpoint()}, or stop training there. More unique data "
        "is likely to help, whatever the published drafts' trend says."
    )


def rising_words(passes: float | None, own_volume: float | None) -> str:
    """What a rising training log says of more data: agreement, unless it rose over passes of the same samples.
    Past ``traininglogs.MAX_PLAUSIBLE_EPOCHS`` the passes are only a ratio the page's volume note doubts, so both
    readings are said (walk AT: "about 30 passes of your 5K samples" of a log of 150K samples seen, no epochs, beside
    a 4,997-sample audit of another set)."""
    if passes is None or passes <= traininglogs.SEVERAL_PASSES or not own_volume:
        return RISING_AGREES
    if passes > traininglogs.MAX_PLAUSIBLE_EPOCHS:
        return (
            f"Your training log is still rising. Its {human(passes * own_volume)} samples seen are "
            f"{traininglogs.passes_text(passes)} times your {human(own_volume)} samples: either about as many passes "
            "over them (then more training on this data should still help, and the log does not say what new data "
            f"would add), or your {human(own_volume)} samples are of another set than the one it trained on (then it "
            "rose over new samples, which agrees: more data should help)."
        )
    return (
        f"Your training log is still rising, over about {traininglogs.passes_text(passes)} passes of your "
        f"{human(own_volume)} samples (samples seen, not new ones): more training on this data should still help; it "
        "does not show what new data would add."
    )


def missing_evidence(
    *,
    reference: str,
    own_volume: float | None,
    ref_volume: float | None,
    own_accept: float | None,
    acc: AcceptFacts,
    sizes_known: bool,
    has_runs: bool,
    measured_beside: bool = False,
    own_config: bool = True,
    ref_config_assumed: bool = False,
    other_architecture: str = "",
) -> tuple[str, ...]:
    """What keeps each gap (data, acceptance, size) from being measured, on whichever side it is missing.
    ``measured_beside``: the reference ran in your group, so its published acceptance is not needed;
    ``own_config``: False when your draft's config could not be read (then it is what keeps sizes apart);
    ``other_architecture``: why sizes are not compared with a reference of another architecture (no target known),
    said first."""
    out: list[str] = [other_architecture] if other_architecture else []
    if own_volume is None:
        out.append(
            "your training volume is missing (attach a dataset audit to your draft, or type its samples, in "
            "the sidebar)"
        )
    if ref_volume is None:
        out.append(f"{reference} publishes no training volume")
    if measured_beside:
        pass
    elif acc.ref_range is None:
        out.append(no_acceptance(reference, acc.benchmarks, acc.published_on))
    elif own_accept is None:
        out.append(
            "your draft has no measured acceptance length ("
            + (
                "no speculative run of your draft with one in its run group"
                if has_runs
                else "attach a run group in the sidebar"
            )
            + ")"
        )
    if other_architecture:
        pass
    elif not own_config:
        out.append("your draft's config could not be read, so sizes are not compared")
    elif not sizes_known:
        out.append(f"the registry has no config for {reference}, so sizes are not compared")
    elif ref_config_assumed:
        # walk BK3: "publishes no config" of a repo holding config.json; the registry's is assumed, the Hub's not read
        out.append(
            f"{reference}'s config is assumed, not the published config.json (not read), so sizes are not compared"
        )
    return tuple(out)


def _other_words(
    name: str,
    factor: float,
    size_ratio: float | None,
    accept_detail: str = "",
    size_scope: str = "outside the embedding",
) -> str:
    """A smaller gap in a few words that say which way it goes."""
    if name == "size" and size_ratio:
        return f"your draft is {times(factor)} {'larger' if size_ratio > 1 else 'smaller'} {size_scope}"
    if name == "training data":
        return f"{times(factor)} less training data"
    return accept_detail or f"the reference's acceptance is {times(factor)} yours"


def _factor_words(
    name: str,
    factor: float,
    size_ratio: float | None,
    accept_ratio: float | None,
    accept_detail: str = "",
    size_scope: str = "outside the embedding",
) -> str:
    if name == "size" and size_ratio:
        return f"your draft is {size_words(size_ratio)} the reference {size_scope}"
    if name == "acceptance length" and accept_detail:
        return accept_detail
    if name == "acceptance length" and accept_ratio:
        if accept_ratio > 1:
            return f"the reference's published acceptance is {factor:.2f} times your measured one"
        return f"your measured acceptance is {factor:.2f} times the reference's published one"
    return f"{factor:.1f} times"


def _alike_name(name: str, size_scope: str) -> str:
    return f"size {size_scope}" if name == "size" and size_scope != "outside the embedding" else name


LAYERS_SCOPE = "in its layers (outside the embedding and the lm_head)"


def size_gap(size: SizeFacts | None) -> tuple[float | None, str]:
    """The size ratio a gap is named from, and what it counts.

    Where the lm_heads differ, the layers alone: a head over the full vocabulary against a 32,000-token draft
    vocabulary is a choice of vocabulary, not of capacity, and Llama-3.3-70B's full-vocab head made walk L's
    draft "the largest gap is size" (2.6 times the reference) with the same layers."""
    if size is None or not size.ref_excluding_embedding:
        return None, "outside the embedding"
    ratio = size.own_excluding_embedding / size.ref_excluding_embedding
    if size.own_lm_head == size.ref_lm_head:
        return ratio, "outside the embedding"
    own_layers = size.own_excluding_embedding - size.own_lm_head
    ref_layers = size.ref_excluding_embedding - size.ref_lm_head
    if own_layers <= 0 or ref_layers <= 0:
        return ratio, "outside the embedding"
    return own_layers / ref_layers, LAYERS_SCOPE


def _draft_note(
    runs: Sequence[Any],
    by_draft: Any,
    pairs: Sequence[SideBySide],
    draft: str | None,
    mtp: NativeMtp | None = None,
) -> str | None:
    """``by_draft``'s note, with the runs of a published draft compared head to head said as such: "3 runs of
    another draft left out" stood under the side-by-side line that compares those very runs with yours. The run of
    the target's own MTP layers set against yours (``mtp``: ``native_mtp``) is said compared too (walk Z read only
    "1 run of another draft left out: #3 MTP (NEXTN)")."""
    from comparelib.models.draft import draft_match

    paired = {p.draft for p in pairs}
    theirs = [
        r
        for r in by_draft.left_out
        if not registry.is_mtp(r) and any(draft_match(str(getattr(r, "draft_model", None) or ""), h) for h in paired)
    ]
    mtp_said = ""
    compared = [] if mtp is None else sorted({b.mtp.id: b.mtp for b in (mtp, *mtp.batches)}.items())
    if mtp is not None:  # every MTP run compared, at each batch (walk AI named #4 "another draft left out")
        one = len(compared) == 1
        mtp_said = (
            f"{'Run' if one else 'Runs'} {', '.join(f'#{i}' for i, _ in compared)} "
            f"({registry.algorithm_label(mtp.mtp)}, the target's own MTP layers) {'is' if one else 'are'} not "
            f"counted as yours: {'it is' if one else 'they are'} set against yours above."
        )
    if not theirs and not mtp_said:
        return by_draft.note
    ids = {id(r) for r in theirs} | {id(r) for _, r in compared}
    rest = runs_of_draft([r for r in runs if id(r) not in ids], draft).note
    if not theirs:
        return f"{mtp_said} {rest}" if rest else mtp_said
    names = ", ".join(sorted(paired))
    one = len(theirs) == 1
    said = (
        f"{'Run' if one else 'Runs'} {', '.join(f'#{r.id}' for r in theirs)} of {names} "
        f"{'is' if one else 'are'} not counted as yours: {'it is' if one else 'they are'} compared with yours "
        # "side by side" is a published draft's on your server; another of your drafts is compared by its runs
        + ("side by side." if all(p.published for p in pairs) else "below, run by run.")
    )
    said = f"{said} {mtp_said}" if mtp_said else said
    return f"{said} {rest}" if rest else said


def unlike_reference(
    target: str | None,
    reference: str,
    ref_target: str | None,
    size_note: str = "",
    *,
    same_shape: bool = False,
    hidden: tuple[int, int] | None = None,
) -> str:
    """Why ``reference`` is no like-for-like yardstick for a draft of ``target``, in one sentence; "" when it is one.

    A draft for a target of another model family (``registry.family_of``; a target of no known family counts as
    another), or, with no target known, one of another architecture (``size_note``). A draft of the same family
    (the nearest of it: ``nearest_in_family``) is not flagged: the README's reference rule says which it is; nor is
    one of your draft's very shape (``same_shape``: hidden size and vocabulary) for a target of no known family, whose
    name says nothing against it (a private fine-tune of Kimi-K2 named acme/target, with a draft of Kimi's shape).
    A draft of the same family for another target is flagged where it is of another architecture: ``hidden`` (your
    draft's hidden size, the reference's) differ (walk BL3: the Qwen3-Coder-480B draft, hidden 6,144, was "the
    largest gap is size" for a Qwen3.5-397B draft of hidden 4,096)."""
    from comparelib.models.draft import drafts_for_target, family_words, split_native
    from comparelib.models.registry import family_of

    if not target:
        return f"Not like for like: {size_note}, so no gap is named against it" if size_note else ""
    if not ref_target or (model_id(ref_target) or "").lower() == (model_id(target) or "").lower():
        return ""
    own_family = family_of(target)
    other_hidden = bool(hidden and hidden[0] != hidden[1])
    if own_family and own_family == family_of(ref_target) and not other_hidden:
        return ""
    if not own_family and same_shape:
        return ""
    arch = ""
    if own_family and own_family == family_of(ref_target) and hidden:  # the family's, of another architecture
        arch = (
            f" (same family, {family_words(own_family)}, but of another architecture: hidden size {hidden[1]:,} "
            f"against your draft's {hidden[0]:,})"
        )
    if split_native(target, drafts_for_target(model_id(target)))[0]:  # a draft for it exists: another was picked
        return (
            f"{reference} is a draft for {ref_target}, not for your target {target}{arch}, so gaps are not like for "
            "like"
        )
    return (
        f"No published draft for {target}; the nearest reference is {reference}, a draft for {ref_target}{arch}, so "
        "gaps are not like for like"
    )


def unlike_sentence(
    why: str,
    *,
    data_ratio: float | None,
    own_volume: float | None,
    ref_volume: float | None,
    ref_floor: bool,
    size_ratio: float | None,
    size_scope: str,
    accept_ratio: float | None,
    accept_detail: str,
    missing: Sequence[str],
    ref_doubt: str = "",
) -> str:
    """The headline against a reference that is no like-for-like yardstick (``unlike_reference``): why, then how it
    differs, as differences, never "the largest gap" (walk V). ``ref_doubt``: as ``largest_gap``'s."""
    parts: list[str] = []
    if data_ratio and own_volume and ref_volume:
        least = "at least " if ref_floor else ""
        parts.append(
            f"{least}{times(max(data_ratio, 1 / data_ratio))} {'less' if data_ratio > 1 else 'more'} training data "
            f"({human(own_volume)} samples against {least}{human(ref_volume)}"
            + (f", {ref_doubt}" if ref_doubt else "")
            + ")"
        )
    if size_ratio:
        parts.append(f"your draft is {size_words(size_ratio)} it {size_scope}")
    if accept_ratio:
        parts.append(accept_detail or f"acceptance differs by a factor of {max(accept_ratio, 1 / accept_ratio):.2f}")
    said = f"{why}."
    if parts:
        said += f" How your draft differs from it, not a gap to close: {'; '.join(parts)}."
    if missing:
        said += f" Not known yet: {'; '.join(missing)}."
    return said


@dataclass(frozen=True)
class Answer:
    """Everything the Overview page states about one draft against one published reference."""

    reference: str
    size: SizeFacts | None  # None: the reference has no config here, so its size is not known
    accept: AcceptFacts
    live: LiveFacts | None
    best_run: Any | None  # the best pair's speculative run, else the fastest speculative run (live speed)
    own_accept: float | None  # its acceptance length
    own_setting: str | None  # its setting key
    own_volume: float | None
    ref_volume: float | None
    data_ratio: float | None  # reference volume / own volume
    size_ratio: float | None  # own / reference, outside the embedding
    accept_ratio: float | None  # reference's highest acceptance / own
    gap: str  # the largest gap's name; "" when none can be named
    gap_sentence: str
    target: TargetNotice | None = None  # "your draft" is a target model: no gap is named
    curve_verdict: str | None = None  # the user's own training log ("rising" | "plateau" | ...), when loaded
    curve_note: str | None = None  # what the log says against the published evidence
    runs: tuple[Any, ...] = ()  # the runs the answer read: the group less another target's and another draft's
    runs_note: str | None = None  # the runs left out (served with another target), or the targets a group mixes
    draft_note: str | None = None  # the runs of another draft (or the target's MTP) left out, in one sentence
    own: OwnAccept | None = None  # the run your acceptance is read from, and why that one (``own_acceptance``)
    # published drafts for your target measured in your group at a setting yours ran too (``side_by_side``)
    side_by_side: tuple[SideBySide, ...] = ()
    # the group's other drafts, not published (your v1 beside your v2), measured at a setting yours ran too
    others_beside: tuple[SideBySide, ...] = ()
    ref_volume_floor: bool = False  # ``ref_volume`` is a lower bound (only part of the reference's data is counted)
    # why no size gap is named though both sizes are counted ("your draft's target is not known and X is a draft of
    # another architecture (hidden size ...)"): its hidden size or vocabulary differs; "" otherwise
    size_note: str = ""
    # why the reference is no like-for-like yardstick: a draft for another target's model family, or (no target
    # known) of another architecture, said in the headline, where no "largest gap" is named against it (walk V:
    # "the largest gap is training data" of a GLM-4.5-Air draft against the Kimi-K2 draft); "" otherwise
    unlike_reference: str = ""
    target_model: str | None = None  # the target the answer was read for (named, set, or its runs'); None: unknown
    # the target's own MTP layers measured in your group, set against your draft's best run (``native_mtp``)
    native_mtp: NativeMtp | None = None
    # your training log reads the volume in use as passes over fewer unique samples (``curves.passes_read``)
    volume_read: Any = None

    @property
    def headline(self) -> bool:
        """True when the answer names a real gap (the page's title); False: a plain statement instead."""
        return bool(self.gap) and self.target is None


RISING_AGREES = "Your training log is still rising, which agrees: more data should help."  # in the headline
CURVE_NOTES = {
    "plateau": "Your training log (Acceptance vs data) has plateaued: by your own evidence, more of the same data "
    "is unlikely to raise acceptance, whatever the published drafts' trend says.",
    "rising": "Your training log (Acceptance vs data) is still rising: more training or data should still help.",
    "overfitting": overfitting_words(None),
    "too-few-points": "Your training log (Acceptance vs data) has too few points to say whether it still rises.",
}


def _measured_against(
    pairs: Sequence[SideBySide], reference: str, mine: OwnAccept | None, acc: AcceptFacts | None = None
) -> tuple[float, bool, str, str] | None:
    """(reference's acceptance / yours, like for like, the words, why not like for like) from the reference measured
    side by side with your draft: a measured gap, which outweighs a published one.

    A pair on the same prompts first, then the pair at your acceptance's run. A pair on other prompts (walk AD: the
    lmsys import on random 256/128 prompts beside your run on the bundled ones) is an indicative gap, said so; it
    still outweighs the published figure, which differs in its prompts too and in its server and batch size, unless
    that figure is on your run's very prompts (your prompt set is the benchmark it was read on): then the published
    comparison stands and the pair is said on its own line only. A temperature one run did not record is said."""
    from comparelib.values import run_param

    alike = [p for p in pairs if p.draft == reference and _accept_of(p.theirs) and _accept_of(p.yours)]
    if not alike:
        return None
    p = min(alike, key=lambda q: (q.other_prompts, not (mine is not None and q.yours.id == mine.run.id)))
    if p.other_prompts and acc is not None and mine is not None and not acc.other_prompts:
        own_prompts = str(run_param(mine.run, "prompt_set") or "").strip().lower()
        if own_prompts and own_prompts in {b.lower() for b, _ in acc.by_benchmark}:
            return None  # the published figure is on your prompts: like for like in them, the pair is not
    theirs, yours = _accept_of(p.theirs), _accept_of(p.yours)
    words = (
        f"{reference} measured {theirs:.2f} against your {yours:.2f} side by side ({p.setting_words}; runs "
        f"#{p.theirs.id} and #{p.yours.id})"
    )
    unsaid = ""
    for who, other in ((p.theirs, p.yours), (p.yours, p.theirs)):
        if run_param(who, "temperature") is None and run_param(other, "temperature") is not None:
            by = speedup.run_source(who)
            unsaid = (
                f"temperature not recorded {'by ' + by + ' ' if by != speedup.APP_SOURCE else 'for '}(run #{who.id})"
            )
    if p.other_prompts:
        why = next(a for a in p.apart if a.startswith("other prompts"))
        return theirs / yours, False, words, f"on {why}" + (f"; {unsaid}" if unsaid else "")  # type: ignore[operator]
    if unsaid:
        words += f"; {unsaid}"
    return theirs / yours, True, words, ""  # type: ignore[operator]


def answer(
    own: Entry | None,
    ref: Entry | registry.PublishedDraft,
    runs: Sequence[Any],
    own_volume: float | None,
    *,
    own_name: str = "our draft",
    results: pd.DataFrame | None = None,
    curve_verdict: str | None = None,
    own_target: str | None = None,
    draft: str | None = None,
    curve_seen: float | None = None,
    curve_peak: Any = None,
    curve_ceiling: str | None = None,
    volume_read: Any = None,
) -> Answer:
    """The Overview's answer for ``own`` against the published draft ``ref`` (both from ``load_entry``; a registry
    entry without a config is its ``PublishedDraft``: sizes are then not compared, data and acceptance are),
    the draft's run group ``runs``, its training volume (None when not measured) and the verdict of its
    own training log (``curves``), which outweighs the published trend where they disagree.

    Runs served with another target model than the draft's (``own_target``; default: the one its config or the
    registry names, else its runs') are left out and named in ``runs_note``: their pair is another model's.
    With ``draft`` (your draft's name; None for the example) only its own runs answer: runs of another draft or of
    the target's own MTP layers are left out and named in ``draft_note`` (``draft.runs_of_draft``); a published
    draft for your target measured at a setting yours ran too is compared with yours in ``side_by_side``.
    ``own`` None: your draft's config could not be read (a private or gated repo without a token); sizes are then
    not compared, and the rest answers from the runs and the volume. ``volume_read`` (``curves.passes_read``): your
    training log reads the volume as passes over fewer unique samples; where those would be a data gap the volume
    is not, the headline says so (``passes_caveat``)."""
    target_model = own_target or (own.target_label if own is not None else None) or target_from_runs(runs, draft)
    by_target = runs_for_target(runs, target_model)
    by_draft = runs_of_draft(by_target.kept, draft)
    # a published draft's runs beside yours: compared, what differs besides the setting said (walk AD)
    pairs = side_by_side(by_target.kept, draft, target_model, qualified=True)
    others = side_by_side(by_target.kept, draft, target_model, published=False, qualified=True)  # your v1 beside v2
    group_given = bool(runs)  # a group attached whose runs are none of your draft's (walk Z: the target's MTP alone)
    mtp = native_mtp(by_target.kept, draft)  # the target's own MTP layers against your draft (walk Z)
    runs = by_draft.kept
    published: registry.PublishedDraft | None
    if isinstance(ref, registry.PublishedDraft):
        reference, published, size = ref.hub_id, ref, None
    else:
        reference = ref.published.hub_id if ref.published is not None else ref.label
        published = ref.published
        size = size_facts(own, ref, own_name, reference) if own is not None else None
    ref_volume = float(published.train_samples) if published and published.train_samples else None
    # only part of its data counted (the rest not stated): at least that many, said so, where none is published
    ref_floor = ref_volume is None and bool(published and published.train_samples_min)
    if ref_floor and published is not None and published.train_samples_min:
        ref_volume = float(published.train_samples_min)
    live = live_facts(runs)
    spec_runs = [r for r in runs if not r.is_baseline and r.output_tokens_per_s]
    best = None
    if live is not None:
        best = next((r for r in spec_runs if r.id == live.run_id), None)
    if best is None and spec_runs:
        best = max(spec_runs, key=lambda r: r.output_tokens_per_s)
    # your acceptance: the run at the reference's published setting, else its chain, else the best pair's (one rule,
    # Acceptance vs data's too)
    mine = own_acceptance(
        runs, reference_settings(reference, results), draft=draft, engine=reference_engine(reference, results)
    )
    own_accept = mine.value if mine is not None else None
    own_key = mine.setting if mine is not None else None
    acc = accept_facts(own_accept, own_key, reference, results=results)
    data_ratio = (ref_volume / own_volume) if ref_volume and own_volume else None
    size_ratio = (
        size.own_excluding_embedding / size.ref_excluding_embedding if size and size.ref_excluding_embedding else None
    )
    gap_size, size_scope = size_gap(size)
    # a reference whose config the registry only assumes (not published): its size is no evidence of a gap, or of none
    # only counts from the registry's own copy of a config (not one read from the Hub: walk AN) are so qualified
    from_registry = not isinstance(ref, registry.PublishedDraft) and ref.kind == "registry"
    assumed = from_registry and bool(published and published.config_confidence.lower().startswith("low"))
    if assumed:
        gap_size = None
    elif from_registry and published is not None and not published.config_read and gap_size is not None:
        # counted from a template config, not the draft's own: a size gap named from it says so (walk R2's headline
        # "your draft is 75% the size of the reference" was of SpecForge's template, not the published draft)
        kind = published.config_basis.split(" (")[0].split(",")[0]  # "a SpecForge template config"
        size_scope += f" (the reference's size estimated from {kind}, not its published config)"
    # no target known and a reference of another architecture: its size says nothing of what your draft lacks
    size_note = ""
    mine_shape = draft_shape(own)
    theirs_shape = None if isinstance(ref, registry.PublishedDraft) else draft_shape(ref)
    if target_model is None and mine_shape and theirs_shape and mine_shape != theirs_shape:
        gap_size = None
        size_note = (
            f"your draft's target is not known and {reference} is a draft of another architecture (hidden size "
            f"{theirs_shape[0]:,} and vocabulary {theirs_shape[1]:,}, against your {mine_shape[0]:,} and "
            f"{mine_shape[1]:,})"
        )
    # the reference's highest figure the headline's factor reads (at your chain where it publishes there), not the
    # range's top over every setting it spans (walk BI: 1.42, GSM8K 2.56 at steps=2 over our 1.80 at steps=1)
    ref_top = max((v for _, v in acc.by_benchmark), default=acc.ref_hi)
    acc_ratio = (ref_top / own_accept) if own_accept and ref_top else None
    same_setting, accept_detail = acc.same_setting, accept_comparison(own_accept, acc)
    measured = _measured_against(pairs, reference, mine, acc)
    accept_unlike = (  # its figures are on other benchmarks than those asked for: an indicative gap (walk U)
        f"on other prompts (it publishes {'/'.join(bench_label(b) for b in acc.benchmarks)} only, none on "
        f"{'/'.join(bench_label(b) for b in acc.asked)})"
        if acc.other_prompts
        else ""
    )
    own_prompts = str(run_param(mine.run, "prompt_set") or "") if mine is not None else ""
    read_on = [b for b in acc.benchmarks if b in {x for x, _ in acc.by_benchmark}] or list(acc.benchmarks)
    if same_setting and own_prompts and own_prompts.lower() not in {b.lower() for b in read_on}:
        # the published setting on your own prompts: indicative, as the Acceptance length line says (walk AQ's
        # headline set the 'bundled' prompts' 3.20 against GSM8K's 3.44 as "acceptance length (within 7%)")
        same_setting = False
        accept_unlike = (
            f"on other prompts (your {own_prompts!r} prompts against their "
            f"{'/'.join(bench_label(b) for b in read_on)})"
        )
    # walk BQ 3: your acceptance on recorded prompts other than the reference's figure's is not compared, as the
    # plan's more-data row says of the same two figures (``values.prompts_apart``); "ahead" was said beside it
    top_bench = max(acc.by_benchmark, key=lambda bv: bv[1])[0] if acc.by_benchmark else None
    accept_apart = (
        f"Acceptance is not compared: ours {own_accept:.2f} (run #{mine.run.id}) on your {own_prompts!r} prompts, "
        f"the reference's {ref_top:.2f} on {bench_label(top_bench)}: not on one scale (acceptance depends on the "
        "prompts)"
        if mine is not None
        and own_accept
        and ref_top
        and top_bench
        and prompts_apart(own_prompts, top_bench) is not None
        else ""
    )
    # a tree's acceptance against published chain figures (or the reverse): said, never weighed (walk AM)
    accept_shape = mine.unlike if mine is not None else ""
    if measured is not None:  # the reference measured beside yours outweighs its published figures
        acc_ratio, same_setting, accept_detail, accept_unlike = measured
        accept_shape = accept_apart = ""
    target = target_notice(own) if own is not None else None
    unlike = unlike_reference(
        target_model,
        reference,
        published.target_model if published else None,
        size_note,
        same_shape=bool(mine_shape and theirs_shape and mine_shape == theirs_shape),
        hidden=(mine_shape[0], theirs_shape[0]) if mine_shape and theirs_shape else None,
    )

    def missing(other_architecture: str) -> tuple[str, ...]:
        """What the answer lacks (``missing_evidence``); the two headlines word the unknown target differently."""
        return missing_evidence(
            reference=reference,
            own_volume=own_volume,
            ref_volume=ref_volume,
            own_accept=own_accept,
            acc=acc,
            sizes_known=size is not None,
            ref_config_assumed=assumed,
            has_runs=group_given,
            measured_beside=measured is not None,
            own_config=own is not None,
            other_architecture=other_architecture,
        )

    if target is not None:
        gap, sentence = "", target.sentence
    elif unlike:  # another target's (family's) draft, or another architecture's: differences, no "largest gap"
        gap, sentence = (
            "",
            unlike_sentence(
                unlike,
                data_ratio=data_ratio,
                own_volume=own_volume,
                ref_volume=ref_volume,
                ref_floor=ref_floor,
                size_ratio=gap_size,
                size_scope=size_scope,
                accept_ratio=acc_ratio,
                accept_detail=(
                    f"{accept_detail or f'acceptance differs by a factor of {max(acc_ratio, 1 / acc_ratio):.2f}'}, "
                    f"but {accept_shape} (not like for like)"
                    if accept_shape and acc_ratio
                    else accept_detail
                ),
                missing=missing(f"your draft's target, to compare like for like: {SET_TARGET}" if size_note else ""),
                ref_doubt=volume_doubt(published) if published is not None and ref_volume else "",
            ),
        )
    else:
        gap, sentence = largest_gap(
            data_ratio=data_ratio,
            size_ratio=gap_size,
            size_scope=size_scope,
            accept_ratio=acc_ratio,
            accept_same_setting=same_setting,
            own_volume=own_volume,
            ref_volume=ref_volume,
            ref_floor=ref_floor,
            curve_verdict=curve_verdict,
            curve_passes=curve_seen / own_volume if curve_seen and own_volume else None,
            curve_peak=curve_peak,
            curve_ceiling=curve_ceiling,
            accept_detail=accept_detail,
            accept_unlike=accept_unlike,
            accept_shape=accept_shape,
            accept_apart=accept_apart,
            missing=missing(f"{size_note}, so sizes are not compared: {SET_TARGET}" if size_note else ""),
            ref_doubt=volume_doubt(published) if published is not None and ref_volume else "",
        )
        if size_note and gap:  # a gap named from data or acceptance: sizes still said not compared, and why
            sentence += f" Sizes are not compared: {size_note}; {SET_TARGET}."
    if target is None and measured is None and mine is not None and mine.apart:  # the tree set aside (walk AM)
        compared = f": {accept_detail}" if accept_detail and accept_detail not in sentence else ""
        unlike_said = "" if "not like for like" in sentence else " (not like for like)"  # walk BK2
        sentence += f" {mine.apart}{unlike_said}{compared}; {mine.aside}"
    doubt = volume_doubt(published) if published is not None and ref_volume else ""
    if target is None and (caveat := passes_caveat(volume_read, ref_volume, gap, ref_floor, doubt)):
        sentence += f" {caveat}"
    if target is None and live is not None and live.all_lose:  # walk AW: every pair lost, said below the headline only
        which = "every speculative run measured" + (" with a comparable baseline" if live.unpaired else "")
        sentence += (
            f" Live speed: {which} was slower than its comparable baseline beyond run-to-run noise (the smallest "
            f"loss: run #{live.run_id} against #{live.baseline_run_id}, {live.speedup:.2f}x)."
        )
    return Answer(
        reference=reference,
        size=size,
        accept=acc,
        live=live,
        best_run=best,
        own_accept=own_accept,
        own_setting=own_key,
        own_volume=own_volume,
        ref_volume=ref_volume,
        ref_volume_floor=ref_floor,
        data_ratio=data_ratio,
        size_ratio=size_ratio,
        accept_ratio=acc_ratio,
        gap=gap,
        gap_sentence=sentence,
        target=target,
        curve_verdict=curve_verdict,
        # the log's verdict once: a headline that says the rising log agrees needs no note repeating it
        curve_note=None
        if "Your training log is still rising" in sentence
        else overfitting_words(curve_peak, own_volume)
        if curve_verdict == "overfitting"
        else fell_words(curve_peak)
        if curve_verdict == "plateau" and curve_peak is not None
        else ceiling_note(curve_ceiling)
        if curve_verdict == "plateau" and curve_ceiling
        else CURVE_NOTES.get(curve_verdict or ""),
        size_note=size_note,
        unlike_reference=unlike,
        target_model=target_model,
        runs=tuple(runs),
        runs_note=by_target.note,
        draft_note=_draft_note(by_target.kept, by_draft, [*pairs, *others], draft, mtp),
        own=mine,
        side_by_side=pairs,
        others_beside=others,
        native_mtp=mtp,
        volume_read=volume_read,
    )
