"""Acceptance vs data: where a draft sits among published drafts, what more data would buy, live results."""

from __future__ import annotations

import functools
import os
from typing import Any, NamedTuple

import streamlit as st

import app

app.ensure_routed()

TABS = ["Live results", "Learning curve", "Draft cost", "Points in the fit", "Before serving"]

st.title("Acceptance vs data")
st.caption(
    "Acceptance length against training-data volume for published drafts and yours. Acceptance depends on the "
    "speculative setting (chain length, tree, batch size, engine), so each fit uses one benchmark at one setting; "
    "points from other benchmarks or settings are drawn grey and never enter the fit. Fits and speed curves are "
    "predictions."
)

draft = app.own_draft()  # the sidebar (where a user picks the draft) comes before the page's imports

# The page's own modules load after its heading and the sidebar are drawn: a fresh server's first page shows
# both while pandas and the analysis load (~0.4 s).
import pandas as pd

import uploadgate
from comparelib import charts, export, paths, settings, tables
from comparelib.analysis import curves, draftcost, overview, plan, scaling, speedup, verdicts
from comparelib.errors import CompareError
from comparelib.live.store import Forgetter, curve_keepers, may_forget_curve
from comparelib.models.draft import pasted_target, runs_for_target, runs_of_draft, target_notice

# The tabs below are built only while shown; what was typed or picked in them is kept for the session.
app.keep_values()  # also when the page runs on its own (AppTest)
# A training log is your draft's: another draft's page shows its own log (or none), never the previous one's
LOG_INPUTS = ("lc_path", "lc_batch", "lc_epoch", "lc_steps", "lc_split")
app.per_draft_values("lc", LOG_INPUTS, draft)
LOG_UPLOAD = app.draft_key("lc_upload", draft)  # an uploader cannot be emptied: each draft has its own
# {draft identity (a Hub draft however pasted, walk BM): (kept path, file name)} of the logs uploaded this session
LOG_UPLOADS = "_lc_uploads"


def _target_sentence() -> tuple[str | None, str | None]:
    """What Overview and Compare drafts say when "your draft" is a target model (``draft.target_notice``): here too,
    not only "runs of another draft left out" (walk AN); and its Hub id, the target this page then picks published
    references for (``draft.pasted_target``). (None, None) for a draft, or one whose config was not read."""
    global _draft_unread
    try:
        with settings.session_token(app.hub_token()):
            entry = app.draft_entry(draft.source, settings.token_fingerprint())
    except CompareError:
        _draft_unread = True
        return None, None  # not read: the pages that count it say why
    notice = target_notice(entry)
    return (notice.sentence if notice is not None else None), pasted_target(entry)


_draft_unread = False  # your draft's config could not be read (private without the token, ...): its target unknown
_said_target, _pasted_target = _target_sentence()
if _said_target:
    st.warning(_said_target, icon=":material/warning:")


_store = app.open_store


@st.cache_data(show_spinner=False)
def _published() -> pd.DataFrame:
    return scaling.published_points()


# A rerun (a tab, a widget elsewhere on the page) with the same inputs reads these from the cache: the
# selection, fit, verdict and live outlook are pure functions of what is passed (the group's runs are read
# from the store each run and are part of the key, so a new run is never missed).
@st.cache_data(show_spinner=False, max_entries=32)
def _select_fit(
    points: pd.DataFrame, bench: str, setting_key: str, x: scaling.Axis
) -> tuple[scaling.Selection, scaling.Fit | None, str | None]:
    sel = scaling.select(points, benchmark=bench, setting_key=setting_key, x=x)
    try:
        return sel, scaling.fit_published(sel), None
    except CompareError as exc:
        return sel, None, str(exc)


@st.cache_data(show_spinner=False, max_entries=32)
def _gap_verdict(
    own_samples: float, reference: str, bench: str, points: pd.DataFrame, x: scaling.Axis, setting_key: str | None
) -> verdicts.GapVerdict:
    # the reference's own setting first; where it reports nothing on this benchmark, the page's (never all pooled)
    return verdicts.gap_verdict(
        own_samples, reference, benchmark=bench, points=points, x=x, fallback_setting=setting_key
    )


@st.cache_data(show_spinner=False, max_entries=32)
def _live_outlook(
    runs: list,  # type: ignore[type-arg]
    at_ref: tuple[float, int, float] | None,
    reference: str,
    x: scaling.Axis,
    target: str | None,
    own: str | None = None,
    sweep: tuple[int | None, str | None] | None = None,
    own_run: tuple[int, int, float] | None = None,
    benchmark: str | None = None,
) -> verdicts.LiveOutlook:
    return verdicts.live_outlook(
        runs,
        at_ref,
        reference=reference,
        x=x,
        target=target,
        draft=own,
        sweep=sweep,
        own_run=own_run,
        benchmark=benchmark,
    )


@st.cache_data(show_spinner=False, max_entries=32)
def _sweep_choices(
    runs: list,  # type: ignore[type-arg]
    target: str | None,
    own: str | None,
) -> tuple[tuple[speedup.SweepChoice, ...], int | None]:
    return speedup.sweep_choices(runs, target=target, draft=own)


def _own_points(
    runs: list,  # type: ignore[type-arg]
    draft: str,
    samples: float | None,
    tokens: float | None,
    target_model: str | None,
) -> pd.DataFrame:
    if not runs:
        return scaling.empty_points()
    return scaling.own_points_from_runs(runs, draft=draft, samples=samples, tokens=tokens, target_model=target_model)


def _own_shape(target: str | None) -> tuple[int, int] | None:
    """Your draft's hidden size and vocabulary where no target is known: Overview's reference is then a published
    draft of that shape (``overview.default_reference``), and this page preselects the same one."""
    if target:
        return None
    try:
        with settings.session_token(app.hub_token()):
            return overview.draft_shape(app.draft_entry(draft.source, settings.token_fingerprint()))
    except CompareError:
        return None


@st.cache_data(show_spinner="Reading the training log…", max_entries=8)
def _learning_curve(
    paths: tuple[str, ...], stamp: tuple, batch: float | None, per_epoch: float | None, steps: int | None, split: str
) -> curves.Curve:
    del stamp  # only part of the cache key: a rewritten log is read again
    return curves.curve(list(paths), batch_size=batch, epoch_samples=per_epoch, steps=steps, split=split)


def _stamp(logs: tuple[str, ...]) -> tuple:
    """``_learning_curve``'s cache key part, shared by every session: each log's mtime and size, so a rewritten
    or deleted log is read again. Stat'ed where the reader reads it (confined: relative to the data root); a
    path the data root refuses is never stat'ed, and the reader gives the refusal."""
    out = []
    for p in logs:
        try:
            st_ = os.stat(paths.resolve_user_path(p, "training log"))
            out.append((p, st_.st_mtime_ns, st_.st_size))
        except (CompareError, OSError):
            out.append((p, None, None))
    return tuple(out)


class _LogRead(NamedTuple):
    """The training log the Learning curve tab names, and its curve as read with the inputs as they are now."""

    paths: tuple[str, ...]  # () when no log is named (or its upload could not be kept)
    name: str  # the log's file name, as it is kept with your draft
    held: bool  # uploaded for this draft earlier in this session (its uploader since emptied)
    key: tuple  # _learning_curve's arguments: what the curve was read with; () when no log is named
    curve: curves.Curve | None
    error: str | None


LOG_READ = "_lc_read"  # the drafts whose curve for Overview (app.remember_curve) this page read from a log


def _read_log(steps_default: int) -> _LogRead:
    """Read the log the Learning curve tab names with its inputs as they are now (session state), before the page's
    headline, on every run: the headline, the tab, its keep button and Overview (``app.remember_curve``) read this
    one reading. Read inside the tab, the headline above it showed the previous run's reading (walk AM: in steps
    after a batch size was typed, and no verdict at all when the path came after the batch size). With no log named,
    or one that cannot be read, the curve this page remembered is dropped: Overview and the headline fall back to
    the log kept with the draft, if any, never the one the inputs no longer name."""
    state = st.session_state
    upload = state.get(LOG_UPLOAD)
    uploads = state.setdefault(LOG_UPLOADS, {})
    held = uploads.get(draft.identity)
    found: tuple[str, ...] = ()
    name = ""
    error = None
    if upload is not None:
        try:  # one file per content, the name kept (the reader picks TensorBoard / CSV by it)
            name = upload.name or "training.log"
            found = (str(paths.keep_upload(upload.getvalue(), name)),)
        except CompareError as exc:
            error, name = str(exc), ""
        else:
            # a replaced upload is deleted once no session holds it; a closed tab's when its session ends
            uploadgate.hold(found[0], held[0] if held else None)
            uploads[draft.identity] = (found[0], name)
    elif held is not None:
        found, name = (held[0],), held[1]
    elif typed := str(state.get("lc_path") or "").strip():
        found = (os.path.expanduser(typed),)
        name = os.path.basename(found[0].rstrip("/")) or found[0]
    key: tuple = ()
    curve = None
    if found:
        key = (
            found,
            _stamp(found),
            float(state.get("lc_batch") or 0) or None,
            float(state.get("lc_epoch") or 0) or None,
            int(state.get("lc_steps", steps_default) or 0) or None,
            str(state.get("lc_split") or "auto"),
        )
        try:
            curve = _learning_curve(*key)
        except CompareError as exc:
            error = str(exc)
    read = state.setdefault(LOG_READ, set())
    if curve is not None:
        app.remember_curve(draft, curve)
        read.add(draft.identity)
    elif draft.identity in read:
        state.get(app.CURVE_STATE, {}).pop(draft.identity, None)
        read.discard(draft.identity)
    return _LogRead(found, name, upload is None and held is not None, key, curve, error)


try:
    url = settings.database_url()
    store = _store(url)
    published = _published()
    volumes = store.data_volumes()
    groups = store.groups()
except CompareError as exc:
    st.error(str(exc))
    st.stop()

# --- inputs -------------------------------------------------------------------------------------
ref_options = sorted(published["draft"].dropna().unique())
# as on Overview: a published draft for your draft's target first (a Kimi target keeps the Kimi-K2 one)
own_runs = store.runs(group=draft.group) if draft.group else []
target_choice = app.draft_target(draft, own_runs)  # its own, its runs', else the one set on Compare
# a target model pasted as your draft: its own published drafts are the references (walk BI: the page aimed at a
# Llama-4-Scout draft's 3.112, "your draft names no target", for Llama-4-Maverick pasted as the draft)
own_target = target_choice.model or _pasted_target
# a published draft measured beside yours in your group first, as on Overview and in the plan
suggested = overview.default_reference(ref_options, draft.name, own_target, own_runs, own_shape=_own_shape(own_target))
# a draft for your target with no results here is offered all the same, as on Overview
if suggested.hub_id not in ref_options:
    ref_options = sorted([*ref_options, suggested.hub_id])
# a reference other than the suggestion stands only as a pick made in the select for this draft: walk BP 3 saw the
# example's Kimi-K2 reference come back (kept values of an earlier draft) for a Qwen3-235B draft after draft switches
_SC_PICK = "_sc_ref_pick"
if st.session_state.get("sc_ref") not in (None, suggested.hub_id) and st.session_state.get(_SC_PICK) != (
    draft.source,
    st.session_state.get("sc_ref"),
):
    st.session_state.pop("sc_ref", None)
app.pick_reference("sc_ref", ref_options, suggested, draft)
# The inputs fold away: the page leads with its answer and one chart (the caption under it names the choice).
with st.expander("Benchmark, setting, your training volume and run group", expanded=False):
    left, right = st.columns([1, 1])
    with left:
        bench_options = scaling.benchmarks(published)
        # the benchmark the reference publishes most on (a coder draft's HumanEval, not GSM8K), until one is picked
        # for this reference
        _ref_b = st.session_state.get("sc_ref", suggested.hub_id)
        _bench = scaling.default_benchmark(published, _ref_b)
        # walk BV 2: a benchmark picked here for this draft stays when the reference changes (it went back to the
        # reference's default, GSM8K, on every change); until one is picked, each reference opens on its own
        _keeps = st.session_state.get("_sc_bench_pick") == (draft.source, st.session_state.get("sc_bench"))
        if bench_options and (
            (st.session_state.get("_sc_bench_for") != _ref_b and not _keeps)
            or st.session_state.get("sc_bench") not in bench_options
        ):
            st.session_state["sc_bench"] = _bench
            st.session_state["_sc_bench_pick"] = None
        st.session_state["_sc_bench_for"] = _ref_b
        bench = st.selectbox(
            "Benchmark",
            bench_options,
            format_func=verdicts.bench_label,
            key="sc_bench",
            on_change=lambda: st.session_state.__setitem__(
                "_sc_bench_pick", (draft.source, st.session_state.get("sc_bench"))
            ),
        )
        x = st.radio("Volume axis", ["samples", "tokens"], horizontal=True, key="sc_x")
        opts = scaling.settings_for(published, bench, x)
        if opts.empty:  # said under the answer heading, where it is seen
            setting_key = None
        else:
            labels = {
                r.setting_key: f"{r.setting_key} — {r.points} points, {r.distinct_volumes} volumes"
                + ("" if r.fittable else " (too few to fit)")
                for r in opts.itertuples()
            }
            # the setting the reference publishes at (Overview's, fewest steps first), until one is picked for this
            # reference and benchmark: the target it publishes, its drafts listed and the headline at one setting
            # (walk X: the most-fitted bs=8 setting said "To reach 2.548 ... at ...bs=8", lmsys's bs=1 figure)
            _ref_now = st.session_state.get("sc_ref", suggested.hub_id)
            _setting_for = (_ref_now, bench)
            if (
                st.session_state.get("_sc_setting_for") != _setting_for
                or st.session_state.get("sc_setting") not in labels
            ):
                st.session_state["sc_setting"] = scaling.default_setting(
                    published, bench, _ref_now, overview.reference_settings(_ref_now), x
                )
                st.session_state["_sc_setting_for"] = _setting_for
            setting_key = st.selectbox("Setting", list(labels), format_func=labels.get, key="sc_setting")
        target_slot = st.container()  # drawn after the reference's target model is known (right column)
    with right:
        vol_choices = ["typed in"] + [f"{v['draft']} ({v['samples']:,} samples, {v['kind']})" for v in volumes]
        # your draft's attached audit (the latest stored under its name), else typed in
        mine = [i for i, v in enumerate(volumes) if draft.volume and v["draft"] == draft.volume]
        # an attached sample does not replace the samples typed in (OwnDraft.training_samples)
        default_choice = mine[-1] + 1 if mine and not (draft.samples and draft.volume_is_sample(volumes)) else 0
        app.follow_draft("sc_vol_pick", vol_choices[default_choice], draft, vol_choices)
        app.follow_draft("sc_vol_typed", draft.samples, draft)
        vol_pick = st.selectbox(
            "Own draft training volume",
            vol_choices,
            key="sc_vol_pick",
            help="From stored dataset audits, or typed in.",
        )
        if vol_pick == "typed in":
            typed = st.number_input(
                "Own training samples",
                min_value=1,
                value=draft.samples,
                step=1000,
                key="sc_vol_typed",
                placeholder="not measured: type a number or attach an audit",
            )
            own_samples = float(typed) if typed else None
            own_tokens = None
            own_name = draft.short
        else:
            vol = volumes[vol_choices.index(vol_pick) - 1]
            own_samples = float(vol["samples"]) if vol.get("samples") else None
            own_tokens = float(vol["tokens"]) if vol.get("tokens") else None
            own_name = str(vol["draft"])
        own_volume = own_samples if x == "samples" else own_tokens
        group_options = ["(none)"] + groups
        group_default = group_options.index(draft.group) if draft.group in group_options else 0
        app.follow_draft("sc_group", group_options[group_default], draft, group_options)
        group = st.selectbox("Live results: run group", group_options, key="sc_group")
        group = None if group == "(none)" else group
        reference = st.selectbox(
            "Reference draft",
            ref_options,
            key="sc_ref",
            on_change=lambda: st.session_state.__setitem__(_SC_PICK, (draft.source, st.session_state.get("sc_ref"))),
        )
        if reference == suggested.hub_id:
            st.caption(suggested.why)
        if target_choice.note:  # the target set on Compare drafts, used or set aside
            st.caption(target_choice.note)
    with target_slot:
        # the same published target Overview's plan aims at (plan.default_target), so both pages agree
        aim = plan.default_target(
            published,
            benchmark=bench,
            setting_key=setting_key,
            target=own_target,
            own=draft.name,
            runs=own_runs,
            # no target named: the published draft of your draft's shape, as Overview and its plan aim at
            reference=suggested.hub_id if suggested.basis == "shape" else None,
        )
        # a keyed field ignores a new default: it follows the setting's published target until a user types one
        default_target = min(max(aim[0], 1.05), 20.0) if aim else 3.0
        if st.session_state.get("sc_target") in (None, st.session_state.get("_sc_target_default")):
            st.session_state["sc_target"] = default_target
        st.session_state["_sc_target_default"] = default_target
        # walk BT 2: a draft not read (a private repo before the token) is not said to name no target
        _aim_said = (aim[1].replace(plan.NO_TARGET, plan.UNREAD_TARGET) if _draft_unread else aim[1]) if aim else ""
        target = st.number_input(
            "Target acceptance length",
            min_value=1.05,
            max_value=20.0,
            step=0.1,
            format="%.3f",
            key="sc_target",
            help="Opens on the published target Overview's plan uses"
            + (f": {aim[0]:g}, {_aim_said}." if aim else "; no published draft reports this setting, so 3.0."),
        )
        st.caption(
            f"Default {aim[0]:g}: {_aim_said}, as Overview's plan."
            if aim
            else "Default 3.0: no published draft reports this benchmark at this setting's chain."
        )
        # the default measured beside yours is a figure of its own prompts and setting, said as such while it is the
        # target (walk AF: run #10's 3.05, prompts not recorded, read as a GSM8K figure on the trend)
        beside = plan.beside_target(
            published, setting_key=setting_key, target=own_target, own=draft.name, runs=own_runs
        )
        measured_aim = beside.figure if beside is not None and abs(float(target) - default_target) < 5e-4 else None
        # the published default's own setting, said where the fit is at another (walk AE: 3.172, no engine or batch
        # size stated, was said "at ...,bs=8,sglang", the fit's)
        aim_setting = aim.setting if aim is not None and abs(float(target) - default_target) < 5e-4 else None
        # another model's draft's figure is said as such in the lead, not only in the caption above (walk AG)
        aim_whose = (
            verdicts.figure_whose(aim[1], own_target, bench, unread=_draft_unread)
            if aim is not None and beside is None and abs(float(target) - default_target) < 5e-4
            else None
        )


def _overview_reads(pick: Any, overview_pick: Any) -> str:
    """Whether Overview reads the same run as your acceptance, said (it reads its reference's settings only: this
    page's reference, or the one Overview suggests where another is picked here)."""
    if overview_pick is None or overview_pick.run.id == pick.run.id:
        return "the run Overview reads too."
    if overview_ref != reference:
        return (
            f"at this page's reference and setting; Overview, on its reference {overview_ref}, reads run "
            f"#{overview_pick.run.id} ({overview_pick.value:.2f}, {overview_pick.why})."
        )
    return (
        f"at this page's setting; Overview reads run #{overview_pick.run.id} ({overview_pick.value:.2f}, "
        f"{overview_pick.why})"
        + (
            f": the reference, {reference}, publishes no acceptance setting."
            if not overview.reference_settings(reference)
            else "."
        )
    )


# --- fit and sentences ---------------------------------------------------------------------------
try:
    group_runs = store.runs(group=group) if group else []
    # runs served with another target than your draft's are another model's points: left out, and named
    group_split = runs_for_target(group_runs, own_target)
    # and runs of another draft (or the target's own MTP) are not your draft's points: left out, and named
    group_own = runs_of_draft(group_split.kept, draft.match_name)
    own_pts = _own_points(list(group_own.kept), own_name, own_samples, own_tokens, None)
    # your acceptance is one run, chosen as Overview chooses it (overview.own_acceptance at the reference's published
    # settings, not the fit's: the fit's bs=8 setting named a batch-1 run "batch 1 (published: 8)" while Overview
    # said "at the published setting ...bs=1"), unless it drafts another chain than the target's: the answer reads it
    _ref_settings = overview.reference_settings(reference)
    own_pick = overview.own_acceptance(
        list(group_split.kept),
        _ref_settings,
        draft=draft.match_name,
        engine=overview.reference_engine(reference),  # the engine it publishes on, where its figure states none
    )
    # the run Overview reads, at its own reference (walk BK5: with AQ-MedAI/Kimi-K2-Instruct-eagle3 picked here, the
    # lead said run #13 was "the run Overview reads too" where Overview, on yuhuili's draft for the target, read #11)
    # Overview's kept reference counts only while it is this draft's (``app.pick_reference`` keeps its owner): walk
    # BQ 8 pasted the target as the draft, then the draft back, and this page named the target's reference as
    # "Overview's reference" before Overview had run for the draft (Overview then picks this draft's suggestion)
    _ov_own = st.session_state.get("_ov_ref_for") == draft.source
    overview_ref = (st.session_state.get("ov_ref") if _ov_own else None) or suggested.hub_id
    overview_pick = (
        own_pick
        if overview_ref == reference
        else overview.own_acceptance(
            list(group_split.kept),
            overview.reference_settings(overview_ref),
            draft=draft.match_name,
            engine=overview.reference_engine(overview_ref),
        )
    )
    if setting_key or aim_setting:
        # the page sets your run against the target at its own setting, so your acceptance is read there (walk BA:
        # run #8's 2.98 at 4 steps beside a 2.64 target at 3 steps, where run #7 measured 2.61 at 3; walk BI: a 1-step
        # run's 1.80 beside RedHat's 3.08 target at steps=3), where a run drafts its chain and Overview's does not
        _aim_key = str(aim_setting or setting_key)
        if not _ref_settings or own_pick is None or not overview.same_chain(own_pick.setting, _aim_key):
            _at_aim = overview.own_acceptance(
                list(group_split.kept),
                [_aim_key],
                draft=draft.match_name,
                engine=overview.reference_engine(reference) if _aim_key in _ref_settings else None,
            )
            if _at_aim is not None and (not _ref_settings or overview.same_chain(_at_aim.setting, _aim_key)):
                own_pick = _at_aim
    lead_pts = (
        own_pts[own_pts["source"].astype(str).str.startswith(f"store run {own_pick.run.id} ")]
        if own_pick is not None
        else own_pts.iloc[0:0]
    )
    points = scaling.scaling_points(published, own=own_pts)
    fit = None
    fit_error = None
    if setting_key is not None:
        sel, fit, fit_error = _select_fit(points, bench, setting_key, x)
    else:
        sel = None
except CompareError as exc:
    st.error(str(exc))
    st.stop()

# the training log first: the headline below, the Learning curve tab and Overview read it with the same inputs
log_read = _read_log(int(scaling.steps_of(setting_key) or 0))
st.subheader("What more data would buy")
# The answer in one line; the fit, your prediction and the volume gap (long coloured blocks that pushed
# the chart below the fold) are in one expander, the chart comes next. What the answer was read from (your run,
# which runs are yours, the inputs) is one caption under it.
read_from: list[str] = []
plan_note = None  # how Overview's plan's samples figure differs: said in the fit's fold-out
# a published draft pasted as yours with no run of it: its own published figure at this setting's chain says whether
# the target is met (walk BG: "To reach 2.64 ... you need about 1.1M samples" for a draft publishing 3.13 there)
_own_pub = (
    plan.own_published(published, draft.name, bench, _ch)
    if own_pick is None and (_ch := plan.chain_of(published, setting_key)) is not None
    else None
)
if _own_pub is not None and _own_pub[0] >= float(target):
    st.markdown(
        f"**{draft.name} already meets the target {float(target):.2f} by its own published figure: it publishes "
        f"AL {_own_pub[0]:.2f} on {verdicts.bench_label(bench)} at {_own_pub[1]}; more data is not needed to reach "
        "it (no run of it is attached to say so for your server).**"
    )
if fit is not None:
    # your own evidence (a run at or above the trend or target, a plateaued log) leads; the trend's volume after
    ref_vol = points.loc[points["draft"] == reference, x].dropna()
    lead, *rest = verdicts.data_lead(
        fit,
        float(target),
        lead_pts,
        own_volume=own_volume,
        reference=reference,
        reference_volume=float(ref_vol.max()) if len(ref_vol) else None,
        curve_verdict=app.own_curve_verdict(draft),
        curve_peak=getattr(app.own_curve(draft), "peak", None),
        curve_ceiling=c.ceiling_words() if (c := app.own_curve(draft)) is not None else None,
        measured=measured_aim,
        target_setting=aim_setting,
        target_whose=aim_whose,
    )
    (lead, *rest), plan_note = verdicts.plan_note_apart([lead, *rest])
    # the answer in one block, the lead in bold on its first line: a block each pushed the page past its height
    st.markdown("  \n".join([f"**{lead}**", *rest]), help=None if rest else "95% confidence band of the fitted mean.")
    if measured_aim is not None and verdicts.measured_off_trend(measured_aim, fit.benchmark):
        st.caption(
            f"Type a {verdicts.bench_label(fit.benchmark)} figure as the target acceptance length above to read the "
            "trend's samples for it."
        )
    if own_pick is not None:
        read_from.append(
            f"Your acceptance: {own_pick.value:.2f}, run #{own_pick.run.id} ({own_pick.why}), "
            + _overview_reads(own_pick, overview_pick)
        )
elif setting_key is not None:
    # the reference's own setting may be too thin to fit (lmsys's Llama-3.1-8B draft publishes GSM8K at bs=1, where
    # two drafts report it): say so, and name the setting of the same chain that can be fitted
    _alt = scaling.fittable_same_chain(points, bench, setting_key, x)
    _ref_keys = overview.reference_settings(reference)
    _met = verdicts.reached_at(setting_key, bench, float(target), lead_pts)
    if _met:  # your own evidence answers, fit or not
        st.markdown(f"**{_met}**")
    st.warning(
        f"No fit for {verdicts.bench_label(bench)} at {setting_key}: {fit_error}"
        + (f" It is the setting {reference} publishes at (the reference)." if setting_key in _ref_keys else "")
        + (
            f" {_alt.setting_key} drafts the same chain {_alt.chain} ({_alt.points} points, {_alt.distinct_volumes} "
            "volumes): pick it under 'Benchmark, setting, your training volume and run group' for a fit there"
            + ("" if _alt.setting_key in _ref_keys else "; the reference publishes no figure at it")
            + "."
            if _alt is not None
            else " Pick a setting marked with more volumes, or add points."
        )
    )
    if own_pick is not None:
        read_from.append(
            f"Your acceptance: {own_pick.value:.2f}, run #{own_pick.run.id} ({own_pick.why}), "
            + _overview_reads(own_pick, overview_pick)
        )
else:
    st.warning(f"No published draft with known training {x} reports {verdicts.bench_label(bench)}.")
if group_own.note:
    read_from.append(group_own.note)
read_from.append(
    f"{verdicts.bench_label(bench)} at {setting_key or 'no setting'}, x axis: {x}; your volume: "
    + (f"{verdicts.human(own_volume)} {x} ({own_name})" if own_volume else "not given")
    + f"; run group: {group or 'none'}; reference: {reference}. Change them under "
    "'Benchmark, setting, your training volume and run group' above."
)
st.caption("  \n".join(read_from))  # one block, one line each: three blocks' gaps pushed the page past its height
if own_samples and (_curve := app.own_curve(draft)) is not None:  # Overview's warning, on the page of the log
    from comparelib.analysis.curves import volume_note

    if _volume_note := volume_note(_curve, own_samples, f"your volume for {own_name}"):
        st.warning(_volume_note, icon=":material/warning:")
if group_split.note:
    st.warning(group_split.note, icon=":material/warning:")
if fit is not None or (own_samples and x == "samples"):
    with st.expander("The fit, its prediction at your volume, and the volume gap (predictions)", expanded=False):
        if fit is not None:
            st.caption(
                f"Fit: acceptance = {fit.a:.2f} (±{fit.se_a:.2f}) + {fit.b:.2f} (±{fit.se_b:.2f}) · log10({x}); "
                f"n = {fit.n} points, {fit.distinct} volumes, R² = {fit.r2:.3f}, residual SE {fit.residual_se:.2f}."
                + (f" {plan_note}" if plan_note else "")
            )
            if own_volume:
                mean, lo, hi, clipped = scaling.predict_bounded(fit, own_volume)
                unsaid = scaling.unsaid_at(fit, own_volume)  # one rule: a clip is not the trend's value
                st.markdown(
                    f"At your {verdicts.human(own_volume)} {x} the fit cannot say what a draft reaches: {unsaid}."
                    if unsaid
                    else f"At your {verdicts.human(own_volume)} {x} the fit predicts **{mean:.2f}** "
                    f"(95% band {lo:.2f}..{hi:.2f})"
                    + (", an extrapolation" if fit.extrapolates(own_volume) else "")
                    + ("; clipped to the possible range" if clipped else "")
                    + "."
                )
                # your own measured acceptance next to the fit, and why they may disagree
                against = verdicts.measured_against_fit(fit, own_volume, lead_pts)
                if against is not None:
                    agrees, sentence = against
                    (st.success if agrees else st.warning)(sentence)
                else:
                    st.caption(
                        "No acceptance measured for your draft yet (attach a run group in the sidebar) to set "
                        "against the fit."
                    )
        if own_samples and x == "samples":
            try:
                verdict = _gap_verdict(own_samples, reference, bench, points, x, setting_key)
                st.info(verdict.sentence)
            except CompareError as exc:
                st.error(str(exc))

# --- chart and tables ----------------------------------------------------------------------------
try:
    band = scaling.band(fit, clip=True) if fit is not None else None
    chart_kw = {"benchmark": bench, "setting_key": setting_key, "x": x, "band": band, "own_volume": own_volume}
    app.show_chart(charts.scaling_chart, points, **chart_kw)
    stem = f"acceptance-vs-{x}-{bench}"
    chart_exports = [
        ("PNG", charts.chart_to_png, "png", "image/png", "sc_dl_png"),
        ("SVG", charts.chart_to_svg, "svg", "image/svg+xml", "sc_dl_svg"),
        ("Vega-Lite JSON", charts.chart_to_vegalite_json, "vl.json", "application/json", "sc_dl_vl"),
    ]
    for col, (label, render, ext, mime, key) in zip(st.columns(3), chart_exports, strict=False):
        # rendered only when clicked: PNG/SVG go through vl-convert
        col.download_button(
            label,
            data=lambda render=render: render(charts.scaling_chart(points, **chart_kw)),  # built when clicked
            file_name=f"{stem}.{ext}",
            mime=mime,
            key=key,
            on_click="ignore",
        )
except CompareError as exc:
    st.error(str(exc))
# The rest, one tab at a time: the page is as tall as the tab shown, not the sum of every section, and only
# the tab shown is built (a switch reruns the page): each tab's grids, charts and inputs cost the browser.
tab_live, tab_curve, tab_cost, tab_points, tab_offline = st.tabs(TABS, key="sc_tab", on_change="rerun")


def _points_tab() -> None:
    if sel is not None:
        table = sel.points[
            ["draft", "kind", "benchmark", "setting_key", "samples", "tokens", "accept_length", "source"]
        ]
        st.markdown(f"**Points in the fit and own points at this setting** ({len(table)})")
        app.show_frame(table, key="sc_points_table")
        t1, t2 = st.columns(2)
        t1.download_button(
            "Points CSV",
            data=functools.partial(export.render, table, "csv"),
            file_name=f"{stem}-points.csv",
            mime=export.MIME["csv"],
            key="sc_dl_csv",
            on_click="ignore",
        )
        t2.download_button(
            "Points Markdown",
            data=functools.partial(export.render, table, "md"),
            file_name=f"{stem}-points.md",
            mime=export.MIME["md"],
            key="sc_dl_md",
            on_click="ignore",
        )
        _fold_sc_excluded_open = st.expander(
            f"Excluded points ({len(sel.excluded)}) and why", key="sc_excluded_open", on_change="rerun"
        )  # built only when opened
        if _fold_sc_excluded_open.open:
            with _fold_sc_excluded_open:
                ex = sel.excluded[["draft", "kind", "benchmark", "setting_key", "accept_length", "reason"]]
                ex = (
                    ex[ex["benchmark"] == bench]
                    if st.checkbox("only this benchmark", value=True, key="sc_ex_bench")
                    else ex
                )
                app.show_frame(ex, key="sc_excluded_table")


def _live_tab() -> None:
    st.markdown("**Live results for the draft**")
    if group is None:
        st.caption("Pick a run group to see measured throughput and acceptance against num_steps.")
    else:
        try:
            at_ref = scaling.fit_at_reference(fit, points, reference) if fit is not None else None
            # one sweep (batch size, engine) at a time: the prediction and the runs drawn beside it are of one
            # sweep (batch-1 runs at ~100 tok/s were drawn under a batch-8 prediction at ~500)
            choices, default = _sweep_choices(group_runs, own_target, draft.match_name)
            sweep = None
            if len(choices) > 1:
                wheres = [c.where for c in choices]
                labels = {c.where: c.label for c in choices}  # its runs counted, those a fit leaves out said apart
                picked = st.selectbox(
                    "Sweep",
                    wheres,
                    index=default if default is not None else 0,
                    format_func=labels.__getitem__,
                    key="sc_sweep",
                    help="The batch size and engine the speed model is fitted to; the CLI's `speedup --batch N "
                    "--engine E` makes the same choice.",
                )
                if default is None or picked != wheres[default]:
                    sweep = choices[wheres.index(picked)].key
            own_run = (
                (int(own_pick.run.id), int(own_pick.run.num_steps), float(own_pick.value))
                if own_pick is not None and own_pick.run.num_steps
                else None
            )
            look = _live_outlook(group_runs, at_ref, reference, x, own_target, draft.match_name, sweep, own_run, bench)
            model, measured = look.model, look.measured
            if look.no_scenario:
                st.caption(look.no_scenario)
            for part in app.chart_spec(charts.sweep_chart_parts, measured, look.prediction, model.baseline_tok_s):
                app.draw_chart(part)  # one chart per part: each fits the column
            if look.not_drawn:
                st.caption(look.not_drawn)
            if look.best is None:
                st.warning("No prediction of the best num_steps yet. Missing: " + "; ".join(look.missing) + ".")
            else:
                (st.warning if look.best.measured_faster or look.best.recommendation else st.markdown)(
                    look.best.sentence
                )
                if look.missing:
                    st.caption("Missing: " + "; ".join(look.missing) + ".")
                if look.best_with_more_data is not None:
                    st.markdown(
                        f"With the acceptance the fit predicts for {reference}'s data volume: "
                        f"{look.best_with_more_data.sentence}"
                    )
            with st.expander("How the speed model was identified"):
                for note in model.notes:
                    st.markdown(f"- {note}")
                # elsewhere: the per-position rates a run reported where the model reads them (walk AS: "geometric"
                # beside a note reading them from run #10's five rates)
                _elsewhere = (
                    "from the per-position rates a run reported elsewhere (the notes above say which)"
                    if model.per_position
                    else "geometric elsewhere"
                )
                st.caption(
                    "Dashed lines are predictions from the cycle-cost model (verify + steps × step cost): the "
                    f"acceptance is the measured one where the sweep measured that num_steps, {_elsewhere}; "
                    "tok/s is always predicted. They are never stored as measurements."
                )
            if (measured["kind"] == "example").any():
                st.caption(
                    "Example data: the team's Kimi-K2.5 session, measured by hand; only the stored points are real."
                )
        except CompareError as exc:
            st.error(str(exc))


# --- draft cost: two candidate drafts side by side ----------------------------------------------
@st.cache_data(show_spinner=False, ttl=3600, max_entries=128)  # keyed by what visitors type: bounded
def _draft_figures(own: str, token_tag: str) -> list[tuple[str, dict]]:  # token_tag: a fingerprint, never the token
    return draftcost.figure_sources(own)


def _cost_tab() -> None:
    st.subheader("Draft cost: is a bigger draft worth its step?")
    st.caption(
        "Draft step costs measured with torch (`python -m comparelib draft-cost`, `benchmarks/bench_draftcost.py`), "
        "set against your sweep: the draft it measured keeps the cycle fitted to its runs, and each other draft's "
        "per-step cost is that fit's plus the difference of the two drafts' step costs in the figures picked; tok/s "
        "per num_steps is predicted for each. This page shows recorded figures only: it cannot run a GPU benchmark "
        "for you."
    )
    if group is None:
        st.caption("Pick a run group above: the candidates share its verify costs.")
    else:
        try:
            try:
                with settings.session_token(app.hub_token()):
                    figures = _draft_figures(draft.source, settings.token_fingerprint())
            except CompareError as exc:  # your draft cannot be read: the built-in pair still shows
                st.caption(f"Your draft is not in the step-cost estimate: {exc}")
                figures = _draft_figures("", "")
            pick = st.selectbox("Step costs", [label for label, _ in figures], key="sc_dc_source")
            record = dict(figures)[pick]
            drafts = [d["draft"] for d in record["drafts"]]
            # your draft's own runs, as the Live results tab fits them (walk AV: the target's NEXTN runs were fitted)
            model_dc, runs_note_dc = draftcost.sweep_model(group_runs, target=own_target, draft=draft.match_name)
            # typed acceptances are read at the largest num_steps the sweep measured (the most positions); every
            # draft's curve is the sweep's measured acceptance at each num_steps it measured (draftcost.compare)
            k_dc = draftcost.anchor_steps(model_dc)
            acc_dc = float(model_dc.measured_accept(k_dc) or 1.0)
            anchor_run = speedup.runs_text(model_dc.measured_runs(k_dc)).replace(" (their mean)", "")
            # the sidebar's draft, where these figures have it; else said to have none (never another in its place)
            own = draftcost.served_index(record, draft.source, draft.short)
            absent = f"{draft.short} (no step cost in these figures)"
            firsts = drafts if own is not None else [absent, *drafts]
            app.follow_draft("sc_dc_first", drafts[own] if own is not None else absent, draft, firsts)
            first = st.selectbox("The draft the sweep measured", firsts, key="sc_dc_first")
            served_in = first in drafts
            served_name = first if served_in else draft.short
            order = [first] + [d for d in drafts if d != first] if served_in else list(drafts)
            estimate = bool(record.get("estimate"))
            if served_in and (widths := draftcost.other_widths(record, drafts.index(first))):
                st.caption(widths)
            cols = st.columns(len(order))
            candidates = []
            for col, name in zip(cols, order, strict=False):
                d = record["drafts"][drafts.index(name)]
                ms, how = draftcost.step_ms_for_batch(d, model_dc.concurrency, estimate=estimate)
                acc = col.number_input(
                    f"Acceptance of {name} at {k_dc} steps",
                    min_value=1.0,
                    max_value=float(k_dc + 1),
                    value=acc_dc,
                    step=0.05,
                    key=f"sc_dc_acc_{drafts.index(name)}",
                    help=f"Starts at {anchor_run}'s measured acceptance at {k_dc} steps; left there, each num_steps "
                    "uses the acceptance the sweep measured at it. A draft that run did not serve has its own: type "
                    "it, and the sweep's curve is carried to pass through it.",
                )
                col.caption(
                    f"step {ms:.2f} ms ({how}); {d['params']['excluding_embedding'] / 1e9:.2f}B outside the embedding"
                )
                typed = None if abs(float(acc) - acc_dc) < 1e-9 else float(acc)
                candidates.append(draftcost.Candidate(name, ms, typed=typed, at_steps=k_dc, step_how=how))
            missing_dc = speedup.optimum_missing(model_dc)
            if speedup.unphysical(model_dc):  # tok/s rising without end from a cycle no server has: not shown
                st.warning(
                    "No predicted tok/s per draft: the sweep's fitted costs are not a server's. "
                    + "; ".join(missing_dc),
                    icon=":material/block:",
                )
            else:
                side = draftcost.compare(model_dc, candidates, served=served_in)
                table = draftcost.side_by_side(side, order, model_dc.measured, acceptances=True)
                st.caption(
                    f"Acceptances start at {anchor_run}'s measured {acc_dc:.2f} at {k_dc} steps. "
                    + draftcost.acceptance_sources(model_dc, candidates, served=served_name)
                    + " "
                    + draftcost.step_sources(
                        model_dc, candidates, served=served_in, device=record.get("device_name"), estimate=estimate
                    )
                    + f" Measured: tok/s of the group's runs ({served_name}'s), named by run. Predicted: the sweep's "
                    "fit with each draft's per-step cost above and the acceptance used."
                    + (f" {runs_note_dc}" if runs_note_dc else "")
                )
                st.dataframe(table, width="stretch", key="sc_dc_table", placeholder=app.MISSING)
                unset = draftcost.anchor_problem(model_dc, served_name, in_figures=served_in)
                if unset:  # no draft of these figures is the one the runs measured: no gap to one of them
                    st.warning(unset, icon=":material/compare_arrows:")
                else:
                    gap = draftcost.prediction_gaps(
                        table, first, because=draftcost.gap_reason(model_dc, candidates[0], estimate=estimate)
                    )
                    if gap:
                        st.warning(gap, icon=":material/compare_arrows:")
            if missing_dc and not speedup.unphysical(model_dc):  # the sweep's rule: no "best" from a guess
                st.info("No best num_steps per draft yet: " + "; ".join(missing_dc))
            elif not missing_dc:
                for name, cand in zip(order, candidates, strict=True):
                    # the runs measured the first draft only where it is in the figures (``served_in``)
                    opt = draftcost.best(model_dc, side, cand, served=served_in and name == first)
                    caveat = draftcost.best_caveat(table, first) if name == first and served_in else None
                    st.markdown(f"**{name}**: {opt.sentence}" + (f" {caveat}" if caveat else ""))
            _fold_sc_dc_figures_open = st.expander(
                "Step-cost figures", key="sc_dc_figures_open", on_change="rerun"
            )  # built only when opened
            if _fold_sc_dc_figures_open.open:
                with _fold_sc_dc_figures_open:
                    app.show_frame(draftcost.figures_frame(record), key="sc_dc_figures")
                    if record.get("estimate"):
                        st.caption(
                            "Estimate, not a measurement: the bytes each step reads (weights, gathered embedding "
                            "rows, KV cache of 2048 tokens) at the GPU's nominal peak bandwidth, a lower bound on the "
                            "step time. Record real figures with `python benchmarks/bench_draftcost.py --device cuda "
                            "--out comparelib/builtin/draftcost/<gpu>.json`."
                        )
                    graphs = (
                        ", each forward replayed as a CUDA graph"
                        if record.get("cuda_graphs")
                        else ""
                        if estimate
                        else ", no CUDA graphs"
                    )
                    st.caption(
                        f"One GPU, no tensor parallelism{graphs}; an engine serving a large target may shard "
                        f"the draft across its GPUs. The sweep's per-step cost was {model_dc.t_step_ms:.2f} ms; the "
                        "caption above the table says how each draft's is set from it and these figures."
                    )
        except CompareError as exc:
            st.error(str(exc))


# --- learning curve from the training run's own logs ---------------------------------------------
def _forget_upload() -> None:
    """Your draft's uploaded log is dropped (and deleted once no session holds it)."""
    held = st.session_state.get(LOG_UPLOADS, {}).pop(draft.identity, None)
    if held is not None:
        uploadgate.hold(None, held[0])


def _upload_changed() -> None:
    if st.session_state.get(LOG_UPLOAD) is None:  # the file was removed from the uploader
        _forget_upload()


LOG_KEPT = "_lc_kept"  # {draft name: (kept row id, the reading it was kept from)} of the logs kept this session
LOG_KEPT_IDS = "_lc_kept_ids"  # the ids of every log this session kept: its own to forget (store.may_forget_curve)


def _forgetter() -> Forgetter:
    """This browser session as the store's owner-only rule sees it."""
    kept_here = frozenset(st.session_state.get(LOG_KEPT_IDS, ()))
    return Forgetter(kept_here=kept_here, visitor=app.visitor(), login=settings.require_login())


def _not_yours(kept: dict, keeping: str) -> str:
    """For a visitor the kept log is not theirs to forget (``store.may_forget_curve``): who may, and what keeping
    does (a new row shown in its place, this one left under it); "" for its keeper."""
    if may_forget_curve(kept, _forgetter()):
        return ""
    return f" Only {curve_keepers(kept, login=settings.require_login())} can forget it; {keeping}."


def _forget_kept(kept: dict) -> None:
    """ "Forget the stored log", drawn only for whoever kept it (the session, or its signed-in keeper): the curve
    kept with your draft (and their older ones) leaves the store, for everyone."""
    if not may_forget_curve(kept, _forgetter()):
        return
    if not st.button("Forget the stored log", key="lc_forget"):
        return
    try:
        _store(settings.database_url()).forget_learning_curve(draft.name, up_to=int(kept["id"]), by=_forgetter())
    except CompareError as exc:
        st.error(str(exc))
        return
    st.session_state.get(LOG_KEPT, {}).pop(draft.name, None)
    app.kept_curve_changed()
    st.rerun()


def _kept_shown(kept: dict) -> None:
    """Under the inputs, when no log is loaded in this session: the curve shown is the one kept with your draft."""
    not_yours = _not_yours(
        kept,
        "keeping another log shows that one instead, and this one stays stored under it (shown again once that one "
        "is forgotten)",
    )
    st.caption(
        f"Showing the training log kept with your draft ({draft.name}): {curves.kept_words(kept)}.{not_yours} "
        "Upload a log or give a path to see another" + ("." if not_yours else "; keep that one to show it instead.")
    )
    _forget_kept(kept)


def _keep_controls(lc: curves.Curve, reading: tuple, name: str, kept: dict | None) -> None:
    """ "Keep this log with your draft": its curve's points (not the log) stored under your draft's name, so a reload
    or a link to the draft shows it and Overview weighs it; what is kept already, and forgetting it."""
    if kept is not None and st.session_state.get(LOG_KEPT, {}).get(draft.name) == (kept["id"], reading):
        st.caption(
            f"Kept with your draft ({draft.name}): {curves.kept_words(kept)}. A reload or a link to this draft shows "
            "this curve where no log is loaded, and Overview weighs it."
        )
        _forget_kept(kept)
        return
    if kept is not None:
        not_yours = _not_yours(
            kept,
            "keeping this log shows yours instead, and theirs stays stored under it (shown again once yours is "
            "forgotten)",
        )
        st.caption(
            f"A log is kept with your draft ({draft.name}): {curves.kept_words(kept)}."
            + (not_yours or " Keeping this log shows it instead.")
        )
    else:
        st.caption(
            "Keeping stores this curve's points (not the log) under your draft's name: a reload or a link to this "
            "draft then shows it, and Overview weighs it."
        )
    if st.button("Keep this log with your draft", key="lc_attach"):
        _, _, batch, per_epoch, steps, split = reading
        try:
            new_id = _store(settings.database_url()).save_learning_curve(
                draft=draft.name,
                source=name,
                attached_by=app.visitor(),
                **curves.to_stored(lc, batch_size=batch, epoch_samples=per_epoch, steps=steps, split=split),
            )
        except CompareError as exc:
            st.error(str(exc))
            return
        st.session_state.setdefault(LOG_KEPT, {})[draft.name] = (new_id, reading)
        st.session_state.setdefault(LOG_KEPT_IDS, set()).add(new_id)
        app.kept_curve_changed()
        st.rerun()
    if kept is not None:
        _forget_kept(kept)


def _curve_tab(shown: bool) -> None:
    """Its inputs are also built while another tab is shown if a log was uploaded: an uploader that is not
    drawn forgets its file. The curve and its tables only while shown."""
    st.subheader("Learning curve from your training log")
    st.caption(
        "More data, or a different model? The draft's own training curve answers better than pooled published "
        "drafts. Per logged point, tau_sim = 1 + Σₖ Πᵢ≤ₖ accᵢ (the engines' 1 + accepted/drafts) from the "
        "per-position accuracies your trainer logs: SpecForge console or TensorBoard, speculators, the EAGLE "
        "authors' trainer, or a CSV with step, samples_seen and acc_0..acc_K. Eval points are kept apart from train "
        "points."
    )

    # the samples per logged step and per epoch in view beside the upload, where the curve's note sends the user;
    # positions and split, set less often, in the fold-out under them
    lc_in, lc_opts = st.columns([1, 1])
    with lc_in:
        st.file_uploader(
            "Training log (console log, CSV or a TensorBoard events file)",
            key=LOG_UPLOAD,
            accept_multiple_files=False,
            on_change=_upload_changed,
        )
        st.text_input(
            "…or a path on this machine (file or TensorBoard run directory)",
            key="lc_path",
            placeholder="outputs/run/runs",
        )
    with lc_opts:
        st.number_input(
            "Samples per logged step (global batch size)",
            min_value=0,
            value=0,
            step=1,
            key="lc_batch",
            help="samples_seen = step × this, when the log does not record samples. 0: leave the x axis in steps.",
        )
        st.number_input(
            "Samples per epoch (per-epoch logs, EAGLE trainer)", min_value=0, value=0, step=1000, key="lc_epoch"
        )
    with lc_opts.expander("How to read the log (positions, split)"):
        lc_steps_default = scaling.steps_of(setting_key) or 0
        st.number_input(
            "Draft positions used (chain steps)",
            min_value=0,
            max_value=64,
            value=int(lc_steps_default),
            key="lc_steps",
            help="tau_sim over the first N positions, so it compares with live runs and published drafts at that "
            "setting's num_steps. 0: every position the trainer logged.",
        )
        st.radio(
            "Fit on",
            ["auto", "train", "eval"],
            horizontal=True,
            key="lc_split",
            help="auto: eval points when there are 5 or more (held out), else train points.",
        )

    # the log and its curve were read before the page's headline, with these inputs (_read_log)
    lc_paths, lc_name = log_read.paths, log_read.name
    if log_read.error is not None and not lc_paths:  # an upload that could not be kept
        st.error(log_read.error)
    if log_read.held:
        # uploaded for this draft before another draft (or page) was shown, which emptied its uploader
        with lc_in:
            st.caption(f"Using {lc_name}, uploaded for this draft earlier in this session.")
            st.button("Forget this log", key="lc_forget_upload", on_click=_forget_upload)

    if not shown:
        return
    kept = app.stored_curve(draft)  # the log kept with your draft (none for the built-in example)
    lc_key: tuple = ()
    if not lc_paths and kept is None:
        st.caption("Upload a training log or give a path to see its learning curve and a verdict.")
    elif not lc_paths and kept is not None and kept["curve"] is None:
        with lc_in:
            _kept_shown(kept)
        st.warning(str(kept["problem"]), icon=":material/warning:")
    else:
        try:
            if lc_paths:
                if log_read.curve is None:
                    raise CompareError(str(log_read.error))
                lc, lc_key = log_read.curve, log_read.key
            else:  # a reload or a link to your draft: the log kept with it
                assert kept is not None
                lc, lc_key = kept["curve"], ("kept", kept["id"])
            lc_pub = curves.published_frame(published, benchmark=bench, setting_key=setting_key)
            lc_live = curves.live_frame(list(group_own.kept), lc)
        except CompareError as exc:
            st.error(str(exc))
        else:
            if lc_paths:
                if not draft.is_example:
                    with lc_in:
                        _keep_controls(lc, lc_key, lc_name, kept)
            else:
                with lc_in:
                    _kept_shown(kept)
            badge = {
                "rising": ":green[:material/trending_up: still rising]",
                "plateau": ":orange[:material/trending_flat: plateau]",
                "overfitting": ":red[:material/trending_down: overfitting]",
                "too-few-points": ":gray[:material/more_horiz: too few points]",
            }
            if lc.verdict == "plateau" and lc.peak is not None:  # eval fell past noise: not drawn as flat
                badge["plateau"] = ":orange[:material/trending_down: plateau, eval fell after its peak]"
            # the CLI reads every position unless --steps, this the setting's num_steps: said on both (in the
            # verdict's paragraph: a caption of its own took the page past its height at 1400 px)
            st.markdown(
                f"**{badge[lc.verdict]}** — {lc.sentence} *{lc.positions_words()}: 'Draft positions used' (How to "
                "read the log) sets them, the chosen setting's num_steps by default.*"
            )
            if lc.evidence.get("note"):
                st.caption(lc.evidence["note"])
            # the curve across the page (in a column its legends and subtitle lines left the plot ~100 px)
            # the curve is known by what it was read from: hashing its thousands of points is slower than its chart
            # only runs drafting the curve's positions are on its scale (walk BH: a 4-step run's 3.46 drawn over a
            # 3-position curve whose ceiling is 2.68, while the table beside it refused the comparison)
            on_scale, not_drawn = curves.on_curve(lc_live, lc.positions)
            app.show_chart(charts.curve_chart, lc, published=lc_pub, live=on_scale, inputs=(lc_key, lc_pub, on_scale))
            not_drawn = f" {not_drawn}" if not_drawn else ""  # said under the table (a caption of its own took the
            # page past its height at 1400 px)
            live_col, pub_col = st.columns(2)
            with live_col:
                st.markdown("**Live acceptance length (stored runs)**")
                if len(lc_live):
                    shown = tables.LIVE_ACCEPTANCE.order([c for c in lc_live.columns if c != "topk"])
                    if lc_live["tau_sim_peak"].isna().all():  # no eval peak before a fall past noise
                        shown.remove("tau_sim_peak")
                    app.show_table(lc_live, tables.LIVE_ACCEPTANCE, "lc_live_table", column_order=shown)
                    st.caption(
                        f"{curves.live_words(lc)} Live acceptance below it usually means the served prompts differ "
                        "from the training data, or the wiring does." + not_drawn
                    )
                else:
                    st.caption(
                        "No stored speculative run" + (f" in {group}" if group else "; pick a run group above") + "."
                    )
            with pub_col:
                st.markdown(f"**Published drafts at {verdicts.bench_label(bench)}, {setting_key or 'no setting'}**")
                if len(lc_pub):
                    app.show_frame(lc_pub, key="lc_pub_table")
                else:
                    st.caption("No published draft reports this benchmark at this setting.")
            _fold_lc_evidence_open = st.expander(
                "Evidence, fit and the curve's points", key="lc_evidence_open", on_change="rerun"
            )  # built only when opened
            if _fold_lc_evidence_open.open:
                with _fold_lc_evidence_open:
                    if lc.fit is not None:
                        f = lc.fit
                        st.markdown(
                            f"Fit on {f.n} {f.split} points: tau = {f.tau_inf:.3f} − {f.a:.3f} · "
                            f"(x / {verdicts.human(f.x_ref)})^−{f.b:.3f}; R² = {f.r2:.3f}, "
                            f"residual SE {f.residual_se:.3f}."
                        )
                    st.json(lc.evidence, expanded=False)
                    st.json(lc.stats, expanded=False)
                    lc_frame = lc.frame()
                    app.show_frame(lc_frame, key="lc_points_table")
                    st.download_button(
                        "Curve points CSV",
                        data=functools.partial(export.render, lc_frame, "csv"),
                        file_name="learning-curve.csv",
                        mime=export.MIME["csv"],
                        key="lc_dl_csv",
                        on_click="ignore",
                    )


# --- acceptance before serving: a trained checkpoint on hidden-state dumps -----------------------
def _offline_section() -> None:
    """Self-contained: inputs, one evaluation on click, its figures, and the gap to live runs of that draft."""
    from comparelib.analysis import offline

    st.markdown("**Acceptance before serving: evaluate a trained draft on hidden-state dumps**")
    st.caption(
        "Replays the engines' greedy chain schedule on your dumps with the draft's real weights (`python -m "
        "comparelib eval-draft`). al_replay is the serving figure; al_positions reads high and is not one; "
        "SpecForge's simulated_acc_len is shown only to explain a training log."
    )
    c1, c2, c3 = st.columns(3)
    draft_in = c1.text_input("Draft (folder or Hub repo)", key="od_draft")
    dumps_in = c2.text_input("Dumps folder (inside the data root)", key="od_dumps")
    target_in = c3.text_input("Target (folder or Hub repo; only embedding, norm, lm_head are read)", key="od_target")
    c4, c5 = st.columns(2)
    steps_in = int(c4.number_input("Largest num_steps", 1, offline.MAX_STEPS, 5, key="od_steps"))
    max_in = int(c5.number_input("At most this many dump files", 1, 10_000, 16, key="od_max"))
    if st.button("Evaluate", key="od_run", disabled=not (draft_in and dumps_in)):
        try:
            paths.resolve_user_path(dumps_in, "dump folder")
            with st.spinner("Evaluating on CPU..."):
                ev = offline.evaluate(draft_in, dumps_in, target=target_in or None, steps=steps_in, max_samples=max_in)
            st.session_state["od_result"] = ev.to_json()
        except CompareError as exc:
            st.session_state.pop("od_result", None)
            st.error(str(exc))
    res = st.session_state.get("od_result")
    if not res:
        return
    st.markdown(
        f"**{res['draft']}** on {res['samples']} samples ({res['tokens']:,} tokens, {res['format']}); "
        f"target tokens: {res['labels_from']}."
    )
    frame = pd.DataFrame(res["by_steps"])
    app.show_frame(frame, key="od_by_steps")
    acc = ", ".join("-" if a is None else f"{a:.3f}" for a in res["acc"])
    st.markdown(f"Conditional acceptance per position (acc_k): {acc}")
    v = res["vocab"]
    if v["ceiling"] is not None:
        st.markdown(
            f"Draft vocabulary {v['draft_vocab']:,} of {v['target_vocab']:,}: it can emit "
            f"{v['ceiling'] * 100:.1f}% of the target's tokens here, which caps acc_1."
        )
    for f in v["findings"]:
        (st.error if f["severity"] == "error" else st.info)(f"{f['code']}: {f['message']}")
    if res["by_domain"]:
        st.dataframe(
            pd.DataFrame(
                [
                    {"domain": d, "samples": x["samples"], "al_replay": x["by_steps"][-1]["al_replay"]}
                    for d, x in res["by_domain"].items()
                ]
            ),
            hide_index=True,
            key="od_domains",
            placeholder=app.MISSING,
        )
    try:
        gap = offline.serve_gap(res, _store(settings.database_url()).runs())
    except CompareError as exc:
        gap = []
        st.caption(f"Live runs not read: {exc}")
    if gap:
        st.markdown("**Offline against live runs of the same draft** (train/serve gap)")
        app.show_frame(pd.DataFrame(gap), key="od_gap")
        for g in gap:
            if g["likely_causes"]:
                st.markdown(f"Run {g['run_id']}: {g['verdict']}; usually: " + "; ".join(g["likely_causes"]) + ".")
    else:
        st.caption("No stored live run of this draft at these num_steps: nothing to compare yet.")
    for note in res["notes"]:
        st.caption(note)


if tab_live.open:
    with tab_live:
        _live_tab()
if tab_curve.open or st.session_state.get(LOG_UPLOAD) is not None:
    with tab_curve:
        _curve_tab(shown=bool(tab_curve.open))
if tab_cost.open:
    with tab_cost:
        _cost_tab()
if tab_points.open:
    with tab_points:
        _points_tab()
if tab_offline.open:
    with tab_offline:
        _offline_section()
