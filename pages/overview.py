"""Overview: the answer first. How our draft differs from a published one, and which gap is largest."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException

from comparelib import architectures, registry, scaling, settings
from comparelib.errors import CompareError, InputError

import app  # noqa: E402

app.ensure_routed()

EXAMPLE = "example: own Kimi-K2.5 draft (built in)"
LOCAL = "a local folder with config.json"
EXAMPLE_GROUP = "example-kimi-k2.5"

st.title("Overview")
st.caption(
    "The answer first, for the draft you call ours and a published reference: size, training data, acceptance "
    "and live speed, and which of these gaps is the largest. Each number links to the page that produced it."
)


_store = app.open_store


@st.cache_data(show_spinner=False)
def _drafts_with_config() -> list[str]:
    """Drafts whose config can be counted on its own (Medusa-1 configs need their base model's: not offered)."""
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


@st.cache_data(show_spinner=False)
def _published_points():  # type: ignore[no-untyped-def]
    return scaling.published_points()


def _spec_for(choice: str, path: str):  # type: ignore[no-untyped-def]
    if choice == EXAMPLE:
        cfg = json.loads((Path(registry.EXAMPLE_OWN_DRAFT) / "config.json").read_text())
        return architectures.parse_config(cfg, "example: own Kimi-K2.5 draft"), "example:own-kimi-k2.5-draft"
    if choice == LOCAL:
        folder = Path(path.strip()).expanduser()
        try:
            cfg_path = folder / "config.json" if folder.is_dir() else folder
            found = bool(path.strip()) and cfg_path.is_file()
        except (OSError, ValueError):  # e.g. a name longer than the file system allows
            found = False
        if not found:
            shown = path if len(path) <= 200 else path[:200] + "…"
            raise InputError(f"no config.json at {shown!r}; give a folder that holds the draft's config.json")
        try:
            cfg = json.loads(cfg_path.read_text())
        except (OSError, ValueError) as exc:
            raise InputError(f"{cfg_path} is not readable JSON: {exc}") from None
        return architectures.parse_config(cfg, str(folder)), str(folder)
    d = registry.get_draft(choice)
    return architectures.parse_config(d.config, d.hub_id), f"registry:{d.hub_id}"


def _link(text: str, page: str, query: list[tuple[str, str]] | None = None) -> str:
    """A markdown link to one of the app's pages (url paths as app.py registers them)."""
    url = f"/{page}" + (f"?{urlencode(query)}" if query else "")
    return f"[{text}]({url})"


try:
    url = settings.database_url()
    store = _store(url)
    drafts = _drafts_with_config()
    volumes = store.data_volumes()
    groups = store.groups()
except CompareError as exc:
    st.error(str(exc))
    st.stop()

with st.expander("Choose the drafts", expanded=False):
    c1, c2 = st.columns(2)
    own_choice = c1.selectbox("Our draft", [EXAMPLE, *drafts, LOCAL], key="ov_own")
    own_path = c1.text_input("Folder (for a local draft)", value="", key="ov_own_path", disabled=own_choice != LOCAL)
    vol_options = [f"{v['draft']}: {v['samples']:,} samples ({v['kind']})" for v in volumes] + ["typed in"]
    vol_pick = c1.selectbox(
        "Our training volume", vol_options, key="ov_vol", help="From stored dataset audits, or typed in."
    )
    typed = c1.number_input(
        "Training samples (typed in)",
        min_value=1,
        value=37_000,
        step=1000,
        key="ov_vol_typed",
        disabled=vol_pick != "typed in",
    )
    ref_default = drafts.index(scaling.KIMI_REFERENCE) if scaling.KIMI_REFERENCE in drafts else 0
    reference = c2.selectbox("Reference (published)", drafts, index=ref_default, key="ov_ref")
    group_options = groups or [EXAMPLE_GROUP]
    group = c2.selectbox(
        "Live results: run group",
        group_options,
        index=group_options.index(EXAMPLE_GROUP) if EXAMPLE_GROUP in group_options else 0,
        key="ov_group",
    )

try:
    own_spec, own_source = _spec_for(own_choice, own_path)
    ref_draft = registry.get_draft(reference)
    ref_spec = architectures.parse_config(ref_draft.config, ref_draft.hub_id)
    own_name = "our draft"
    size = scaling.size_facts(own_spec, ref_spec, own_name, reference)
    if vol_pick == "typed in":
        own_volume, vol_src = float(typed), "typed in"
    else:
        v = volumes[vol_options.index(vol_pick)]
        own_volume = float(v["samples"])
        named = v["kind"] == "measured" or v["draft"].startswith(v["kind"])
        vol_src = v["draft"] if named else f"{v['draft']} ({v['kind']})"
    ref_volume = float(ref_draft.train_samples) if ref_draft.train_samples else None
    runs = store.runs(group=group) if group else []
    live = scaling.live_facts(runs)
    spec_runs = [r for r in runs if not r.is_baseline and r.output_tokens_per_s]
    best = max(spec_runs, key=lambda r: r.output_tokens_per_s) if spec_runs else None
    own_accept = None
    own_key = None
    if best is not None:
        own_accept = best.accept_length if best.accept_length is not None else best.accept_length_mean
        own_key, _ = scaling.run_setting(best)
    acc = scaling.accept_facts(own_accept, own_key, reference, results=None)
    data_ratio = (ref_volume / own_volume) if ref_volume and own_volume else None
    size_ratio = size.own_excluding_embedding / size.ref_excluding_embedding if size.ref_excluding_embedding else None
    acc_ratio = (acc.ref_hi / own_accept) if own_accept and acc.ref_hi else None
    gap_name, gap_sentence = scaling.largest_gap(
        data_ratio=data_ratio,
        size_ratio=size_ratio,
        accept_ratio=acc_ratio,
        accept_same_setting=acc.same_setting,
        own_volume=own_volume,
        ref_volume=ref_volume,
    )
except CompareError as exc:
    st.error(str(exc))
    st.stop()

# --- the answer -----------------------------------------------------------------------------------
st.subheader(gap_sentence)
compare_q = [("m", own_source), ("m", f"registry:{reference}")]
lines = [
    f"- **Size outside the embedding:** ours {_link(f'{size.own_excluding_embedding:,}', 'compare', compare_q)}, "
    f"{reference} {_link(f'{size.ref_excluding_embedding:,}', 'compare', compare_q)}. "
    f"**With the embedding:** {_link(f'{size.own_total:,}', 'compare', compare_q)} against "
    f"{_link(f'{size.ref_total:,}', 'compare', compare_q)}.",
    f"- **Why they differ:** {size.sentence}",
]
if data_ratio:
    lines.append(
        f"- **Training volume:** ours {_link(f'{scaling.human(own_volume)} samples', 'audit')} ({vol_src}), "
        f"{reference} {_link(scaling.human(ref_volume), 'scaling')}: "
        f"{_link(f'{data_ratio:.0f}x' if data_ratio >= 2 else f'{data_ratio:.2f}x', 'scaling')} "
        + ("less data." if data_ratio > 1 else "more data.")
    )
else:
    lines.append(f"- **Training volume:** {reference} does not report it.")
acc_link = _link(f"~{own_accept:.1f}", "bench") if own_accept else "not measured"
ref_acc = (
    f"{acc.ref_lo:.2f}-{acc.ref_hi:.2f}"
    if acc.ref_lo is not None and acc.ref_hi - acc.ref_lo >= 0.005
    else (f"{acc.ref_lo:.2f}" if acc.ref_lo is not None else "not published")
)
lines.append(
    f"- **Acceptance length:** ours {acc_link}, {reference} {_link(ref_acc, 'scaling')} on "
    f"{'/'.join(scaling.bench_label(b) for b in scaling.HEADLINE_BENCHMARKS)}. "
    + (
        "Same setting."
        if acc.same_setting
        else f"**Settings differ:** ours {own_key or 'unknown'}, theirs {'; '.join(acc.ref_settings) or 'none'} "
        "(more draft steps give longer acceptance, so this is not like for like)."
    )
)
if live is not None:
    lines.append(
        f"- **Live speed:** {_link(f'{live.spec_tok_s:g} tok/s', 'bench')} with speculation "
        f"(num_steps={live.num_steps}) against {_link(f'{live.baseline_tok_s:g} tok/s', 'bench')} without: "
        f"{_link(f'{live.gain * 100:+.1f}%', 'bench')}" + (" (example data)." if live.kind == "example" else ".")
    )
else:
    lines.append(
        "- **Live speed:** no speculative run with a baseline in this group yet; "
        + _link("benchmark one", "bench")
        + "."
    )
st.markdown("\n".join(lines))

published_refs = set(_published_points()["draft"].dropna())
if own_volume and ref_volume and reference not in published_refs:
    st.info(
        f"{reference} publishes no acceptance results, so the published data cannot say what the volume gap "
        f"costs; pick a reference on the {_link('scaling chart', 'scaling')} for that."
    )
elif own_volume and ref_volume:
    try:
        verdict = scaling.gap_verdict(own_volume, reference, points=_published_points())
        st.markdown(
            f"**What the published data says about the volume gap** ({_link('chart', 'scaling')}): "
            f"{verdict.sentence}"
        )
    except CompareError as exc:
        st.error(str(exc))

if own_choice == EXAMPLE or group == EXAMPLE_GROUP:
    st.caption(
        "Example data: the team's own Kimi-K2.5 draft and its hand-measured SGLang session are built in so this "
        "page has an answer offline. Pick your own draft, volume and run group above."
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
):
    try:
        col.page_link(f"pages/{page}.py", label=label)
    except StreamlitAPIException:  # not registered (a page run on its own, e.g. in tests): a plain link
        col.markdown(_link(label, page))
