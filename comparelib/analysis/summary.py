"""Overview's answer in words: what the Overview page and ``python -m comparelib overview`` both say.

The page and the command gather the same inputs with these functions (the reference offered, your draft's entry
read with its target, the reference's entry) and state the same answer from them: the headline, the notes said
around it, the bullets (size, training volume, acceptance, live speed, runs beside yours), the volume gap the
published trend predicts, and the plan. A bullet's numbers link to the page that produced them through ``link``;
the command's ``no_link`` leaves the text alone, so the two cannot word an answer differently.

Nothing here loads pandas at import: the page draws this answer before pandas loads (``volume_gap`` and
``plan_for`` load it when called).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from comparelib import values
from comparelib.analysis import overview, speedup
from comparelib.errors import CompareError
from comparelib.models import comparison, registry
from comparelib.models.comparison import Entry
from comparelib.models.draft import DraftTarget, OwnDraft, drafts_for_target, split_native

if TYPE_CHECKING:
    import pandas as pd

    from comparelib.analysis import plan

# (text, page, query) -> the text as shown: a markdown link on the page, the text alone on the command line
Link = Callable[..., str]


def no_link(text: str, page: str, query: Sequence[tuple[str, str]] | None = None) -> str:
    """``Link`` for plain text: the text alone."""
    del page, query
    return text


TARGET_FROM = {
    "named": "named by the draft",
    "published": "the registry's entry for this published draft",
    "card": "the base_model of its model card",
    "runs": "the model its runs were served with",
    "compare": "set on Compare",
}


@dataclass(frozen=True)
class Said:
    """One thing said beside the answer, and how the page shows it: "warning", "caption", "info", "error" (a
    part that could not be worked out), or "predicted" (a fit's prediction, folded away on the page)."""

    kind: str
    text: str


def reference_options(drafts: Sequence[str], suggested: overview.Reference, own_target: str | None) -> list[str]:
    """The published drafts Overview offers as the reference: those with a countable config (``drafts``:
    ``overview.reference_choices``), then the suggested one and your target's published drafts without one
    (compared on data and acceptance only)."""
    for_target = split_native(own_target, drafts_for_target(own_target))[0]
    return list(drafts) + [d for d in dict.fromkeys([suggested.hub_id, *for_target]) if d not in drafts]


# ``comparison.UncountedTarget``'s words for a target of an architecture the counter does not know, read from its
# config alone (``load_entry(with_header=False)``): its checkpoint headers, its total, are read again (``read_entry``)
HEADERS_NOT_READ = "only its config was read here"


def read_entry(source: str, target: str | None = None, *, with_card: bool = False) -> Entry:
    """A draft's entry as Overview (the page and ``overview``/``plan`` on the command line) reads it: its config and
    its target's, no header and no card, as ``load_entry(with_header=False)`` reads them; but a target of an
    architecture the parameter counter does not know has its total read from its checkpoint headers, as Compare
    drafts reads it (walk BL4: Overview said the headers of Qwen/Qwen3.5-397B-A17B "were not read", so its size was
    left out, beside Compare's 402,941,918,464 read from them). That entry is read again with the headers (the
    draft's too, as Compare reads it); one whose headers cannot be read keeps the first, which says so."""
    entry = comparison.load_entry(source, target=target, with_header=False, with_card=with_card)
    if entry.target_count is None and entry.target_stored is None and HEADERS_NOT_READ in (entry.target_note or ""):
        try:
            again = comparison.load_entry(source, target=target, with_card=with_card)
        except CompareError:  # the draft's own checkpoint not whole: the config's answer stands
            return entry
        return again if again.target_stored is not None or again.target_count is not None else entry
    return entry


def with_target(
    own: Entry | None, own_target: str | None, load: Callable[[str], Entry]
) -> tuple[Entry | None, list[Said]]:
    """Your draft's entry read again with ``own_target`` (``load(target)``) where its config names no target, so
    the size of the target is known (the plan costed generation without it and took another family's AL), and
    what is said about it: a target that could not be read, or that was read and cannot be counted."""
    said: list[Said] = []
    if own is not None and own_target and not own.target_label:
        try:
            own = load(own_target)
        except CompareError as exc:
            said.append(
                Said(
                    "caption",
                    f"Your draft's target {own_target} could not be read ({exc}); what needs its size is left out.",
                )
            )
    if own is not None and own.target_count is None and own.target_note:
        said.append(Said("caption", f"Your draft's target: {own.target_note}."))  # read, not countable: why
    return own, said


def read_reference(
    reference: str, drafts: Sequence[str], load: Callable[[str], Entry]
) -> tuple[Entry | registry.PublishedDraft, str]:
    """The reference as the answer compares it, and why its size is not known ("" where it is): its entry from the
    registry's config (``load(registry source)``) where the app ships one (``drafts``), else from its Hub config as
    Compare drafts reads it (``load(hub id)``, the session's token where given: walk AN said "not known" of a public
    repo Compare had counted), else its registry entry, compared on data and acceptance only."""
    if reference in drafts:
        return load(comparison.registry_source(reference)), ""
    try:
        return load(reference), ""
    except CompareError as exc:
        return registry.get_draft(reference), unread_why(exc)


def reference_entry(
    reference: str, drafts: Sequence[str], load: Callable[[str], Entry]
) -> Entry | registry.PublishedDraft:
    """``read_reference``'s entry alone."""
    return read_reference(reference, drafts, load)[0]


def unread_why(exc: CompareError) -> str:
    """Why a reference's Hub config was not read, in a few words (the error's own text says what to do)."""
    from comparelib.errors import GatedRepoError, OfflineError, RepoNotFoundError

    if isinstance(exc, GatedRepoError):
        return "its repository is gated (accept its terms on the Hub, and give the token of an account that did)"
    if isinstance(exc, RepoNotFoundError):
        return "its repository was not found (or is private, and no token that can see it was given)"
    if isinstance(exc, OfflineError):
        return "the Hub was not reached"
    return str(exc).rstrip(".")


def reference_why(why: str, ref: Entry | registry.PublishedDraft) -> str:
    """A suggested reference's reason (``overview.Reference.why``), without "its size is not known" once its
    config was read from the Hub (``read_reference``)."""
    if isinstance(ref, registry.PublishedDraft) or overview.NO_CONFIG not in why:
        return why
    return why.replace(
        overview.NO_CONFIG, " The registry has no config for it; its size is counted from its Hub config."
    )


def _size_basis(reference: str, not_compared: str = "", hub_read: bool = False) -> str:
    """How the two sizes were counted: a registry config that is only assumed is said so, and a reference of
    another architecture (no target known: ``Answer.size_note``) too. ``hub_read``: the reference's own config was
    read from the Hub (``read_reference``), so what the registry's copy is does not matter."""
    if not_compared:
        return f"counted from the configs; {not_compared}, so no size gap is named"
    if hub_read:
        return "counted from the configs (the reference's read from the Hub)"
    ref = registry.get_draft(reference)
    if ref.config_confidence.lower().startswith("low"):
        # the Hub repo may well hold a config.json: the registry's assumed one is used, and that one was not read
        # (walk BK3: "assumed, not published" of a repo with a config.json; Compare's words)
        return (
            f"counted from the configs; {reference}'s is assumed, not the published config.json (not read), so no "
            "size gap is named"
        )
    if not ref.config_read:  # walk R2: a SpecForge template's count read as the published draft's own
        return f"counted from the configs; {reference}'s is estimated from {ref.config_basis}"
    return "counted from the configs"


def _layers_words(size: overview.SizeFacts) -> str:
    """Where the lm_heads differ, the layers' ratio the answer names a size gap from (``overview.size_gap``):
    walk Q's headline said "1.59x smaller in its layers" above "ours is 90% the size of the reference"."""
    ratio, scope = overview.size_gap(size)
    if ratio is None or scope != overview.LAYERS_SCOPE:
        return ""
    # walk AL: the EAGLE-1 reference has no head of its own, not "another draft vocabulary" (both 32,000 tokens)
    whose = "our" if not size.ref_lm_head else "the reference's" if not size.own_lm_head else "its"
    why = size.heads_differ or "the lm_heads differ"
    return f" with {whose} lm_head; {overview.size_words(ratio)} it {scope}, the figure the answer uses ({why})"


@dataclass(frozen=True)
class Summary:
    """Overview's answer for one draft against one reference, in the words the page and the command show."""

    answer: overview.Answer
    own_volume: float | None
    volume_source: str  # where ``own_volume`` comes from, or why there is none (``OwnDraft.training_samples``)
    notes: tuple[Said, ...]  # said under the headline, before the bullets
    lines: tuple[str, ...]  # the bullets, markdown ("- **Size ...:** ..."), numbers through ``link``

    @property
    def headline(self) -> str:
        return self.answer.gap_sentence

    @property
    def headline_kind(self) -> str:
        """ "gap" (a real gap named: the page's subheader), "statement" (none can be named: an info box), or
        "target" (your draft is a target model: a warning, and nothing else is answered)."""
        if self.answer.target is not None:
            return "target"
        return "gap" if self.answer.headline else "statement"


def summarise(
    draft: OwnDraft,
    own: Entry | None,
    ref: Entry | registry.PublishedDraft,
    reference: str,
    runs: Sequence[Any],
    volumes: Sequence[Mapping[str, Any]],
    *,
    target: DraftTarget,
    suggested: overview.Reference,
    curve: Any = None,
    link: Link = no_link,
    ref_unread: str = "",
) -> Summary:
    """Overview's answer (``overview.answer``) for ``draft`` (its entry ``own``, None when its config could not be
    read; its run group ``runs``; the stored training ``volumes``) against ``reference`` (its entry ``ref``:
    ``reference_entry``), for the target ``target`` (``models.draft.target_of``), weighing the training log's
    learning ``curve`` (the log loaded on Acceptance vs data, else the one kept with the draft; None: no log).
    ``suggested``: the reference Overview suggested (``overview.default_reference``), whose reason is said when it
    was chosen by shape. ``ref_unread``: why the reference's Hub config was not read (``read_reference``)."""
    own_target = target.model
    own_volume, vol_src = draft.training_samples(volumes)
    seen = [float(p.samples_seen) for p in curve.points if p.samples_seen] if curve is not None else []
    read = None
    if curve is not None and own_volume:  # a loaded log: its module (and pandas) is imported already
        from comparelib.analysis.curves import passes_read

        read = passes_read(curve, own_volume)  # the volume as samples seen over passes (walk AC)
    answer = overview.answer(
        own,
        ref,
        runs,
        own_volume,
        curve_verdict=getattr(curve, "verdict", None) if curve is not None else None,
        curve_seen=max(seen, default=None),  # a log over passes of your samples is not evidence of new data
        curve_peak=getattr(curve, "peak", None),  # where an overfitting log's eval peaked before it fell
        curve_ceiling=curve.ceiling_words() if hasattr(curve, "ceiling_words") else None,  # rising, near its ceiling
        own_target=own_target,
        draft=draft.match_name,  # only your draft's runs answer; another draft's (or the target's MTP) are named
        volume_read=read,
    )
    if answer.target is not None:  # "your draft" is a target model: nothing else is answered
        return Summary(answer, own_volume, vol_src, (), ())
    notes: list[Said] = []
    if not own_target and reference == suggested.hub_id and suggested.basis == "shape":
        notes.append(
            Said("caption", reference_why(suggested.why, ref))
        )  # how the reference was chosen with no target named
    if answer.curve_note:
        notes.append(
            Said("warning" if answer.curve_verdict in ("plateau", "overfitting") else "caption", answer.curve_note)
        )
    if curve is not None:  # a loaded log: its module (and pandas) is imported already
        from comparelib.analysis.curves import volume_note

        if said := volume_note(curve, own_volume, f"your training volume, {vol_src}"):
            notes.append(Said("warning", said))
    if draft.volume_of_another and own_volume:  # an audit stored under another draft's name answers for this one
        notes.append(
            Said(
                "warning",
                f"The training volume used here ({values.human(own_volume)} samples) is the audit stored under "
                f"{draft.volume_of_another}, another draft's name. If it is not this draft's data, pick this draft's "
                "own audit in the sidebar or attach one on Dataset audit.",
            )
        )
    if answer.runs_note:  # runs of the group served with another target: not in the answer, and named
        notes.append(Said("warning", answer.runs_note))
    if answer.native_mtp is not None:  # the target's own MTP layers measured beside your draft (walk Z): faster
        # is what a user choosing what to serve must read first; slower, one short clause
        notes.append(Said("warning" if answer.native_mtp.faster else "caption", answer.native_mtp.sentence))
    if answer.draft_note:  # runs of another draft or of the target's own MTP layers: not your draft's, and named
        notes.append(Said("caption", answer.draft_note))
    hub_read = not isinstance(ref, registry.PublishedDraft) and ref.kind == "hub"  # its Hub config, not the registry's
    lines = _lines(draft, own, reference, answer, target, vol_src, link, ref_unread, hub_read)
    return Summary(answer, own_volume, vol_src, tuple(notes), tuple(lines))


def _published_accept(draft: OwnDraft, link: Link) -> str | None:
    """A published draft pasted as yours, with no run of it measured: its own published acceptance, named as
    published (benchmarks, setting, source), not as measured; None for any other draft or one that publishes none.
    It read "ours missing" beside a figure the registry holds (as its training volume is the published one)."""
    pub = draft.published
    if pub is None:
        return None
    facts = overview.accept_facts(None, None, pub.hub_id)
    words = facts.ref_range_words
    if words is None:
        return None
    on = {b.lower() for b in facts.benchmarks}
    sources = sorted(
        {
            str(rec.get("source"))
            for rec in registry.results_records()
            if rec.get("hub_id") == pub.hub_id
            and str(rec.get("benchmark") or "").lower() in on
            and values.number(rec.get("accept_length")) is not None
            and rec.get("source")
        }
    )
    # each setting's own figures, named with it where there are several (walk AT: the 7-step figures, each benchmark's
    # highest, read as the 3-step ones)
    per = [
        (label, ", ".join(f"{values.bench_label(b)} {v:.2f}" for b, v in figs)) for label, figs in facts.per_setting
    ]
    each = per[0][1] if len(per) == 1 else "; ".join(f"at {label}: {figs}" for label, figs in per)
    return (
        f"{words} (published, not measured: {pub.hub_id}'s own figures"
        + (f", {each}" if each else "")
        + (f"; source {'; '.join(sources)}" if sources else "")
        + f"; {link('benchmark it', 'bench')} to measure yours)"
    )


def _lines(
    draft: OwnDraft,
    own: Entry | None,
    reference: str,
    answer: overview.Answer,
    target: DraftTarget,
    vol_src: str,
    link: Link,
    ref_unread: str = "",
    hub_read: bool = False,
) -> list[str]:
    """The answer's bullets: your draft, size, training volume, acceptance, live speed, runs measured beside it."""
    runs_group = draft.group
    own_target = target.model
    size, acc, live, best = answer.size, answer.accept, answer.live, answer.best_run
    own_volume, ref_volume, data_ratio = answer.own_volume, answer.ref_volume, answer.data_ratio
    lines = [
        (
            f"- **Your draft:** {own.label}"
            + (f" (commit `{own.commit_sha[:7]}`)" if own.commit_sha else "")
            + f" · architecture `{own.spec.architecture}`"
            if own is not None
            else f"- **Your draft:** {draft.short} · config not read (see above)"
        )
        + (
            f" · target `{own_target}` ({TARGET_FROM.get(target.origin, target.origin)})."
            if own_target
            else " · target not known."
        ),
    ]
    if size is not None:
        compare_q = [("m", draft.source), ("m", reference if hub_read else comparison.registry_source(reference))]
        lines += [
            f"- **Size outside the embedding** ({_size_basis(reference, answer.size_note, hub_read)}): ours "
            f"{link(f'{size.own_excluding_embedding:,}', 'compare', compare_q)}, "
            f"{reference} {link(f'{size.ref_excluding_embedding:,}', 'compare', compare_q)}"
            + (
                f": ours is {overview.size_words(answer.size_ratio)} the reference{_layers_words(size)}. "
                if answer.size_ratio and not answer.size_note  # another architecture's size is no yardstick
                else ". "
            )
            + f"**With the embedding:** {link(f'{size.own_total:,}', 'compare', compare_q)} against "
            f"{link(f'{size.ref_total:,}', 'compare', compare_q)}.",
        ]
        if not answer.size_note:  # another architecture's sizes are not compared: no "why" of a gap (walk V)
            lines.append(f"- **Why they differ:** {size.sentence}")
    elif own is None:  # a private or gated draft read without a token: the warning above says what to do
        lines.append(
            "- **Size outside the embedding:** not read: its config could not be read (see above), so sizes "
            "are not compared."
        )
    else:  # the registry has no config for the reference: its size is not known, so no size gap is named
        own_q = [("m", draft.source)]
        lines.append(
            "- **Size outside the embedding:** ours "
            f"{link(f'{own.count.excluding_embedding:,}', 'compare', own_q)} (with the embedding "
            f"{link(f'{own.count.total:,}', 'compare', own_q)}); {reference}'s is not known: the registry has no "
            "config for it, so sizes are not compared."
            + (f" Its config was not read from the Hub: {ref_unread}." if ref_unread else "")
        )
    own_page = "scaling" if vol_src.startswith("published") else "audit"
    if data_ratio and own_volume and ref_volume:
        # a reference whose data is only partly counted ("~532K + OpenThoughts-114k-math"): at least that
        least = "at least " if answer.ref_volume_floor else ""
        said = registry.get_draft(reference).train_samples_text if answer.ref_volume_floor else None
        # what the registry says the figure is, as Compare's export does (walk AT: a template's "1.4M (template,
        # unverified)" was called published)
        basis = "published" if said else comparison.volume_basis(registry.get_draft(reference))
        read = answer.volume_read  # your log reads the volume as passes: "samples seen", and its unique ones said
        lines.append(
            # a published draft's own figure links where published figures are shown (walk AJ3)
            f"- **Training volume:** ours {link(f'{values.human(own_volume)} samples', own_page)} ({vol_src}), "
            f"{reference} {least}{link(values.human(ref_volume), 'scaling')} "
            f"({basis}{f': {said}' if said else ''}): "
            + (
                # equal volumes read "1.00x more data" (walk BJ: 1.4M against 1.4M)
                f"{link('the same volume', 'scaling')}."
                if values.times(max(data_ratio, 1 / data_ratio)) == "1.00x" and read is None and not least
                else f"{least}{link(values.times(max(data_ratio, 1 / data_ratio)), 'scaling')} "
                + (
                    f"{'fewer' if data_ratio > 1 else 'more'} samples seen; {read.against(ref_volume, least)}."
                    if read is not None
                    else "less data."
                    if data_ratio > 1
                    else "more data."
                )
            )
        )
    elif own_volume is None:
        lines.append(f"- **Training volume:** ours is missing ({vol_src}; {link('Dataset audit', 'audit')}).")
    else:
        lines.append(
            f"- **Training volume:** ours {values.human(own_volume)} samples ({vol_src}); "
            f"{reference} does not report its own."
        )
    acc_link = (
        # one run on every page, by one rule (overview.own_acceptance), named with why it is that run
        link(f"{answer.own.value:.2f}", "bench")
        + f" (measured, run #{answer.own.run.id}"
        + (f" imported from {speedup.imported_from(answer.own.run)}" if speedup.is_imported(answer.own.run) else "")
        + f", {answer.own.why})"
        if answer.own is not None
        else _published_accept(draft, link)
        or (
            "missing ("
            + (
                "no run group attached"
                if not runs_group
                else f"no speculative run with an acceptance length in group {runs_group}"
            )
            + f"; {link('benchmark it', 'bench')})"
        )
    )
    lines.append(
        overview.accept_line(
            acc,
            reference,
            acc_link,
            answer.own_setting,
            measured=answer.own_accept is not None,
            link=link,
            # your run's prompts against their benchmarks (walk S named only the batch size as differing)
            own_prompts=values.run_param(answer.own.run, "prompt_set") if answer.own is not None else None,
        )
    )
    if live is not None:
        lines.append(
            "- **Live speed** (measured): "
            # where the group's pairs disagree, both first: walk S led with batch 16's loss, batch 1's 1.99x after
            + (f"{live.verdict} " if live.verdict else "")
            # where the fastest pair in tok/s loses, the pair of the largest speedup leads (walk U: batch 16 at 0.94x)
            + (f"{live.lead_words}: " if live.lead_words else "")
            + f"run #{live.run_id} ("
            + ("imported, " if live.run_id in live.imported else "")  # another tool's file: said with its number
            + f"{live.engine}, {live.setting}) "  # a tree's topk and draft tokens too (walk AG: "num_steps=3")
            + (f"{live.batch_words}, " if live.batch_words else "")
            + f"{link(f'{live.spec_tok_s:.1f} tok/s', 'bench')} with speculation against baseline run "
            f"#{live.baseline_run_id}{' (imported)' if live.baseline_run_id in live.imported else ''} "
            f"{link(f'{live.baseline_tok_s:.1f} tok/s', 'bench')} without: "
            f"{link(f'{live.speedup:.2f}x', 'bench')} ({live.gain * 100:+.1f}%)"
            + (" (example data)." if live.kind == "example" else ".")
            + (f" Note: {live.note.rstrip('.')}." if live.note else "")  # what one run of the pair did not record
            + (f" {live.others_clause}" if live.others_clause else "")  # the fastest pair is the largest batch's
        )
        for note in live.unpaired:
            lines.append(f"  - {note}")
        if trees := speedup.chains_and_trees(answer.runs, draft.match_name):
            lines.append("- **Chains or trees** (measured):")
            lines += [f"  - {t}." for t in trees]
    elif best is not None:
        lines.append(
            f"- **Live speed** (measured): run #{best.id} ({'imported, ' if speedup.is_imported(best) else ''}"
            f"{best.engine}) "
            f"{link(f'{best.output_tokens_per_s:.1f} tok/s', 'bench')} with speculation "
            f"({speedup.shape_words(best)}); no speedup: {speedup.no_baseline_reason(answer.runs, [best])}."
        )
    else:
        lines.append(
            "- **Live speed:** missing: "
            + (
                "no run group attached to your draft"
                if not runs_group
                else f"no speculative run of your draft in group {runs_group}"
            )
            + "; "
            + link("benchmark one", "bench")
            + "."
        )
    # a published draft for your target measured in your group at a setting yours ran too: head to head
    lines += [f"- {pair.sentence}." for pair in answer.side_by_side]
    # another draft of the group that is not published (your v1 beside your v2): compared the same way
    lines += [f"- {pair.sentence}." for pair in answer.others_beside]
    return lines


VOLUME_GAP_TITLE = "What the published data predicts for the volume gap (a fit, not your measurement)"


def volume_gap(
    answer: overview.Answer, points: pd.DataFrame, link: Link = no_link, *, made: plan.Plan | None = None
) -> Said | None:
    """What the published drafts' trend (``points``: ``scaling.published_points``) predicts for the gap between
    your training volume and the reference's ("predicted"); "info" when the reference publishes no acceptance
    to set it on, "error" when it cannot be worked out; None without both volumes.

    ``made``: the plan at Overview's defaults (``plan_for``), whose "More training data" row reads its own fit: the
    figure it gives at your volume is said here too, and why it is not this line's (``plan_fit_words``)."""
    own, ref, reference = answer.own_volume, answer.ref_volume, answer.reference
    if not (own and ref):
        return None
    if reference not in set(points["draft"].dropna()):
        return Said(
            "info",
            f"{reference} publishes no acceptance results, so the published data cannot say what the volume gap "
            f"costs; pick a reference on the {link('scaling chart', 'scaling')} for that.",
        )
    from comparelib.analysis import verdicts

    try:
        # at your run's setting, as the Acceptance line reads the reference (walk AX: a dynamic-tree 6.23 against
        # 1.72), on the benchmark Acceptance vs data and the plan open on for it (walk BJ: GSM8K's floor of 1.00 for a
        # reference publishing HumanEval, where Acceptance vs data fitted HumanEval's 8 drafts)
        from comparelib.analysis import scaling

        bench = scaling.default_benchmark(points, reference) or "gsm8k"
        verdict = verdicts.gap_verdict(own, reference, benchmark=bench, points=points, own_setting=answer.own_setting)
    except CompareError as exc:
        return Said("error", str(exc))
    text = verdict.sentence
    if made is not None and (said := plan_fit_words(made, own, verdict)):
        text += f" {said}"
    if answer.volume_read is not None:  # your log reads the volume as passes: the trend's x is unique samples
        read = answer.volume_read
        text += (
            f" The {values.human(own)} is your volume as given; {read.words()}, and the published volumes count "
            "unique samples."
        )
    if answer.unlike_reference:  # another target's (or architecture's) draft: its volume is no goal (walk V)
        return Said(
            "predicted",
            f"{answer.unlike_reference}. The volume below is that draft's, not a goal for yours. {text}",
        )
    return Said("predicted", text)  # the page links it to the scaling chart


def plan_fit_words(made: plan.Plan, own: float, verdict: Any) -> str:
    """What the plan's fit (``made.fit``, the one its "More training data" row reads) gives at your volume ``own``, and
    why that is not the volume gap's line (``verdicts.gap_verdict``): the plan fits a logistic in log N bounded at
    K + 1 to every published point at its chain, any batch size and engine (or your own training log), where the
    line is log-linear over the points at one full setting, as Acceptance vs data draws it. Walk AD: the fold-out
    said "the floor of 1.00" at 895 samples and the plan "1.16 (1.00..2.50)" with no word of why. "" without a fit."""
    from comparelib.analysis import scaling

    fit = made.fit
    if fit is None:
        return ""
    row = '"More training data" row'
    if fit.scope == "curve":
        return (
            f"The plan's {row} reads your training log's own fit instead (bounded forms fitted to your learning "
            "curve, x = samples seen), not this published trend."
        )
    band = fit.al(own)
    unsaid = (
        scaling.trend_unsaid(band.value, band.low, band.high, (1.0, fit.ceiling)) if band.value is not None else ""
    )
    gives = (
        f"which cannot say what a draft reaches at {values.human(own)} samples: {unsaid}"
        if unsaid
        else (f"which gives {band.text('.2f')} at {values.human(own)} samples")
    )
    chain = f"({fit.steps},1,{fit.steps + 1})"
    line = (
        f"the fit above is log-linear over the {verdict.fit.n} points at {verdict.setting_key} alone, as Acceptance "
        "vs data draws it"
        if verdict.fit is not None
        else f"no line could be fitted at {verdict.setting_key or 'its setting'} alone"
    )
    return (
        f"The plan's {row} reads another fit of the published points: a logistic in log N bounded at K + 1 = "
        f"{fit.ceiling:g}, over {fit.n} points at chain {chain} of {fit.label} (any batch size and engine), {gives}; "
        f"{line}, so the two figures differ."
    )


def plan_caution(answer: overview.Answer, lead: str | None) -> Said | None:
    """What the plan's lead (``plan.lead``) is, where Overview's reference is no like-for-like yardstick
    (``Answer.unlike_reference``) because no published draft for your target is known, or your target is not: the
    samples it names reach another target's published acceptance, not a goal for your draft (walk V: "Samples:
    6,163,057" to reach the Kimi-K2 draft's 3.271 for a draft whose target was not known). None otherwise, or when
    the lead names no samples."""
    if not answer.unlike_reference or not lead or "samples" not in lead.lower():
        return None
    target = answer.target_model
    # a published draft for your target: the plan aims at its figure, unless the lead names the reference's (walk
    # BL3: AQ-MedAI's draft pasted as yours, the plan aimed at the Qwen3-Coder-480B draft's, unsaid)
    if target and answer.reference not in lead and split_native(target, drafts_for_target(values.model_id(target)))[0]:
        return None
    return Said(
        "caption",
        f"{answer.unlike_reference}. The samples the plan below names to reach a published acceptance aim at another "
        "target's draft (named in it): what a draft on the published trend would need to reach that figure, not a "
        "goal for your draft.",
    )


LOG_SOURCE = "your training log (Acceptance vs data)"


def plan_for(
    draft: OwnDraft,
    own: Entry,
    runs: Sequence[Any],
    volumes: Sequence[Mapping[str, Any]],
    *,
    published: pd.DataFrame,
    curve: Any = None,
    target_al: float | None = None,
    gpu_name: str = "H200",
    rank_batch: int | None = None,
    own_run: int | None = None,
) -> plan.Plan:
    """Overview's plan for ``draft`` (CompareError when there is none, saying why).

    ``own_run``: the run Overview's answer reads "your acceptance" from (``Answer.own``), so the plan cites the run
    the page names (default: the one it reads at the reference Overview suggests).

    The training log's ``curve`` (loaded on Acceptance vs data, else kept with the draft) is fitted instead of the
    published trend (as ``plan --curve`` does), so the plan cannot rank "more data" from the trend while the answer
    says the log plateaued; one that cannot be fitted (no samples per logged step) is still weighed by its
    verdict, and the plan says why it was not fitted. The defaults are the plan shown with its fold-out closed: the
    published target AL, an H200, ranked at the first of ``plan.BATCHES``."""
    from comparelib.analysis import plan

    own_volume, vol_src = draft.training_samples(volumes)
    row = draft.volume_row(volumes)
    given: dict[str, Any] = dict(
        runs=runs,
        own_samples=own_volume,
        own_samples_source=vol_src if own_volume else "",
        own_tokens=float(row["tokens"]) if row and row.get("tokens") else None,
        published=published,
        draft=draft.match_name,  # the runs' target from your draft's own runs, as the CLI's plan reads it
        own_run=own_run,
    )
    try:
        inputs = plan.inputs_for(own, **given, curve=curve, curve_source=LOG_SOURCE)
    except CompareError as exc:
        if curve is None:
            raise
        # the published trend, weighed by the log's verdict; the plan says why the log was not fitted
        verdict = getattr(curve, "verdict", None)
        inputs = plan.inputs_for(own, **given, curve_verdict=verdict, curve_unused=str(exc))
    batch = plan.BATCHES[0] if rank_batch is None else int(rank_batch)
    return plan.build(inputs, target_al=target_al, gpu_name=gpu_name, rank_batch=batch)
