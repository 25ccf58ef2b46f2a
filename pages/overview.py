"""Overview: the answer first. How our draft differs from a published one, and which gap is largest."""

from __future__ import annotations

import functools
from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException

import app

app.ensure_routed()

st.title("Overview")
st.caption(
    "The answer first, for your draft (chosen in the sidebar, carried in the link) and a published reference: "
    "size, training data, acceptance and live speed, and which of these gaps is the largest. Each number links to "
    "the page that produced it."
)

draft = app.own_draft()  # the sidebar (where a user picks the draft) comes before the page's imports

# The page's own modules load after its heading and the sidebar are drawn, and in two steps: what the answer
# needs (no pandas), then, once the answer is on screen, pandas and the rest (the published trend, the plan and
# its exports, ~0.4 s on a fresh server).
from comparelib import settings, values
from comparelib.analysis import overview, speedup  # speedup: light, overview imports it
from comparelib.errors import CompareError
from comparelib.models import comparison
from comparelib.models.draft import OwnDraft, drafts_for_target, split_native

_store = app.open_store


@st.cache_data(show_spinner=False)
def _drafts_with_config() -> list[str]:
    return overview.reference_choices()


@st.cache_data(show_spinner=False)
def _published_points():  # type: ignore[no-untyped-def]
    return scaling.published_points()


_TARGET_FROM = {
    "named": "named by the draft",
    "card": "the base_model of its model card",
    "runs": "the model its runs were served with",
    "compare": "set on Compare",
}
_entry = app.draft_entry  # sizes need the config only; shared with Acceptance vs data's reference


def _link(text: str, page: str, query: list[tuple[str, str]] | None = None) -> str:
    """A markdown link to one of the app's pages (url paths as app.py registers them), carrying the draft."""
    q = list(query or []) + list(draft.to_query().items())
    url = f"/{page}" + (f"?{urlencode(q)}" if q else "")
    return f"[{text}]({url})"


def plan_section(own: OwnDraft, entry: comparison.Entry, runs: list, volumes: list) -> None:  # type: ignore[type-arg]
    """What closes the gap, and what it costs: the plan for this draft (``comparelib.analysis.plan``).

    Self-contained: reads only its arguments, its own widgets and the cached published points, so the
    answer above can change freely. Closed, it shows the option ranked first (at the default inputs); the
    table, the charts (and Altair) and the sources are built only when a user opens it."""
    st.subheader("What closes the gap, and what it costs")
    lead_slot = st.container()  # the ranked-first line goes above the fold-out
    box = st.expander(
        "The plan: every option ranked, its cost, the fit behind it, and exports", key="ov_plan", on_change="rerun"
    )
    if not box.open:  # the ranked-first line only; the table, charts and sources are built when opened
        defaults = (None, "H200", plan.BATCHES[0])
        result = _plan(own, entry, runs, volumes, *defaults)
        if result is not None:
            with lead_slot:
                _plan_lead(result)
        return
    with box:
        _plan_body(own, entry, runs, volumes)


def _plan(
    own: OwnDraft,
    entry: comparison.Entry,
    runs: list,  # type: ignore[type-arg]
    volumes: list,  # type: ignore[type-arg]
    target_al: float | None,
    gpu_name: str,
    rank_batch: int,
) -> plan.Plan | None:
    """The plan for these inputs, or None after saying why there is none.

    A training log loaded on Acceptance vs data is fitted instead of the published trend (as ``plan --curve``
    does), so the plan cannot rank "more data" from the trend while the answer above says the log plateaued; one
    that cannot be fitted (no samples per logged step) is still weighed by its verdict, and the plan says why it
    was not fitted."""
    curve = app.own_curve(own)
    try:
        own_volume, vol_src = own.training_samples(volumes)
        row = own.volume_row(volumes)
        args = dict(
            runs=runs,
            own_samples=own_volume,
            own_samples_source=vol_src if own_volume else "",
            own_tokens=float(row["tokens"]) if row and row.get("tokens") else None,
            published=_published_points(),
            draft=own.match_name,  # the runs' target from your draft's own runs, as the CLI's plan reads it
        )
        try:
            inputs = plan.inputs_for(entry, **args, curve=curve, curve_source="your training log (Acceptance vs data)")
        except CompareError as exc:
            if curve is None:
                raise
            # the published trend, weighed by the log's verdict; the plan says why the log was not fitted
            inputs = plan.inputs_for(entry, **args, curve_verdict=app.own_curve_verdict(own), curve_unused=str(exc))
        return plan.build(inputs, target_al=target_al, gpu_name=gpu_name, rank_batch=int(rank_batch))
    except CompareError as exc:
        st.info(f"No plan for this draft: {exc}")
        return None


def _plan_lead(result: plan.Plan) -> None:
    lead = plan.lead(result)
    if lead:
        st.markdown(lead)


def _plan_body(own: OwnDraft, entry: comparison.Entry, runs: list, volumes: list) -> None:  # type: ignore[type-arg]
    """The opened plan: its inputs, the ranked table, exports, the fit and cost charts and the sources."""
    from comparelib import charts  # Altair loads only for an opened plan

    c1, c2, c3 = st.columns(3)
    target_al = c1.number_input(
        "Target AL (at 3 steps)",
        min_value=1.01,
        max_value=3.99,
        value=None,
        step=0.05,
        key="plan_target",
        placeholder="published reference",
        help="Empty: the published acceptance of the reference draft for your draft's target (Overview's), else "
        "of that target's draft with the most data, else of the target family's.",
    )
    gpu_name = c2.selectbox("GPU", list(plan.GPUS), index=list(plan.GPUS).index("H200"), key="plan_gpu")
    rank_batch = c3.selectbox("Rank at batch size", list(plan.BATCHES), key="plan_batch")
    result = _plan(own, entry, runs, volumes, target_al, gpu_name, int(rank_batch))
    if result is None:
        return
    _plan_lead(result)
    frame = result.frame()
    app.show_table(frame, tables.PLAN, key="plan_table")
    cols = st.columns(len(export.FORMATS))
    for col, fmt in zip(cols, export.FORMATS, strict=False):
        col.download_button(
            f"Plan as {fmt.upper()}",
            data=functools.partial(export.render, frame, fmt, table=tables.PLAN),  # made when clicked
            file_name=f"plan.{export.EXTENSION[fmt]}",
            mime=export.MIME[fmt],
            key=f"plan_dl_{fmt}",
        )
    more = next((o for o in result.options if o.kind == "more-data"), None)
    needed = None
    if more is not None and more.samples_needed is not None:
        needed = (more.samples_needed.value, more.samples_needed.low, more.samples_needed.high)
    # a chart only where there is something to draw: no fit, or no option with a gain, gave empty charts with
    # "0.000000" axes
    curve = result.curve_frame()
    # an option gaining 0 tok/s (a free change that gains nothing) gave "0.000000" axes: draw only real gains
    gained = any(plan.gains(o, result.noise) for o in result.options)
    left, right = st.columns(2)
    with left:
        if len(curve) or len(result.points):
            app.show_chart(
                charts.plan_curve_chart,
                curve,
                result.points,
                target_al=result.target_al,
                samples_needed=needed,
                steps=result.steps,
                seen=result.fit is not None and result.fit.scope == "curve",
            )
        else:
            st.caption(f"No acceptance fit to draw: {result.fit_note or 'no published points for this target'}")
    with right:
        if gained:
            app.show_chart(charts.plan_cost_chart, frame, rank_batch=result.rank_batch)
        else:
            st.caption("No option has a predicted gain yet, so there is no cost-against-gain chart.")
    with st.expander("Where every number comes from"):
        st.caption(result.fit_note)
        st.markdown("\n".join(f"- `{s.id}` ({s.kind}): {s.text}" for s in result.sources))
        st.caption(
            "The same plan from the command line: `python -m comparelib plan DRAFT --json` "
            "(add `--curve LOG` for your own learning curve, `--offline FILE` for eval-draft output)."
        )


try:
    url = settings.database_url()
    store = _store(url)
    drafts = _drafts_with_config()
    volumes = store.data_volumes()
except CompareError as exc:
    st.error(str(exc))
    st.stop()

own_entry: comparison.Entry | None = None
try:
    with settings.session_token(app.hub_token()):
        own_entry = _entry(draft.source, settings.token_fingerprint())
except CompareError as exc:
    # a private or gated draft opened without a token (a shared link): said first, and the page answers what it
    # can without its config (its runs, its volume, the published reference for the target its runs name)
    if (unread := app.hub_access_text(exc, f"Your draft {draft.short}")) is None:
        st.error(f"**Your draft ({draft.short})**: {exc}")
        st.stop()
    st.warning(unread + " Below: what its runs and training volume say; its size is left out.", icon=":material/lock:")

# The first reference is one for your draft's target (a Kimi target keeps the Kimi-K2 draft); a pick made here
# holds until another draft is chosen.
try:
    runs = draft.runs(store)
except CompareError as exc:
    st.error(str(exc))
    st.stop()
# a raw EAGLE-3 config names no target; the server its runs were measured on does, else the one set on Compare
target_choice = app.draft_target(draft, runs)
own_target = target_choice.model
# a published draft measured beside yours in your group first (Acceptance vs data and the plan choose alike)
# with no target known, a published draft of your draft's hidden size and vocabulary (a Llama-3 checkpoint was
# compared with the Kimi-K2 draft and "the largest gap is size" headlined)
suggested = overview.default_reference(
    drafts, draft.name, own_target, runs, own_shape=None if own_target else overview.draft_shape(own_entry)
)
# the published drafts for your target without a config are offered too (compared on data and acceptance), the
# suggested one among them: Acceptance vs data preselects the same one
_for_target = split_native(own_target, drafts_for_target(own_target))[0]
ref_options = drafts + [d for d in dict.fromkeys([suggested.hub_id, *_for_target]) if d not in drafts]
app.pick_reference("ov_ref", ref_options, suggested, draft)
if target_choice.note:  # the target set on Compare drafts, used or set aside: said, never silent
    st.caption(target_choice.note)
if own_entry is not None and own_target and not own_entry.target_label:
    # a config naming no target: the plan costed generation without the target and took another family's AL
    try:
        with settings.session_token(app.hub_token()):
            own_entry = _entry(draft.source, settings.token_fingerprint(), own_target)
    except CompareError as exc:
        st.caption(f"Your draft's target {own_target} could not be read ({exc}); what needs its size is left out.")
if own_entry is not None and own_entry.target_count is None and own_entry.target_note:
    st.caption(f"Your draft's target: {own_entry.target_note}.")  # read, but not countable: why, what still works
with st.expander("Reference draft", expanded=False):
    reference = st.selectbox("Reference (published)", ref_options, key="ov_ref")
    if reference == suggested.hub_id:
        st.caption(suggested.why)
    st.caption("Your draft, its training data and its benchmark runs are chosen in the sidebar.")

try:
    # a registry pick needs no token; one without a config is compared on data and acceptance only
    ref_entry = (
        _entry(comparison.registry_source(reference), "")
        if reference in drafts
        else comparison.registry.get_draft(reference)
    )
    own_volume, vol_src = draft.training_samples(volumes)
    curve_verdict = app.own_curve_verdict(draft)
    own_log = app.own_curve(draft)
    seen = [float(p.samples_seen) for p in own_log.points if p.samples_seen] if own_log is not None else []
    answer = overview.answer(
        own_entry,
        ref_entry,
        runs,
        own_volume,
        curve_verdict=curve_verdict,
        curve_seen=max(seen, default=None),  # a log over passes of your samples is not evidence of new data
        curve_peak=getattr(own_log, "peak", None),  # where an overfitting log's eval peaked before it fell
        own_target=own_target,
        draft=draft.match_name,  # only your draft's runs answer; another draft's (or the target's MTP) are named
    )
    size, acc, live, best = answer.size, answer.accept, answer.live, answer.best_run
    own_accept, own_key, ref_volume, data_ratio = (
        answer.own_accept,
        answer.own_setting,
        answer.ref_volume,
        answer.data_ratio,
    )
except CompareError as exc:
    st.error(str(exc))
    st.stop()

# --- the answer -----------------------------------------------------------------------------------
# Every figure below comes from the one draft in the sidebar (its config, its attached audit, its run
# group) or says it is missing: nothing falls back to the built-in example.
if answer.target is not None:
    st.warning(answer.gap_sentence, icon=":material/warning:")
    # only the drafts Compare can read offline (a registry entry without a config is an error there)
    _loadable = {d.hub_id for d in comparison.registry.load_registry() if d.config}
    _with = [d for d in answer.target.drafts if d in _loadable]
    target_q = [("target", answer.target.hub_id or draft.source)] + [
        ("m", comparison.registry_source(d)) for d in _with
    ]
    st.markdown(
        _link("Use it as the target on Compare drafts", "compare", target_q)
        + (" (with the published drafts known for it)" if _with else "")
    )
    st.stop()
if answer.headline:
    st.subheader(answer.gap_sentence)
else:
    st.info(answer.gap_sentence, icon=":material/info:")
if not own_target and reference == suggested.hub_id and suggested.basis == "shape":
    st.caption(suggested.why)  # how the reference was chosen with no target named, and how to name one
if answer.curve_note:
    (st.warning if answer.curve_verdict in ("plateau", "overfitting") else st.caption)(answer.curve_note)
if (_curve := app.own_curve(draft)) is not None:  # a loaded log: its module is imported already
    from comparelib.analysis.curves import volume_note

    if _volume_note := volume_note(_curve, own_volume, f"your training volume, {vol_src}"):
        st.warning(_volume_note, icon=":material/warning:")
if draft.volume_of_another and own_volume:  # an audit stored under another draft's name answers for this one
    st.warning(
        f"The training volume used here ({values.human(own_volume)} samples) is the audit stored under "
        f"{draft.volume_of_another}, another draft's name. If it is not this draft's data, pick this draft's own "
        "audit in the sidebar or attach one on Dataset audit.",
        icon=":material/warning:",
    )
if answer.runs_note:  # runs of the group served with another target: not in the answer, and named
    st.warning(answer.runs_note, icon=":material/warning:")
if answer.draft_note:  # runs of another draft or of the target's own MTP layers: not your draft's, and named
    st.caption(answer.draft_note)
lines = [
    (
        f"- **Your draft:** {own_entry.label}"
        + (f" (commit `{own_entry.commit_sha[:7]}`)" if own_entry.commit_sha else "")
        + f" · architecture `{own_entry.spec.architecture}`"
        if own_entry is not None
        else f"- **Your draft:** {draft.short} · config not read (see above)"
    )
    + (
        f" · target `{own_target}` ({_TARGET_FROM.get(target_choice.origin, target_choice.origin)})."
        if own_target
        else " · target not known."
    ),
]


def _size_basis(reference: str, not_compared: str = "") -> str:
    """How the two sizes were counted: a registry config that is only assumed is said so, and a reference of
    another architecture (no target known: ``Answer.size_note``) too."""
    if not_compared:
        return f"counted from the configs; {not_compared}, so no size gap is named"
    ref = comparison.registry.get_draft(reference)
    if ref.config_confidence.lower().startswith("low"):
        return f"counted from the configs; {reference}'s is assumed, not published, so no size gap is named"
    if not ref.config_read:  # walk R2: a SpecForge template's count read as the published draft's own
        return f"counted from the configs; {reference}'s is estimated from {ref.config_basis}"
    return "counted from the configs"


def _layers_words(size: overview.SizeFacts) -> str:
    """Where the lm_heads differ, the layers' ratio the answer names a size gap from (``overview.size_gap``):
    walk Q's headline said "1.59x smaller in its layers" above "ours is 90% the size of the reference"."""
    ratio, scope = overview.size_gap(size)
    if ratio is None or scope != overview.LAYERS_SCOPE:
        return ""
    return (
        f" with its lm_head; {overview.size_words(ratio)} it {scope}, the figure the answer uses (the lm_heads "
        "differ: another draft vocabulary)"
    )


if size is not None:
    compare_q = [("m", draft.source), ("m", comparison.registry_source(reference))]
    lines += [
        f"- **Size outside the embedding** ({_size_basis(reference, answer.size_note)}): ours "
        f"{_link(f'{size.own_excluding_embedding:,}', 'compare', compare_q)}, "
        f"{reference} {_link(f'{size.ref_excluding_embedding:,}', 'compare', compare_q)}"
        + (
            f": ours is {overview.size_words(answer.size_ratio)} the reference{_layers_words(size)}. "
            if answer.size_ratio and not answer.size_note  # another architecture's size is no yardstick
            else ". "
        )
        + f"**With the embedding:** {_link(f'{size.own_total:,}', 'compare', compare_q)} against "
        f"{_link(f'{size.ref_total:,}', 'compare', compare_q)}.",
        f"- **Why they differ:** {size.sentence}",
    ]
elif own_entry is None:  # a private or gated draft read without a token: the warning above says what to do
    lines.append(
        "- **Size outside the embedding:** not read: its config could not be read (see above), so sizes are not "
        "compared."
    )
else:  # the registry has no config for the reference: its size is not known, so no size gap is named
    own_q = [("m", draft.source)]
    lines.append(
        f"- **Size outside the embedding:** ours {_link(f'{own_entry.count.excluding_embedding:,}', 'compare', own_q)}"
        f" (with the embedding {_link(f'{own_entry.count.total:,}', 'compare', own_q)}); {reference}'s is not known: "
        "the registry has no config for it, so sizes are not compared."
    )
if data_ratio:
    # a reference whose data is only partly counted ("~532K + OpenThoughts-114k-math"): at least that, said whole
    least = "at least " if answer.ref_volume_floor else ""
    said = comparison.registry.get_draft(reference).train_samples_text if answer.ref_volume_floor else None
    lines.append(
        f"- **Training volume:** ours {_link(f'{values.human(own_volume)} samples', 'audit')} ({vol_src}), "
        f"{reference} {least}{_link(values.human(ref_volume), 'scaling')} (published{f': {said}' if said else ''}): "
        f"{least}{_link(values.times(max(data_ratio, 1 / data_ratio)), 'scaling')} "
        + ("less data." if data_ratio > 1 else "more data.")
    )
elif own_volume is None:
    lines.append(f"- **Training volume:** ours is missing ({vol_src}; {_link('Dataset audit', 'audit')}).")
else:
    lines.append(
        f"- **Training volume:** ours {values.human(own_volume)} samples ({vol_src}); "
        f"{reference} does not report its own."
    )
acc_link = (
    # one run on every page, by one rule (overview.own_acceptance), named with why it is that run
    _link(f"{answer.own.value:.2f}", "bench")
    + f" (measured, run #{answer.own.run.id}"
    + (f" imported from {speedup.imported_from(answer.own.run)}" if speedup.is_imported(answer.own.run) else "")
    + f", {answer.own.why})"
    if answer.own is not None
    else (
        "missing ("
        + (
            "no run group attached"
            if not draft.group
            else f"no speculative run with an acceptance length in group {draft.group}"
        )
        + f"; {_link('benchmark it', 'bench')})"
    )
)
lines.append(
    overview.accept_line(
        acc,
        reference,
        acc_link,
        own_key,
        measured=own_accept is not None,
        link=_link,
        # your run's prompts against their benchmarks (walk S named only the batch size as differing)
        own_prompts=values.run_param(answer.own.run, "prompt_set") if answer.own is not None else None,
    )
)
if live is not None:
    lines.append(
        "- **Live speed** (measured): "
        # where the group's pairs disagree, both first: walk S led with batch 16's loss, batch 1's 1.99x after it
        + (f"{live.verdict} The fastest pair in tok/s: " if live.verdict else "")
        + f"run #{live.run_id} ("
        + ("imported, " if live.run_id in live.imported else "")  # another tool's file: said with its number
        + f"{live.engine}, num_steps={live.num_steps}) "
        + (f"{live.batch_words}, " if live.batch_words else "")
        + f"{_link(f'{live.spec_tok_s:.1f} tok/s', 'bench')} with speculation against baseline run "
        f"#{live.baseline_run_id}{' (imported)' if live.baseline_run_id in live.imported else ''} "
        f"{_link(f'{live.baseline_tok_s:.1f} tok/s', 'bench')} without: "
        f"{_link(f'{live.speedup:.2f}x', 'bench')} ({live.gain * 100:+.1f}%)"
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
        f"{_link(f'{best.output_tokens_per_s:.1f} tok/s', 'bench')} with speculation "
        f"(num_steps={best.num_steps}); no speedup: {speedup.no_baseline_reason(answer.runs, [best])}."
    )
else:
    lines.append(
        "- **Live speed:** missing: "
        + ("no run group attached to your draft" if not draft.group else f"no speculative run in group {draft.group}")
        + "; "
        + _link("benchmark one", "bench")
        + "."
    )
# a published draft for your target measured in your group at a setting yours ran too: compared head to head
lines += [f"- {pair.sentence}." for pair in answer.side_by_side]
# another draft of the group that is not published (your v1 beside your v2): compared the same way
lines += [f"- {pair.sentence}." for pair in answer.others_beside]
st.markdown("\n".join(lines))

from comparelib import export, tables  # noqa: I001 - after the answer: these load pandas
from comparelib.analysis import plan, scaling, verdicts

published_refs = set(_published_points()["draft"].dropna())
if own_volume and ref_volume and reference not in published_refs:
    st.info(
        f"{reference} publishes no acceptance results, so the published data cannot say what the volume gap "
        f"costs; pick a reference on the {_link('scaling chart', 'scaling')} for that."
    )
elif own_volume and ref_volume:
    try:
        verdict = verdicts.gap_verdict(own_volume, reference, points=_published_points())
        with st.expander("What the published data predicts for the volume gap (a fit, not your measurement)"):
            st.markdown(f"{verdict.sentence} ({_link('chart', 'scaling')})")
    except CompareError as exc:
        st.error(str(exc))

st.divider()
if own_entry is not None:
    plan_section(draft, own_entry, runs, volumes)
else:
    st.subheader("What closes the gap, and what it costs")
    st.info(
        "No plan for this draft: the plan needs your draft's config (its size and what a step costs), which could "
        "not be read (see above)."
    )

if draft.uses_example_data:
    st.caption(
        "Example data: the team's own Kimi-K2.5 draft and its hand-measured SGLang session are built in so this "
        "page has an answer offline. Paste your own draft, attach its audit and run group in the sidebar."
    )

st.divider()
cols = st.columns(4)
for col, (page, label) in zip(
    cols,
    [
        ("compare", "Compare drafts"),
        ("audit", "Dataset audit"),
        ("bench", "Live benchmark"),
        ("scaling", "Acceptance vs data"),
    ],
    strict=False,
):
    try:
        col.page_link(f"pages/{page}.py", label=label, query_params=draft.to_query())
    except StreamlitAPIException:  # not registered (a page run on its own, e.g. in tests): a plain link
        col.markdown(_link(label, page))
