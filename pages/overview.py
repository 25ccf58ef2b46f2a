"""Overview: the answer first. How our draft differs from a published one, and which gap is largest."""

from __future__ import annotations

import functools
from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException, StreamlitPageNotFoundError

import app

app.ensure_routed()

st.title("Overview")
# a markdown link opens a new tab: a new session, without the Hub token typed in this one (walks BH, BJ: Compare
# opened from a count said the gated target "could not be read"). With a token typed, numbers are not links; the
# page links at the bottom and the sidebar keep the session
_TOKEN_TYPED = app.hub_token() is not None
st.caption(
    "The answer first, for your draft (chosen in the sidebar, carried in the link) and a published reference: "
    "size, training data, acceptance and live speed, and which of these gaps is the largest. "
    + (
        "With a Hub token typed, numbers are not links (a link opens a new tab, without the token); the page links "
        "at the bottom and the sidebar keep it."
        if _TOKEN_TYPED
        else "Each number links to the page that produced it."
    )
)

draft = app.own_draft()  # the sidebar (where a user picks the draft) comes before the page's imports
app.keep_values()  # also when the page runs on its own (AppTest): the reference picked below is kept

# The page's own modules load after its heading and the sidebar are drawn, and in two steps: what the answer
# needs (no pandas), then, once the answer is on screen, pandas and the rest (the published trend, the plan and
# its exports, ~0.4 s on a fresh server).
from comparelib import settings
from comparelib.analysis import overview, summary  # light: no pandas (summary's bullets are the CLI's too)
from comparelib.errors import CompareError
from comparelib.models import comparison
from comparelib.models.draft import OwnDraft

_store = app.open_store


@st.cache_data(show_spinner=False)
def _drafts_with_config() -> list[str]:
    return overview.reference_choices()


@st.cache_data(show_spinner=False)
def _published_points():  # type: ignore[no-untyped-def]
    return scaling.published_points()


_entry = app.draft_entry  # sizes need the config only; shared with Acceptance vs data's reference


def _link(text: str, page: str, query: list[tuple[str, str]] | None = None) -> str:
    """A markdown link to one of the app's pages (url paths as app.py registers them), carrying the draft; the text
    alone where a Hub token was typed in this session, which a new tab would not have."""
    if _TOKEN_TYPED:
        return text
    q = list(query or []) + list(draft.to_query().items())
    url = f"/{page}" + (f"?{urlencode(q)}" if q else "")
    return f"[{text}]({url})"


def _as_list(value: str | list[str]) -> list[str]:
    return value if isinstance(value, list) else [value]


def _say(said: summary.Said) -> None:
    """One thing said beside the answer, shown as its kind says."""
    if said.kind == "warning":
        st.warning(said.text, icon=":material/warning:")
    elif said.kind == "info":
        st.info(said.text)
    elif said.kind == "error":
        st.error(said.text)
    else:
        st.caption(said.text)


def plan_section(
    own: OwnDraft,
    entry: comparison.Entry,
    runs: list,  # type: ignore[type-arg]
    volumes: list,  # type: ignore[type-arg]
    answer: overview.Answer,
    default: plan.Plan | None = None,
) -> None:
    """What closes the gap, and what it costs: the plan for this draft (``comparelib.analysis.plan``).

    Self-contained: reads only its arguments, its own widgets and the cached published points, so the
    answer above can change freely. Closed, it shows the option ranked first (at the default inputs: ``default``
    where it was built already); the table, the charts (and Altair) and the sources are built only when a user
    opens it."""
    st.subheader("What closes the gap, and what it costs")
    lead_slot = st.container()  # the ranked-first line goes above the fold-out
    box = st.expander(
        "The plan: every option ranked, its cost, the fit behind it, and exports", key="ov_plan", on_change="rerun"
    )
    if not box.open:  # the ranked-first line only; the table, charts and sources are built when opened
        result = default or _plan(own, entry, runs, volumes, None, "H200", plan.BATCHES[0], answer)  # the defaults
        if result is not None and (linked := _linked_batch(result.rank_batches)) != result.rank_batch:
            result = _plan(own, entry, runs, volumes, None, "H200", linked, answer)  # the batch a link ranks at
        if result is not None:
            with lead_slot:
                _plan_lead(result, answer)
        return
    with box:
        _plan_body(own, entry, runs, volumes, answer, default)


def _plan(
    own: OwnDraft,
    entry: comparison.Entry,
    runs: list,  # type: ignore[type-arg]
    volumes: list,  # type: ignore[type-arg]
    target_al: float | None,
    gpu_name: str,
    rank_batch: int,
    answer: overview.Answer,
) -> plan.Plan | None:
    """The plan for these inputs (``summary.plan_for``, the CLI's ``overview`` too: the training log loaded on
    Acceptance vs data, else the one kept with the draft, fitted instead of the published trend), or None after
    saying why there is none. It cites the run the answer reads "your acceptance" from (``Answer.own``)."""
    try:
        return summary.plan_for(
            own,
            entry,
            runs,
            volumes,
            published=_published_points(),
            curve=app.own_curve(own),
            target_al=target_al,
            gpu_name=gpu_name,
            rank_batch=int(rank_batch),
            own_run=answer.own.run.id if answer.own is not None else None,
        )
    except CompareError as exc:
        st.info(f"No plan for this draft: {exc}")
        return None


def _linked_batch(offered: tuple[int, ...]) -> int:
    """The batch size the page's link ranks the plan at (``plan_batch``), where this draft's plan can rank at it
    (``plan.rank_batches``); else the default, the first of ``plan.BATCHES``."""
    try:
        linked = int(st.query_params.get("plan_batch") or 0)
    except ValueError:
        linked = 0
    return linked if linked in offered else plan.BATCHES[0]


def _link_batch(rank_batch: int) -> None:
    """Keep the ranking batch in the page's link (none for the default), so a shared link ranks as its sender saw."""
    if rank_batch == plan.BATCHES[0]:
        if "plan_batch" in st.query_params:
            del st.query_params["plan_batch"]
    elif st.query_params.get("plan_batch") != str(rank_batch):
        st.query_params["plan_batch"] = str(rank_batch)


def _plan_lead(result: plan.Plan, answer: overview.Answer, typed: bool = False) -> None:
    """The plan's ranked-first line, after what its samples are where they reach another target's published
    acceptance (``summary.plan_caution``; not where a target AL was ``typed``)."""
    lead = plan.lead(result)
    if lead:
        if not typed and (caution := summary.plan_caution(answer, lead)) is not None:
            _say(caution)
        st.markdown(lead)


def _plan_body(
    own: OwnDraft,
    entry: comparison.Entry,
    runs: list,  # type: ignore[type-arg]
    volumes: list,  # type: ignore[type-arg]
    answer: overview.Answer,
    default: plan.Plan | None = None,
) -> None:
    """The opened plan: its inputs, the ranked table, exports, the fit and cost charts and the sources. ``default``:
    the plan at its defaults where the page built it already (its inputs untouched, it is not built again)."""
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
    # the batch sizes it ranks at are the plan's (1, 8, 64 and every batch your runs measured a pair at)
    untouched = default is not None and target_al is None and gpu_name == "H200"  # the defaults' inputs
    first = default if untouched else _plan(own, entry, runs, volumes, target_al, gpu_name, plan.BATCHES[0], answer)
    offered = first.rank_batches if first is not None else plan.BATCHES
    rank_batch = int(
        c3.selectbox(
            "Rank at batch size",
            list(offered),
            index=offered.index(_linked_batch(offered)),
            key="plan_batch",
            help="1, 8 and 64, and every batch size where your runs measured a speculative run and its baseline. "
            "Where a run measured what is served, the current tok/s is that run's and every gain is against it.",
        )
    )
    if first is None:
        return
    if first.unranked:  # a batch your runs measured that the selector leaves out: why (walk AO's imported batch 32)
        st.caption(
            "Not offered to rank at: "
            + "; ".join(f"batch {b}: {why}" for b, why in sorted(first.unranked.items()))
            + ". A pair must be measured as the fitted sweep was."
        )
    _link_batch(rank_batch)
    result = (
        first
        if rank_batch == first.rank_batch
        else _plan(own, entry, runs, volumes, target_al, gpu_name, rank_batch, answer)
    )
    if result is None:
        return
    _plan_lead(result, answer, typed=target_al is not None)
    if now := plan.current_words(result):  # what every gain is against: measured (which run) or predicted
        st.caption(now)
    frame = result.frame()
    table = tables.plan_table_of(list(frame.columns))
    frame = frame[table.order(list(frame.columns))]  # the grid's order: every export below carries this frame
    app.show_table(frame, table, key="plan_table")
    cols = st.columns(len(export.FORMATS))
    for col, fmt in zip(cols, export.FORMATS, strict=False):
        col.download_button(
            f"Plan as {fmt.upper()}",
            data=functools.partial(export.render, frame, fmt, table=table),  # made when clicked
            file_name=f"plan.{export.EXTENSION[fmt]}",
            mime=export.MIME[fmt],
            key=f"plan_dl_{fmt}",
            on_click="ignore",  # no rerun: one would drop the other buttons' deferred files
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
            drawn = result.chart_target()  # on the fit's scale, or not drawn (your log's tau_sim is not a benchmark's)
            app.show_chart(
                charts.plan_curve_chart,
                curve,
                result.points,
                target_al=drawn[0] if drawn else None,
                target_words=drawn[1] if drawn else None,
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
ref_options = summary.reference_options(drafts, suggested, own_target)
app.pick_reference("ov_ref", ref_options, suggested, draft)
_linked_ref = st.query_params.get("reference")
if _linked_ref in ref_options and not st.session_state.get("_ov_ref_link_read"):
    # a shared link opens on the sender's reference, once per session: after that a pick made here holds, and
    # another draft gets its own suggestion (``app.pick_reference``), as before (walk AO)
    st.session_state["ov_ref"] = _linked_ref
st.session_state["_ov_ref_link_read"] = True
_PICK, _SHOWN = "_ov_ref_pick", "_ov_ref_shown"  # (draft source, reference picked); (source, tag, shown, picked)
if _linked_ref in ref_options and st.session_state.get("ov_ref") == _linked_ref:
    st.session_state.setdefault(_PICK, (draft.source, _linked_ref))  # the link's reference is the sender's pick
_tag = repr(sorted(draft.to_query().items()))  # the draft with what is attached to it: samples, audit, run group
_shown = st.session_state.get(_SHOWN)
if _shown is not None and _shown[0] == draft.source and _shown[1] != _tag:
    # the same draft, something else about it changed (walk BO6: typed samples): the reference stays as it was, a pick
    # or the suggestion; a select value that came along with that change (fallen back to its first option) is no pick
    _kept = _shown[2] if _shown[3] and _shown[2] in ref_options else suggested.hub_id
    st.session_state["ov_ref"] = _kept
    st.session_state[_PICK] = (draft.source, _kept) if _shown[3] and _kept == _shown[2] else None
if target_choice.note:  # the target set on Compare drafts, used or set aside: said, never silent
    st.caption(target_choice.note)


def _with_target(target: str) -> comparison.Entry:
    with settings.session_token(app.hub_token()):
        return _entry(draft.source, settings.token_fingerprint(), target)


# a config naming no target: read again with the target (the plan costed generation without it and took another
# family's AL); a target not read, or read and not countable, is said
own_entry, _said = summary.with_target(own_entry, own_target, _with_target)
for _one in _said:
    _say(_one)


def _ref_entry(source: str) -> comparison.Entry:
    if source.startswith(comparison.REGISTRY_PREFIX):  # the registry's copy: no token needed
        return _entry(source, "")
    with settings.session_token(app.hub_token()):
        return _entry(source, settings.token_fingerprint())


with st.expander("Reference draft", expanded=False):
    reference = st.selectbox(
        "Reference (published)",
        ref_options,
        key="ov_ref",
        on_change=lambda: st.session_state.__setitem__(_PICK, (draft.source, st.session_state.get("ov_ref"))),
    )
    _picked = reference != suggested.hub_id and st.session_state.get(_PICK) == (draft.source, reference)
    st.session_state[_SHOWN] = (draft.source, _tag, reference, _picked)
    if not _picked:  # the link names a pick, never the suggestion nor a value the select fell back to
        if "reference" in st.query_params:
            del st.query_params["reference"]
    elif st.query_params.get("reference") != reference:
        st.query_params["reference"] = reference
    # the suggestion's reason, once the reference is read (its size from the Hub, or not known)
    _why = st.empty() if reference == suggested.hub_id else None
    st.caption("Your draft, its training data and its benchmark runs are chosen in the sidebar.")

try:
    # a registry pick needs no token; one without a config is read from the Hub as Compare reads it (the session's
    # token), else compared on data and acceptance only, and why said (walk AN)
    ref_entry, ref_unread = summary.read_reference(reference, drafts, _ref_entry)
    if _why is not None:
        _why.caption(summary.reference_why(suggested.why, ref_entry))
    said = summary.summarise(
        draft,
        own_entry,
        ref_entry,
        reference,
        runs,
        volumes,
        target=target_choice,
        suggested=suggested,
        curve=app.own_curve(draft),  # the log loaded on Acceptance vs data, else the one kept with the draft
        link=_link,
        ref_unread=ref_unread,
    )
    answer = said.answer
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
    # a page link, not a markdown one: a markdown link opens a new tab, a new session without the Hub token typed in
    # this one (walk BH: the draft pasted back there "could not be read ... without a token")
    _target_params: dict[str, str | list[str]] = {"target": answer.target.hub_id or draft.source}
    if _with:
        _target_params["m"] = [comparison.registry_source(d) for d in _with]
    _label = "Use it as the target on Compare drafts" + (" (with the published drafts known for it)" if _with else "")
    try:
        st.page_link(
            str(app.PAGES / "compare.py"),
            label=_label,
            icon=":material/arrow_forward:",
            query_params={**_target_params, **draft.to_query()},  # the draft stays in the link, as ``_link`` keeps it
        )
    except StreamlitPageNotFoundError:  # the page run on its own, outside the router (tests): a plain link
        st.markdown(_link(_label, "compare", [(k, v) for k, vs in _target_params.items() for v in _as_list(vs)]))
    st.stop()
if said.headline_kind == "gap":
    st.subheader(said.headline)
else:
    st.info(said.headline, icon=":material/info:")
for note in said.notes:
    _say(note)
st.markdown("\n".join(said.lines))

from comparelib import export, tables  # noqa: I001 - after the answer: these load pandas
from comparelib.analysis import plan, scaling

_default_plan = None  # the plan at its defaults, as its closed fold-out shows it: the volume gap names its fit
if own_entry is not None and answer.own_volume and answer.ref_volume:
    try:
        _default_plan = summary.plan_for(
            draft,
            own_entry,
            runs,
            volumes,
            published=_published_points(),
            curve=app.own_curve(draft),
            own_run=answer.own.run.id if answer.own is not None else None,
        )
    except CompareError:  # said in the plan's section below
        _default_plan = None
gap = summary.volume_gap(answer, _published_points(), _link, made=_default_plan)
if gap is not None and gap.kind == "predicted":
    with st.expander(summary.VOLUME_GAP_TITLE):
        st.markdown(gap.text + ("" if _TOKEN_TYPED else f" ({_link('chart', 'scaling')})"))
elif gap is not None:
    _say(gap)

st.divider()
if own_entry is not None:
    plan_section(draft, own_entry, runs, volumes, answer, _default_plan)
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
