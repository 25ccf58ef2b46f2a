"""Compare drafts: paste Hub URLs or folders, or pick published drafts; see exact counts side by side."""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING

import streamlit as st

import app

app.ensure_routed()

st.title("Compare drafts")
st.caption(
    "Exact parameter counts from each config's tensor list, reconciled with the checkpoint header where one "
    "exists, plus wiring lint. Paste Hub URLs (any form), org/name[@rev], or local folders."
)

draft = app.own_draft()  # the sidebar (where a user picks the draft) comes before the page's imports

# The page's own modules load after its heading and the sidebar are drawn: a fresh server's first page shows
# both while pandas and the analysis load (~0.4 s).
from comparelib import charts, export, redact, settings, tables
from comparelib.errors import CompareError, HubAccessError
from comparelib.models import comparison, engines, hub, lint, registry
from comparelib.models import draft as own_draft
from comparelib.models import serving as engine_model
from comparelib.models import sources as source_names

if TYPE_CHECKING:
    from comparelib.analysis.overview import Reference


@st.cache_data(show_spinner=False, ttl=3600, max_entries=128)  # keyed by what visitors type: bounded
def _load(source: str, target: str | None, target_layers: int | None, token_tag: str) -> comparison.Entry:
    # token_tag: a fingerprint of the session's Hub token (never the token), so a gated repo read with
    # one session's token is not served from the cache to a session without it
    return comparison.load_entry(source, target=target or None, target_layers=target_layers)


@st.cache_data(show_spinner=False)
def _published_ids() -> list[str]:
    return [d.hub_id for d in registry.load_registry() if d.config]


@functools.cache  # once a run (this module runs afresh each time): four callers read the store four times
def _group_runs() -> list:
    """Your draft's run group (the sidebar's), as the other pages read it; none when the store cannot be read
    (the sidebar says why)."""
    try:
        return draft.runs(app.open_store(settings.database_url()))
    except CompareError:
        return []


@st.cache_data(show_spinner=False)
def _reference_choices() -> list[str]:
    """The registry's references (its configs parsed): the same for every visitor, as Overview caches them."""
    from comparelib.analysis import overview

    return list(overview.reference_choices())


def _overview_reference() -> tuple[Reference, str | None]:
    """The published draft Overview compares your draft with first (``overview.default_reference`` for the target
    your draft names, its runs were served with, or set here), and that target."""
    from comparelib.analysis import overview

    runs = _group_runs()
    target_id = app.own_draft_target(draft, runs)
    shape = None
    if not target_id:  # no target known: a published draft of your draft's hidden size and vocabulary, as Overview
        try:
            with settings.session_token(app.hub_token()):
                entry = app.draft_entry(draft.source, settings.token_fingerprint())
            # a target model pasted as your draft: its own published drafts first (walk BI)
            target_id = own_draft.pasted_target(entry)
            shape = None if target_id else overview.draft_shape(entry)
        except CompareError:
            shape = None
    # the group's runs too: a published draft measured beside yours is Overview's first pick
    ref = overview.default_reference(_reference_choices(), draft.name, target_id, runs, own_shape=shape)
    return ref, target_id


def _default_sources() -> tuple[list[str], str | None]:
    """Your draft (from the sidebar) with the reference Overview picks for it (a Llama-3.3-70B draft opened on
    Kimi, Qwen and Llama-3.1-8B drafts): the registry's config where it holds one, else its Hub id, read from the
    Hub as Overview reads it (walk AR: Overview counted AQ-MedAI/Kimi-K26-eagle3 from its Hub config while Compare
    listed drafts of other targets). Only a failed read falls back (a countable draft for the same target, else the
    published defaults, said to be for other targets), and what to say then. The built-in example: the defaults."""
    from comparelib.analysis import summary

    refs, said = list(registry.DEFAULT_COMPARISON), None
    if draft.is_example:
        return [comparison.registry_source(h) for h in refs] + [draft.source], said
    ref, target_id = _overview_reference()
    if ref.hub_id in _published_ids():
        seeded = [comparison.registry_source(ref.hub_id)]
    else:
        try:
            with settings.session_token(app.hub_token()):
                app.draft_entry(ref.hub_id, settings.token_fingerprint())  # its config, as Overview reads it
            seeded = [ref.hub_id]
        except CompareError as exc:
            same = [
                d
                for d in registry.load_registry()
                if d.config and target_id and own_draft.model_match(d.target_model, target_id) == "same"
            ]
            if same:
                instead = f"{same[0].hub_id}, published for {same[0].target_model}, is listed in its place."
                refs = [same[0].hub_id]
            else:
                others = ", ".join(f"{h} for {registry.get_draft(h).target_model}" for h in refs)
                instead = (
                    f"The published defaults are listed instead, drafts for other targets ({others}), not "
                    f"{target_id}: their sizes are no reference for your draft's."
                    if target_id  # no target known: not said to be other targets
                    else f"The published defaults are listed instead ({others}); your draft's target is not known."
                )
            said = (
                f"Overview compares your draft with {ref.hub_id}, whose config could not be read from the Hub "
                f"({summary.unread_why(exc)}), so it is not listed here. {instead}"
            )
            seeded = [comparison.registry_source(h) for h in refs]
    return [s for s in seeded if s != draft.source] + [draft.source], said


def _form_sources() -> list[str] | None:
    """The drafts the form holds this session (None before it is drawn): what a seed is checked against. Back from
    another page, Streamlit has dropped the fields before this run: their kept copies are read (walk BX 3)."""
    state = st.session_state

    def held(key: str) -> object:
        return state[key] if key in state else state.get(app.KEPT_SHADOW + key)

    picks, urls = held("compare_picks"), held("compare_urls")
    if picks is None and urls is None:
        return None
    return [comparison.registry_source(str(p)) for p in (picks if isinstance(picks, list) else [])] + [
        redact.mask_url(u.strip()) for u in str(urls or "").splitlines() if u.strip()
    ]


def _seed(sources: list[str]) -> None:
    """Put ``sources`` in the form's fields (before they are drawn) and in the link, if one holds drafts."""
    prefix = comparison.REGISTRY_PREFIX
    st.session_state["compare_picks"] = [s[len(prefix) :] for s in sources if s.startswith(prefix)]
    st.session_state["compare_urls"] = "\n".join(s for s in sources if not s.startswith(prefix))
    if "m" in st.query_params:
        st.query_params["m"] = sources


# --- inputs: the URL query is the source of truth, so a link reproduces the comparison --------
# The form's drafts follow the sidebar's draft: when it changes (here too), it takes the previous one's place;
# drafts seeded from the default (neither typed nor from a link) are seeded again when your draft or its target
# changes, so Compare lists the reference Overview now uses.
qp = st.query_params
SEED = "_compare_seed"  # {"for": (draft source, target), "sources": the default seeded, or None: typed or a link}
seed = st.session_state.get(SEED)
here = (draft.source, draft.target)
seed_note = None
if "m" in qp and (seed is None or seed["for"] == here):
    initial = qp.get_all("m")
    seeded = seed["sources"] if seed is not None and seed["sources"] == initial else None
    if seeded is not None:
        seed_note = seed.get("note")
else:
    held = _form_sources() or (qp.get_all("m") if "m" in qp else None)
    if held is not None and seed is not None and seed["sources"] != held:  # typed or from a link: kept
        old, initial, seeded = seed["for"][0], held, None
        if old != draft.source:  # another draft in the sidebar: it takes the previous one's place
            initial = [draft.source if s == old else s for s in held]
            initial += [] if draft.source in initial else [draft.source]
    else:
        initial, seed_note = _default_sources()
        seeded = initial
    if held is not None and held != initial:
        _seed(initial)
st.session_state[SEED] = {"for": here, "sources": seeded, "note": seed_note}
initial_picks = [s[len(comparison.REGISTRY_PREFIX) :] for s in initial if s.startswith(comparison.REGISTRY_PREFIX)]
initial_other = [s for s in initial if not s.startswith(comparison.REGISTRY_PREFIX)]


def _draft_target() -> tuple[str | None, str]:
    """The target Overview answers for your draft (``app.draft_target``: named by it, its model card's base_model,
    or its runs' server) and where it came from (its origin), unless a target was set here: what an empty target
    field starts from. The built-in example's target stays its own (the field is for your draft)."""
    if draft.target or draft.is_example:
        return None, ""
    runs = _group_runs() if draft.group else []
    found = app.draft_target(draft, runs)
    if not found.model or found.origin not in TARGET_FROM:
        return None, ""
    return found.model, found.origin


TARGET_FROM = {  # origin: (the caption under a prefilled target field, the target as a warning names it)
    "named": ("Named by your draft (its config).", "the target your draft names"),
    "published": ("The registry's entry for this published draft (its config names none).", "its published target"),
    "card": ("From your draft's model card (its base_model).", "the target your draft's model card names"),
    "runs": (
        f"From your runs' server (run group {draft.group}): the model they were served with.",
        "the target your runs were served with",
    ),
}
from_draft, from_origin = _draft_target()
from_where, from_what = TARGET_FROM.get(from_origin, ("", ""))
published = _published_ids()
# a link's, else the one set here this session, else your draft's (what Overview answers for)
prefill = qp.get("target", "") or draft.target or from_draft or ""
# A keyed field ignores a new default once drawn: a draft pasted on this page (walk AE: the built-in example's
# empty field kept, target-unknown) or a card read once the Hub token is typed refills it, unless typed in.
FILLED = "_compare_target_filled"
filled = st.session_state.get(FILLED)
if filled != prefill and "compare_target" in st.session_state and st.session_state["compare_target"] == filled:
    st.session_state["compare_target"] = prefill
st.session_state[FILLED] = prefill
with st.form("compare_form"):
    picks = st.multiselect(
        "Published drafts (built in, offline)",
        options=published,
        default=[p for p in initial_picks if p in published],
        key="compare_picks",
    )
    urls = st.text_area(
        "Your drafts: one Hub URL, org/name[@rev], hf:// URI or local folder per line",
        value="\n".join(initial_other),
        key="compare_urls",
        height=100,
        placeholder="paste Hub URLs or folder paths, one per line",
    )
    c1, c2 = st.columns(2)
    target = c1.text_input(
        "Target model (optional: URL, folder, or a known hub id)",
        value=prefill,
        key="compare_target",
        help="Your draft's target. Overview and Acceptance vs data use it too when your draft names none.",
    )
    if from_draft and target.strip() == from_draft:
        c1.caption(from_where)
    layers_text = c2.text_input(
        "…or just its number of decoder layers", value=qp.get("layers", ""), key="compare_target_layers"
    )
    to_published = st.checkbox(
        "Use this target for the published drafts too",
        value=qp.get("target_all") == "1",
        key="compare_target_all",
        help="Off: the target is your draft's; each published draft keeps the target it was trained for.",
    )
    submitted = st.form_submit_button("Compare", type="primary")
if seed_note:
    st.caption(seed_note)


sources = [comparison.registry_source(p) for p in picks] + [
    redact.mask_url(u.strip()) for u in urls.splitlines() if u.strip()
]
sources, too_many = source_names.capped(sources)  # a link is anybody's: each Hub row costs requests
if too_many:
    st.error(too_many)
target = redact.mask_url(target)
try:
    target_layers = lint.parse_target_layers(layers_text)
    typed_target = own_draft.clean_target(target)
except CompareError as exc:
    st.error(str(exc))
    st.stop()
if typed_target != draft.target and not (from_draft and typed_target == from_draft):
    # the field is your draft's target: the other pages take it from the draft (what it names, its card's or its
    # runs' they know already)
    draft = draft.with_(target=typed_target)
    app.set_own_draft(draft)


def _to_link(sources: list[str], target: str, layers: int | None, to_published: bool) -> None:
    """Put the comparison in the URL, its source of truth, so the link reproduces it."""
    st.query_params.clear()
    app.set_own_draft(draft)  # the draft stays in the link
    st.query_params["m"] = sources
    if target.strip():
        st.query_params["target"] = target.strip()
    if layers:
        st.query_params["layers"] = str(layers)
    if to_published:
        st.query_params["target_all"] = "1"


def _use_as_target(sources: list[str], target: str, to_published: bool) -> None:
    """Overview's "use it as the target", done here: the fields change before the rerun that reads them."""
    prefix = comparison.REGISTRY_PREFIX
    st.session_state["compare_picks"] = [s[len(prefix) :] for s in sources if s.startswith(prefix)]
    st.session_state["compare_urls"] = "\n".join(s for s in sources if not s.startswith(prefix))
    st.session_state["compare_target"] = target
    st.session_state["compare_target_layers"] = ""  # the target's config gives its layers
    _to_link(sources, target, None, to_published)


if submitted:
    _to_link(sources, target, target_layers, to_published)
    if seeded is not None and draft.target != here[1]:
        st.rerun()  # drafts seeded for the previous target: seeded again for this one, as Overview's reference

if not sources:
    st.info("Pick a published draft or paste a URL to start.")
    st.stop()


def _unread(exc: CompareError, src: str) -> bool:
    """True when ``exc`` says ``src`` itself could not be read (its repo is private, gated or not there), not
    the target given with it."""
    repo = getattr(exc, "repo_id", None)
    try:
        return repo is not None and repo == hub.parse_ref(src).repo_id
    except CompareError:
        return False


entries: list[comparison.Entry] = []
with st.spinner("Reading configs and checkpoint headers…"):
    for src in sources:
        try:
            with settings.session_token(app.hub_token()):
                mine = comparison.target_applies(src, draft.source, to_published=to_published)
                try:
                    entries.append(
                        _load(
                            src,
                            (target.strip() or None) if mine else None,
                            target_layers if mine else None,
                            settings.token_fingerprint(),
                        )
                    )
                except CompareError as exc:
                    named = bool(from_draft) and target.strip() == from_draft
                    # a target a token would open (gated, private): a share link opened without one still shows
                    # the draft, whose own config is public, and says what needs the target
                    closed = isinstance(exc, HubAccessError) and bool(target.strip())
                    if not (mine and (named or closed)) or _unread(exc, src):
                        raise
                    # the draft alone first: an error reading its own files (a truncated checkpoint) is the
                    # draft's, said as its by the handler below, never the target's
                    alone = _load(src, None, target_layers, settings.token_fingerprint())
                    if not named:
                        note = (app.hub_access_text(exc, f"its target {target.strip()}'s config") or str(exc)).rstrip(
                            "."
                        )
                        st.warning(
                            f"**{src}**: shown without its target: {note}. Until then what needs the target (its "
                            "size, the draft/target ratio, the checks against its layers) is unavailable."
                        )
                        entries.append(comparison.with_unread_target(alone, target.strip(), note))
                        continue
                    # the name a server reported (a folder on its machine) may not be readable here
                    # the field holds it already: "give it there" would change nothing; another target would
                    st.warning(
                        f"**{src}**: {from_what}, {from_draft}, could not be read "
                        f"({exc}); shown without it. To size and check it against a target, replace it in the "
                        "target field above with one that can be read, or give the target's number of layers."
                    )
                    entries.append(alone)
        except CompareError as exc:  # a private or gated repo: which one, and the sidebar's token field
            said = (
                app.hub_access_text(exc, f"Your draft {src}" if src == draft.source else src)
                if _unread(exc, src)
                else None
            )
            st.error(said or f"**{src}**: {exc}")
            if detail := getattr(exc, "detail", ""):  # the architectures the counter knows: below, not above
                with st.expander("Supported architectures"):
                    st.caption(detail)
if not entries:
    st.stop()
# a published draft whose target's config is not shipped takes the size read here for your draft's same target
entries = comparison.share_targets(entries)

# --- the answer first -----------------------------------------------------------------------
for i, e in enumerate(entries):  # a target model pasted where a draft belongs: say so, and offer what to do
    notice = own_draft.target_notice(e)
    if notice is None:
        continue
    as_typed = notice.hub_id or e.source
    if typed_target and (
        comparison.same_target(typed_target, as_typed) or typed_target.strip().rstrip("/") == as_typed.rstrip("/")
    ):
        # moved to the target field already (Overview's or this page's button): not offered again (walk BW 6)
        st.info(
            f"{notice.hub_id or e.label} is the target now (the field above), and a target model, not a draft: paste "
            "your draft in the sidebar, or among the drafts above, to size and check it against it.",
            icon=":material/info:",
        )
        continue
    st.warning(notice.sentence, icon=":material/warning:")
    _kept, _as_target = comparison.use_as_target(sources, e, published)
    st.button(
        f"Use {notice.hub_id or e.label} as the target",
        key=f"compare_use_target_{i}",
        on_click=_use_as_target,
        args=(_kept, _as_target, to_published),
        help="Moves it from the drafts to the target field"
        + (", and adds the published drafts known for it" if set(_kept) - set(sources) else "")
        + ": your drafts are then sized and checked against it.",
    )
for sentence in comparison.headlines(entries):
    st.info(sentence, icon=":material/lightbulb:")

try:  # training volumes attached on the Dataset audit page (or the built-in example)
    volumes = comparison.volumes_by_draft(app.open_store(settings.database_url()).data_volumes())
except CompareError as exc:
    volumes = {}
    st.warning(f"Training volumes from the results store are not shown: {exc}")
_rows = app.open_store(settings.database_url()).data_volumes()
own_row = draft.volume_row(_rows) if draft.volume else None
if own_row is not None:  # your draft's attached audit, whatever name it was stored under
    volumes.update({e.label: own_row for e in entries if e.source == draft.source})
_in_use, _in_use_from = draft.training_samples(_rows)  # the sidebar's "Training data in use"
_typed = {e.label: _in_use for e in entries if e.source == draft.source} if _in_use_from == "typed in" else {}
df = comparison.table(entries, volumes, typed=_typed)  # the typed samples in use, as the sidebar says (walk AC)
st.subheader("Parameters")
app.show_table(df, tables.DRAFT_PARAMS, "compare_table")
cols = st.columns(len(export.FORMATS))
for col, fmt in zip(cols, export.FORMATS, strict=False):
    col.download_button(
        f"Download {fmt.upper() if fmt != 'latex' else 'LaTeX'}",
        data=functools.partial(export.render, df, fmt, table=tables.DRAFT_PARAMS),  # made when clicked
        file_name=f"draft-comparison.{export.EXTENSION[fmt]}",
        mime=export.MIME[fmt],
        key=f"compare_download_{fmt}",
        on_click="ignore",  # no rerun: one would drop the other buttons' deferred files
    )
for e, name in zip(entries, comparison.display_names(entries), strict=True):
    said = comparison.stored_note(e)  # a template's counts, or a target's header not read: stored left empty
    if said:
        st.caption(f"**{name}**: {said} (counts_from in the exports).")
    why = comparison.no_ratio_reason(e)
    if why is None and e.target_count is None and e.target_note:  # a target counted from its checkpoint: said
        st.caption(f"**{name}**: {e.target_note} (target_size_from in the exports).")
    elif why is not None and e.target_label is not None:  # a target known by name whose size is not known here
        held = comparison.same_target(typed_target, e.target_label)  # the field holds it already
        if e.target_note or (held and (to_published or e.kind != "registry")):  # tried: why, never "type it"
            st.caption(f"**{name}**: no draft/target ratio: {why} (target_size_from in the exports).")
        elif e.kind == "registry":
            st.caption(
                f"**{name}**: no draft/target ratio: {why}. "
                + ("Tick" if held else f"Type {e.target_label} in the target field and tick")
                + ' "Use this target for the published drafts too" (target_size_from in the exports).'
            )
        else:
            st.caption(
                f"**{name}**: no draft/target ratio: {why}; give it in the target field (target_size_from in the "
                "exports)."
            )

st.subheader("Where the parameters are")
comp_df = comparison.components_frame(entries)
_as_targets = [
    (e, n) for e, n in zip(entries, comparison.display_names(entries), strict=True) if e.spec.role != "draft"
]
if len(_as_targets) < len(entries):  # a target model's bar (a 1T target) would dwarf the drafts beside it
    app.show_chart(
        charts.params_chart, comp_df, comparison.architectures.COMPONENTS, leave_out=tuple(n for _, n in _as_targets)
    )
for e, name in _as_targets:
    st.caption(
        f"{name} is shown as the target (its role in the table above), not in this chart: its "
        f"{e.count.total:,} parameters would dwarf the drafts."
    )
for e, name in zip(entries, comparison.display_names(entries), strict=True):
    for comp in e.components:
        if comp.note:  # a tied lm_head: counted once, as the embedding SGLang serves
            st.caption(f"**{name}**: {comp.name} {comp.note}")

st.subheader("Wiring lint")
_NEWEST = "newest rules of every engine"
_choice = st.selectbox(
    "Engine you serve with",
    [_NEWEST] + engines.serving_choices(),
    index=0,
    key="compare_engine",
    help="Capture rules differ by engine, version, vLLM runner and target class (comparelib/models/serving.py cites "
    "the engine code each rule comes from). Default: SGLang 0.5.23 and vLLM 0.34.0 (V2, its only runner); "
    "'vLLM 0.33.0' shows its V2 (default) and V1 runners.",
)
serving = None if _choice == _NEWEST else _choice
entries = [comparison.relint(e, serving) for e in entries]
# the engine you serve with: the one chosen here, else the one your group's runs served the draft with; what
# matters for it leads the headline and the findings, other engines' gaps follow
_engine_of = {
    e.label: (engines.parse_choice(serving)[0], "the engine chosen above")
    if serving
    else comparison.served_engine(e, _group_runs())
    for e in entries
}
_tops = []
for e in (e for e in entries if e.spec.role == "draft"):
    _mine = _engine_of[e.label][0] if _engine_of[e.label] else None
    _act = lint.to_act_on(e.findings, _mine)
    _top = next((f for f in _act if not lint.other_engine_only(f, _mine)), None)
    _tops.append((e, _top, bool(_act)))
# a verdict that your group's runs contradict (an engine served a draft its code says it does not): said beside it
_runs_say = {e.label: comparison.served_against_rules(e, _group_runs()) for e in entries}
for e, top, _any in sorted(_tops, key=lambda et: lint.SEVERITIES.index(et[1].severity) if et[1] else 9):
    # nothing for your engine but a gap on another: said as information, not as an all-clear
    # nor for a draft the EAGLE-3 rules do not check (EAGLE-1, Medusa, MTP): its headline claims no match
    # nor on a target whose class the rules do not model (walk BL1): the Llama-like path's notes claim no match
    unchecked = any(f.code == "not-eagle3" or f.unknown_family is not None for f in e.findings)
    say = {"error": st.error, "warning": st.warning}.get(
        top.severity if top else "", st.info if _any or unchecked else st.success
    )
    say(f"**{e.label}**: {comparison.lint_headline(e, engine=_engine_of[e.label])}")
    for sentence in _runs_say[e.label]:
        st.warning(f"**{e.label}**: {sentence}", icon=":material/difference:")
_engines = {label: eng[0] for label, eng in _engine_of.items() if eng}
act_on = comparison.findings_frame(entries, harmless=False, engines=_engines)
harmless = comparison.findings_frame(entries, harmless=True, engines=_engines)
if act_on.empty and harmless.empty:
    if any(e.spec.role == "draft" for e in entries):
        st.success("No findings.")
    else:  # a target's wiring is not linted: "no findings" would read as a clean draft
        st.info("No draft to lint: every model here is a target. Paste a draft, or use the target above.")
if not act_on.empty:
    act_on = act_on.drop(columns="harmless")
    # messages wrap only in rows taller than 64 px (Streamlit's grid): 72 shows a lint message on three lines
    app.show_table(act_on, tables.FINDINGS, "compare_findings", row_height=72, ordered=False)
if not harmless.empty:
    _harmless = st.expander(
        lint.harmless_title(len(harmless)),  # what ``params`` heads the same findings with
        key="compare_harmless_open",
        on_change="rerun",
    )  # its grid is built only when opened
    if _harmless.open:
        with _harmless:
            harmless = harmless.drop(columns="harmless")
            app.show_table(harmless, tables.FINDINGS, "compare_findings_harmless", row_height=72, ordered=False)

# --- Will it serve? One row per engine version and runner, from the engines' own rules (serving.py) -----------
_drafts = [e for e in entries if e.spec.role == "draft"]
if _drafts:
    st.subheader("Will it serve?")
    st.caption(
        "What SGLang 0.5.23, SGLang 0.5.1, vLLM 0.34.0 (Model Runner V2 only) and vLLM 0.33.0 (V2, its default, "
        "and V1 under VLLM_USE_V2_MODEL_RUNNER=0) do with each draft's config on its target: whether it starts, "
        "which target blocks feed the draft, and whether they are the ones it was trained on. Every row cites the "
        "wheel lines."
    )
_verdicts = []  # (entry, advice) of drafts the engines' rules apply to
for e in _drafts:
    _why = comparison.no_serving_verdict(e, target_field="the Target model field above")
    if _why is not None:  # the reason the CLI gives (an MTP module, a target the rules do not know, none given)
        st.info(f"**{e.label}**: no verdict on whether each engine serves it: {_why}.")
        continue
    _advice = engine_model.advice(**e.serving_args)
    # never a calmer box than the lint's: a draft with an error-level finding (a tied lm_head, say) is no all-clear
    _lint_error = any(f.severity == "error" and not f.harmless for f in e.findings)
    _ok = not _lint_error and all(engine_model.serves_trained(v, _advice) for v in e.serving)  # sameness known
    _said = engine_model.headline(e.serving, _advice, engine=_engine_of[e.label])
    # the engine you serve with serves it, another does not: information, as the lint's headline says it
    _yours_serve = (
        not _lint_error and _engine_of[e.label] is not None and _said.startswith("Serves the trained blocks")
    )
    (st.success if _ok else st.info if _yours_serve else st.warning)(f"**{e.label}**: {_said}")
    for sentence in _runs_say[e.label]:
        st.warning(f"**{e.label}**: {sentence}", icon=":material/difference:")
    _verdicts.append((e, _advice, _ok))
if _verdicts:
    # one draft's engine rows at a time (a grid per draft was most of this page's time in the browser):
    # your draft, else the first that needs a change, else the last; each named with the draft it belongs to
    # by name, not position: a pick stays on its draft (or goes back to yours) when the drafts listed change
    _named = dict(zip(map(id, entries), comparison.display_names(entries), strict=True))
    _labels = [_named[id(e)] + (" (your draft)" if e.source == draft.source else "") for e, _, _ in _verdicts]
    _first = next((i for i, (_, _, ok) in enumerate(_verdicts) if not ok), len(_verdicts) - 1)
    _mine = next((i for i, (e, _, _) in enumerate(_verdicts) if e.source == draft.source), None)
    # your draft, once it has rows (walk AZ: a private draft read only after the token was typed left the pick on a
    # published draft); a pick made while yours is listed holds
    _mine_label = _labels[_mine] if _mine is not None else None
    if _mine_label is not None and st.session_state.get("_compare_serve_mine") != _mine_label:
        st.session_state["compare_serve_detail"] = _mine_label
    st.session_state["_compare_serve_mine"] = _mine_label
    _picked = st.selectbox(
        "Engine rows and the config that serves: of draft",
        _labels,
        index=_mine if _mine is not None else _first,
        key="compare_serve_detail",
    )
    _pick = _labels.index(_picked)
    e, _advice, _ = _verdicts[_pick]
    _of = f"**{_picked}**" + (f" on {e.target_label}" if e.target_label else "")
    import pandas as pd  # the rows as a frame: the table's widths and order put the key columns on screen

    st.markdown(f"Engine rows of {_of}:")
    app.show_table(pd.DataFrame(engine_model.table_rows(e.serving, _advice)), tables.SERVING, "compare_serving")
    if any(v.other_target for v in e.serving):  # trained for another target: its trained blocks are not here
        st.markdown(
            f"No config serves the trained blocks of {_of}: the draft was trained for another target (the headline "
            "above says how we know)."
        )
    elif _advice.possible and _advice.config:
        st.markdown(f"Config that serves the trained blocks of {_of} on {', '.join(_advice.engines)}:")
        st.code(json.dumps(_advice.config, indent=2), language="json")
    elif not _advice.possible:
        st.markdown(f"No config serves the trained blocks of {_of} everywhere: " + "; ".join(_advice.why))

# One draft's details at a time, and only when asked: a tensor table per draft in the browser is what made
# this page slow.
st.subheader("Details")
_details = st.expander(
    "Tensors, checkpoint header and source of one draft", key="compare_details_open", on_change="rerun"
)
if _details.open:
    with _details:
        _names = [e.label for e in entries]
        _shown = st.selectbox("Tensors and checkpoint of", _names, index=len(_names) - 1, key="compare_detail")
        for e in [e for e in entries if e.label == _shown][:1]:
            with st.container():
                meta = [f"architecture `{e.spec.architecture}` · dialect `{e.spec.dialect}`"]
                if e.commit_sha:
                    meta.append(f"commit `{e.commit_sha}`")
                if e.target_label:
                    meta.append(f"target `{e.target_label}`")
                st.markdown(" · ".join(meta))
                mem = " · ".join(f"{k}: {v / 2**30:.2f} GiB" for k, v in e.memory.items())
                st.caption(f"Memory, {comparison.memory_basis(e)}: {mem}")
                app.show_frame(comparison.tensors_frame(e))
                if e.checkpoint is not None:
                    ck = e.checkpoint
                    st.markdown(
                        f"**Checkpoint header**: {ck.param_elements:,} parameter elements, "
                        f"{ck.buffer_elements:,} buffer elements; "
                        f"{'matches the config' if ck.matches_config else 'does not match the config'}."
                    )
                    for name, why in ck.missing:
                        st.markdown(f"- missing `{name}`: {why}")
                    for name, why in ck.unexpected:
                        st.markdown(f"- unexpected `{name}`: {why}")
                    for name, want, got in ck.shape_mismatches:
                        st.markdown(f"- `{name}`: config says {list(want)}, checkpoint has {list(got)}")
                    for line in ck.notes:
                        st.markdown(f"- note: {line}")
                if e.published is not None:
                    p = e.published
                    vol = f"{p.train_samples:,} samples" if p.train_samples else "unknown volume"
                    if p.train_samples and (basis := comparison.volume_basis(p)) != "published":
                        vol += f" ({basis})"  # walk AN: "~1M (dataset name)" is no published figure
                    st.markdown(
                        f"**Published**: {p.method} for `{p.target_model}`, trained on {vol}. [source]({p.source_url})"
                    )
