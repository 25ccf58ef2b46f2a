"""Dataset audit: what a draft will really train on (conversations), and whether its dumps are sane."""

from __future__ import annotations

import functools
import shutil
import time
from typing import Any

import streamlit as st

import app

app.ensure_routed()

st.title("Dataset audit")
st.caption(
    "Samples, tokens and loss-masked tokens counted with the target's tokenizer and chat template, length "
    "percentiles against the trainer's max_length, duplicates, anomalies and domain mix. Data volume decides "
    "acceptance length more than any serving tweak: know it exactly."
)

own = app.own_draft()  # the sidebar (where a user picks the draft) comes before the page's imports
app.keep_values()  # also when the page runs on its own (AppTest)

# The page's own modules load after its heading and the sidebar are drawn: a fresh server's first page shows
# both while pandas and the analysis load (~0.4 s).
import pandas as pd

from comparelib import charts, export, paths, settings
from comparelib.audit import cluster, dumps
from comparelib.audit.conversations import FORMATS
from comparelib.audit.result import VOLUME_TRAINED, VOLUME_UNIQUE, AuditResult, percent
from comparelib.audit.scan import audit, progress_text
from comparelib.audit.tokens import TokenizerBundle, TokenizerCheck
from comparelib.errors import CompareError
from comparelib.values import VOLUME_KIND_SAMPLE

ATTACHED_STATE = "_audit_attached"  # what an Attach said, shown again after the rerun that redraws the sidebar
TOKENIZER_DEFAULT = "_audit_tokenizer_default"  # the draft's target last put in the tokenizer field
# {(that target, the session token's fingerprint): why the last audit could not read it, or None: it did}
TOKENIZER_READ = "_audit_tokenizer_read"
_TARGET_FROM = {
    "named": "named by your draft",
    "published": "the registry's entry for this published draft",
    "card": "the base_model of your draft's model card",
    "runs": "the one your draft's runs were served with",
    "compare": "the target set on Compare drafts",
}

conv_tab, dump_tab = st.tabs(["Conversations", "Hidden-state dumps"])


def _fmt_int(value: Any) -> str:
    return f"{int(value):,}"


def _session_watch() -> Any:
    """Ends the audit (and kills a chat template worker) once this browser session is gone (closed tab)."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    from comparelib.live.endpoints import SessionWatch

    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return None
    runtime, session_id = Runtime.instance(), ctx.session_id
    return SessionWatch(lambda: runtime.is_active_session(session_id), grace_s=2.0)


def _run_audit(
    source: str,
    tokenizer: str | TokenizerBundle,
    max_length: int,
    fmt: str,
    sample: int | None,
    config: str,
    split: str,
) -> AuditResult:
    bar = st.progress(0.0, text="Starting…")

    def progress(rows: int, rate: float, eta: float | None) -> None:
        frac, text = progress_text(rows, rate, eta)
        bar.progress(frac, text=text)

    try:
        address = cluster.address_from_env()
        if address and sample is None and not config and not split and cluster.scannable(source):
            bar.progress(0.0, text=f"Starting on the Ray cluster at {address}…")
            result = cluster.audit(
                source, address=address, tokenizer=tokenizer or None, max_length=max_length, fmt=fmt, progress=progress
            )
        else:
            result = audit(
                source,
                tokenizer=tokenizer or None,
                max_length=max_length,
                fmt=fmt,
                sample=sample,
                config=config or None,
                split=split or None,
                progress=progress,
                keep_running=_session_watch(),
            )
    except BaseException:
        bar.empty()  # no stale "Starting…" bar above the error
        raise
    bar.progress(1.0, text=f"{result.rows_read:,} rows read in {result.elapsed_s:,.1f} s")
    return result


def _show_result(result: AuditResult) -> None:
    if result.tokenizer_unread:  # your draft's target could not be read: estimated instead, and why
        st.warning(result.tokenizer_unread)
    warning = result.estimate_warning()
    if warning:
        st.warning(warning)
    if result.file_errors:
        st.error(f"{len(result.file_errors)} file(s) could not be read; the totals leave them out.")
        app.show_frame(pd.DataFrame(result.file_errors), key="audit_file_errors")
    if result.runner:
        st.caption(
            f"Ran on Ray ({result.runner['address']}, {result.runner['workers']} workers)."
            + (f" {result.runner['retry_note']}." if result.runner.get("retry_note") else "")
        )
    c = st.columns(4)
    c[0].metric("Samples", _fmt_int(result.samples))
    c[1].metric("Tokens", _fmt_int(result.tokens))
    c[2].metric("Assistant (loss-masked) tokens", _fmt_int(result.assistant_tokens))
    c[3].metric("Supervised fraction", percent(result.supervised_fraction))
    # one number a metric: "11,047 / 11,052" in a quarter of the page was cut ("11,047 / 11,0...") at 1400 px
    c = st.columns(4)
    for col, key in zip(c, ("p50", "p90", "p99", "max"), strict=True):
        col.metric(f"Length {key}", f"{result.length[key]:,}", help="Tokens per sample")
    c = st.columns(2)
    c[0].metric(
        f"Over max_length {result.max_length:,}",
        f"{_fmt_int(result.over_max_length)} ({percent(result.over_max_length_share)})",
        help=result.over_max_length_note,
    )
    c[1].metric("Format", result.format, help=result.format_label)
    st.caption(
        f"Source `{result.source}` · tokenizer: {result.tokenizer or 'none'} · counting: "
        f"{result.token_count_method} · template: {result.template}"
    )
    if result.estimate:
        app.show_frame(pd.DataFrame(result.estimate_rows()), key="audit_estimate_table")
    hub_rows = result.hub_rows_sentence()
    if hub_rows:
        st.info(hub_rows)
    for note in result.notes:
        if note not in (result.domain_note, result.empty_turn_note, result.non_text_note):  # said further down
            st.caption(f"Note: {note}")

    st.subheader("Token length per sample")
    app.show_chart(charts.length_histogram, result.histogram["bins"], result.histogram["counts"], result.max_length)

    left, right = st.columns(2)
    with left:
        st.subheader("Domain mix")
        app.show_chart(charts.domain_chart, result.domains)
        if result.domain_note:
            st.caption(result.domain_note[:1].upper() + result.domain_note[1:] + ".")
    with right:
        st.subheader("Responses")
        app.show_frame(pd.DataFrame(result.response_rows()), key="audit_regen_table")

    st.subheader("Anomalies")
    # rows of three: a count with its share ("1,234 (12.3%)") is cut in a fifth of the page at 1400 px
    c = st.columns(3)
    c[0].metric("Malformed rows", _fmt_int(result.malformed), help="Set aside: not samples")
    c[1].metric("Empty rows", _fmt_int(result.empty), help="Every turn empty: set aside, not samples")
    c[2].metric(
        "Rows with an empty turn",
        f"{_fmt_int(result.empty_turn_rows)} ({result.share(result.empty_turn_rows)})"
        if result.empty_turn_rows
        else "0",
        help="An empty or whitespace-only user or assistant turn: still samples (SpecForge and speculators train "
        "on them); the share is of the samples",
    )
    c = st.columns(3)
    c[0].metric("Anomaly rows", _fmt_int(result.anomaly_rows))  # any kind, not only role order
    c[1].metric(
        "Rows with a non-text value",
        f"{_fmt_int(result.non_text_rows)} ({result.share(result.non_text_rows)})" if result.non_text_rows else "0",
        help="A message whose value or content is a number, a list or true/false: SpecForge does not check, what it "
        "does with each is in the table below; samples unless SpecForge stops on them (then set aside)",
    )
    c = st.columns(3)
    # a sample's duplicates are the sample's, a lower rate than the split's (walk AG3 read 26 as the split's)
    in_sample = result.duplicates_note()
    sample_help = f"; {in_sample}" if in_sample else ""
    c[0].metric(
        "Exact duplicates in the sample" if in_sample else "Exact duplicates",
        _fmt_int(result.duplicates),
        help=f"Rows after the first whose text repeats an earlier row's{sample_help}",
    )
    c[1].metric(
        "Duplicates ignoring whitespace",
        _fmt_int(result.whitespace_duplicates),
        help="Rows whose text equals an earlier row's once each turn's runs of ASCII whitespace (spaces, tabs, "
        f"newlines) are one space and its ends are stripped; every row compared, the exact duplicates included. "
        f"The unique usable rows keep one copy of each{sample_help}",
    )
    c[2].metric(
        "Near duplicates",
        _fmt_int(result.near_duplicates),
        help=f"MinHash LSH over {result.near_duplicates_checked:,} rows{sample_help}",
    )
    if result.malformed_examples:
        st.markdown("**Set aside (first examples)**")
        app.show_frame(pd.DataFrame(result.malformed_examples).astype(str), key="audit_malformed_table")
    if result.empty_turn_rows:
        st.markdown("**Empty turns (first examples)**")
        st.caption(result.empty_turn_note[:1].upper() + result.empty_turn_note[1:] + ".")
        app.show_frame(pd.DataFrame(result.empty_turn_example_rows()).astype(str), key="audit_empty_turn_examples")
    if result.non_text_rows:
        st.markdown("**Non-text values (first examples)**")
        st.caption(result.non_text_note[:1].upper() + result.non_text_note[1:] + ".")
        app.show_frame(pd.DataFrame(result.non_text_examples).astype(str), key="audit_non_text_examples")
    if result.anomalies:
        st.markdown("**Role order**")
        app.show_frame(pd.DataFrame(result.anomaly_count_rows()), key="audit_anomaly_counts")
        app.show_frame(pd.DataFrame(result.anomaly_example_rows()).astype(str), key="audit_anomaly_examples")
    dup_rows = result.duplicate_rows()
    if dup_rows:
        st.markdown("**Duplicates (first examples)**")
        app.show_frame(pd.DataFrame(dup_rows), key="audit_dup_examples")

    st.subheader("Export")
    table = result.summary_table()
    c = st.columns(3)
    for col, fmt in zip(c, ("csv", "json", "md"), strict=False):
        col.download_button(
            f"Download {fmt.upper()}",
            data=functools.partial(export.render, table, fmt),  # made when clicked
            mime=export.MIME[fmt],
            file_name=f"dataset_audit.{export.EXTENSION[fmt]}",
            key=f"audit_download_{fmt}",
            on_click="ignore",  # no rerun: one would drop the other buttons' deferred files
        )

    st.subheader("Attach to a draft as training volume")
    st.caption(result.volume_sentence())
    unique = result.unique_volume()
    choices = {"rows trained on": (result.to_volume(), VOLUME_TRAINED)}
    if unique is not None:
        choices["unique usable rows"] = (unique, VOLUME_UNIQUE)
    picked_volume = st.radio(
        "Attach",
        list(choices),
        key="audit_attach_what",
        horizontal=True,
        format_func=lambda k: f"{k} ({choices[k][0]['samples']:,} samples)",
    )
    vol, vol_words = choices.get(picked_volume) or choices["rows trained on"]
    sample = result.sample_words()
    st.caption(
        f"Saves {vol['samples']:,} samples and {vol['tokens']:,} tokens ({vol_words}) to the results store, where "
        "Overview, the plan and the acceptance-vs-data chart pick them up."
        + (
            f" They count {sample}: stored as a sample, not the full volume, so the training samples typed in the "
            "sidebar stay in use (with none typed, the pages ask for the full count)."
            if sample
            else ""
        )
    )
    if "audit_attach_draft" not in st.session_state or st.session_state.get("_audit_attach_for") != own.source:
        # your draft's name (not the pasted URL), again after the sidebar's draft changes: a name kept from the
        # draft before stored this draft's audit under the other's name and attached it here
        st.session_state["audit_attach_draft"] = (
            ""
            if own.is_example or own.refusal
            else (own.volume if own.volume and not own.volume_of_another else own.name)
        )
        st.session_state["_audit_attach_for"] = own.source
    draft = st.text_input(
        "Draft name (as it appears in the comparison)",
        key="audit_attach_draft",
        placeholder="the name to store this volume under",
    )
    if st.button("Attach to a draft as training volume", key="audit_attach"):
        if not draft.strip():
            st.error("Type the draft's name first.")
        else:
            from comparelib.live.store import draft_name

            try:
                name = draft_name(draft)  # as stored: length-capped, a token typed into it masked
                source = (
                    f"{result.source} ({vol_words})"
                    + (" (estimate)" if result.estimated else "")
                    + (f" ({sample})" if sample else "")
                )
                app.open_store(settings.database_url()).save_data_volume(
                    draft=name,
                    samples=vol["samples"],
                    tokens=vol["tokens"],
                    source=source,
                    kind=VOLUME_KIND_SAMPLE if sample else "measured",
                    attached_by=app.visitor(),
                )
            except CompareError as exc:
                st.error(str(exc))
            else:
                said = [f"Saved {vol['samples']:,} samples / {vol['tokens']:,} tokens ({vol_words}) for {name}."]
                if own.is_example:
                    pass
                elif refused := own.refusal:  # a source the pages refuse names no draft: nothing attaches to it
                    said.append(
                        f"Not attached to your draft ({own.short}): {refused}. Paste a draft that can be read."
                    )
                elif own.with_(volume=name).volume_of_another:  # another draft's name: stored for it, not attached
                    said.append(
                        f"Not attached to your draft ({own.name}): {name} names another draft. Pick it in the "
                        "sidebar's training data if it is this draft's data."
                    )
                else:  # attached to your draft: Overview and the scaling chart use it now
                    app.set_own_draft(own.with_(volume=name))
                    said.append(f"Attached to your draft ({own.short}).")
                # the sidebar was drawn before this click: run again so its list and lines show the volume
                st.session_state[ATTACHED_STATE] = said
                st.rerun()
    if said_before := st.session_state.pop(ATTACHED_STATE, None):
        st.success(said_before[0])
        for line in said_before[1:]:
            st.caption(line)


@st.cache_data(show_spinner=False, ttl=3600, max_entries=128)  # keyed by what visitors type: bounded
def _tokenizer_check(model: str, token_tag: str) -> TokenizerCheck:
    """Whether the target ``model`` gives a tokenizer (``tokens.check_tokenizer``): none in it, or none readable
    here. ``token_tag`` is the session token's fingerprint, never the token: a private target's listing is not
    served to another session."""
    from comparelib.audit import tokens

    return tokens.check_tokenizer(model, token_field=app.TOKEN_FIELD)


def _own_runs() -> list[Any]:
    """Your draft's run group, as the other pages read its target from it (walk AR: every run was served with
    Kimi-K2.6, Overview said so, and the tokenizer field here stayed empty); none when the store cannot be read."""
    if not own.group:
        return []
    try:
        return list(own.runs(app.open_store(settings.database_url())))
    except CompareError:
        return []


def _default_tokenizer() -> tuple[Any, TokenizerCheck]:
    """Put your draft's target in the tokenizer field while the user has typed nothing else there (a field left
    empty counted bytes / 4, and no chat template rendered reasoning_content): (the target or None, what is known
    of its tokenizer: none in it (the field stays empty), or none readable here (it stays, for a token pasted
    later; Run audit then counts with the estimate and says why))."""
    found = None if own.is_example else app.draft_target(own, _own_runs())
    state = st.session_state
    typed, put = str(state.get("audit_tokenizer") or ""), state.get(TOKENIZER_DEFAULT)
    untouched = typed == (put or "")  # empty and never defaulted, or still the default put there
    model = found.model if found is not None else None
    check = TokenizerCheck()
    if model:
        with settings.session_token(app.hub_token()):
            check = _tokenizer_check(model, settings.token_fingerprint())
    if not untouched:
        return found, check
    if check.missing:  # the target cannot count them: the field stays empty, and the caption says why
        model = None
    state["audit_tokenizer"], state[TOKENIZER_DEFAULT] = model or "", model
    return found, check


def _unread_caption(target: Any, check: TokenizerCheck) -> str | None:
    """The caption for your draft's target in the tokenizer field when it cannot be read here (this session's last
    audit could not, or the check says so), else None: no claim that it counts the tokens."""
    with settings.session_token(app.hub_token()):
        tag = settings.token_fingerprint()
    origin = f"your draft's target `{target.model}` ({_TARGET_FROM.get(target.origin, 'your draft')})"
    ran = st.session_state.get(TOKENIZER_READ, {})
    if (target.model, tag) in ran:  # what the last audit found beats the check
        if ran[(target.model, tag)] is None:
            return None
        return (
            f"Tokenizer: {origin}, which the last audit could not read (the warning below says why): its tokens "
            "were estimated as UTF-8 bytes / 4, not the target's tokens. Run it again once it can be read, or type "
            "another tokenizer."
        )
    if check.unread is None:
        return None
    return (
        f"Tokenizer: {origin}, which cannot be read here: {check.unread.why}. Run audit then estimates tokens as "
        f"UTF-8 bytes / 4 (not the target's tokens) and says so. To count exactly, {check.unread.how}."
    )


with conv_tab:
    target_choice, target_check = _default_tokenizer()
    target_without_tokenizer = target_check.missing
    with st.form("audit_form"):
        source = st.text_input(
            "Dataset: a .jsonl/.json/.parquet/.arrow file, a folder, or a Hub dataset "
            "(org/name or https://huggingface.co/datasets/org/name)",
            key="audit_source",
            placeholder="/data/sharegpt_train.jsonl",
        )
        upload = st.file_uploader(
            "…or upload a dataset file (used instead of the path above)",
            key="audit_upload",
            type=["jsonl", "json", "parquet", "arrow", "gz", "bz2", "xz"],
            help="Streamed to a temporary file under the data root, capped by SPECDRAFT_MAX_UPLOAD_BYTES, and "
            "deleted after the audit.",
        )
        tokenizer = st.text_input(
            "Target tokenizer: tokenizer.json, its folder, or a Hub model id (optional)",
            key="audit_tokenizer",
            placeholder="meta-llama/Llama-3.1-8B-Instruct",
        )
        unread_caption = (
            _unread_caption(target_choice, target_check)
            if target_choice is not None and target_choice.model and tokenizer == target_choice.model
            else None
        )
        if unread_caption is not None:
            st.caption(unread_caption + (f" {target_choice.note}" if target_choice.note else ""))
        elif target_choice is not None and target_choice.model and tokenizer == target_choice.model:
            st.caption(
                f"Tokenizer: your draft's target `{target_choice.model}` "
                f"({_TARGET_FROM.get(target_choice.origin, 'your draft')}): its tokenizer and chat template count "
                "the tokens your draft trains on. Type another tokenizer to count with that one."
                + (f" {target_choice.note}" if target_choice.note else "")
            )
        elif target_choice is not None and target_without_tokenizer and not tokenizer.strip():
            st.caption(
                f"Tokenizer: none: your draft's target `{target_choice.model}` "
                f"({_TARGET_FROM.get(target_choice.origin, 'your draft')}) {target_without_tokenizer}, so its "
                "tokens cannot be counted with it: paste a tokenizer repo or folder here (the target's own, e.g. the "
                "model it was built from). Left empty, tokens are estimated as UTF-8 bytes / 4, not the target's "
                "tokens." + (f" {target_choice.note}" if target_choice.note else "")
            )
        c = st.columns(4)
        max_length = c[0].number_input(
            "max_length", min_value=1, max_value=1_048_576, value=2048, step=256, key="audit_max_length"
        )
        fmt = c[1].selectbox("Format", ["auto", *FORMATS], key="audit_format")
        config = c[2].text_input("Hub config", key="audit_config", placeholder="default")
        split = c[3].text_input("Hub split", key="audit_split", placeholder="train")
        c = st.columns(2)
        sample_mode = c[0].checkbox("Estimate from a random sample", key="audit_sample_mode")
        sample_n = c[1].number_input(
            "Rows to sample", min_value=10, max_value=10_000_000, value=10_000, step=1000, key="audit_sample_n"
        )
        run = st.form_submit_button("Run audit", type="primary", key="audit_run")
    if run:
        st.session_state.pop("audit_result", None)
        if not source.strip() and upload is None:
            st.error("Give a dataset path or Hub id, or upload a file.")
        else:
            saved = None
            try:
                if upload is not None:
                    saved = paths.save_upload(upload, upload.name)
                asked = tokenizer.strip()
                # your draft's target, put in the field for you: one that cannot be read here does not stop the
                # audit (the estimate counts, and a warning says why); a tokenizer typed there stops it with why
                prefilled = bool(asked) and asked == (st.session_state.get(TOKENIZER_DEFAULT) or "")
                with settings.session_token(app.hub_token()):  # a private dataset or tokenizer, as on Compare
                    counted_with: str | TokenizerBundle = asked
                    if prefilled:
                        from comparelib.audit import tokens

                        counted_with = tokens.load_tokenizer_or_estimate(
                            asked, what=f"The tokenizer of your draft's target {asked}", token_field=app.TOKEN_FIELD
                        )
                        st.session_state.setdefault(TOKENIZER_READ, {})[(asked, settings.token_fingerprint())] = (
                            counted_with.unread
                        )
                    result = _run_audit(
                        str(saved) if saved is not None else source.strip(),
                        counted_with,
                        int(max_length),
                        fmt,
                        int(sample_n) if sample_mode else None,
                        config.strip(),
                        split.strip(),
                    )
                if saved is not None:
                    result.source = upload.name  # not the server's temporary path
                result.mark_sample(int(sample_n) if sample_mode else None)  # a sample not extrapolated: said so
                st.session_state["audit_result"] = result
            except CompareError as exc:  # a private or gated tokenizer or dataset: the sidebar's token field says how
                what = "The dataset" if getattr(exc, "repo_type", "") == "dataset" else "The tokenizer"
                st.error(app.hub_access_text(exc, what) or str(exc))
            except OSError as exc:
                st.error(f"Cannot read the dataset: {exc.strerror or exc}")
            finally:
                if saved is not None:
                    shutil.rmtree(saved.parent, ignore_errors=True)
    result = st.session_state.get("audit_result")
    if isinstance(result, AuditResult):
        _show_result(result)


def _own_draft_config() -> dict[str, Any] | None:
    """Your draft's config (the sidebar's draft, read as Overview reads it: ``app.draft_entry``), to check dumps
    against when no config is given here; None for the built-in example or a draft that cannot be read."""
    if own.is_example:
        return None
    try:
        with settings.session_token(app.hub_token()):
            entry = app.draft_entry(own.source, settings.token_fingerprint())
    except CompareError as exc:
        # said, not silent: walk R2's share link (no token yet) read only "no target hidden size given"
        said = (
            app.hub_access_text(exc, f"Your draft {own.short}") or f"Your draft {own.short} could not be read: {exc}"
        )
        st.caption(f"{said} The dumps are checked without its config until it can be read, or a config is given here.")
        return None
    return dumps.draft_config_of(entry)


def _own_config_sentence(fields: dict[str, Any]) -> str:
    """What your draft's config sets for the dump checks, and which of its fields said it."""
    said = []
    if fields["target_hidden_size"]:
        hidden = fields["target_hidden_size"]
        said.append(
            f"target hidden size {hidden:,} (its {fields['target_hidden_size_key']}; aux = 3 × {hidden:,} = "
            f"{3 * hidden:,})"
        )
    if fields["vocab_size"]:
        said.append(f"vocab {fields['vocab_size']:,} (its {fields['vocab_size_key']})")
    if fields["aux_layer_ids"]:
        said.append(f"aux layer ids {fields['aux_layer_ids']}")
    return ", ".join(said)


with dump_tab:
    st.caption(
        "SpecForge `.ckpt`, ModelOpt `.pt` and speculators `hs_*.safetensors` dumps: shapes against the draft "
        "config (aux = 3 × target hidden), NaN/inf, loss-mask coverage and layer-wiring sanity, on a sample "
        "of files."
    )
    with st.form("dumps_form"):
        folder = st.text_input("Dump folder", key="dumps_folder", placeholder="/data/hidden_states")
        c = st.columns(3)
        cfg_text = c[0].text_input(
            "Draft config.json, its folder or Hub id (optional)",
            key="dumps_config",
            help="A private or gated Hub draft is read with the sidebar's Hub token.",
        )
        hidden = c[1].number_input(
            "Target hidden size (0 = from the config)", min_value=0, value=0, step=256, key="dumps_hidden"
        )
        max_files = c[2].number_input("Files to read", min_value=1, max_value=1000, value=8, key="dumps_max_files")
        full = st.checkbox(
            "Every file, with per-layer mean/std/norm and drift across files",
            key="dumps_full",
            help="A capture-layer mix-up shows as a jump in a layer's norm from file to file.",
        )
        own_config = _own_draft_config()
        own_fields = dumps.draft_config_fields(own_config)
        own_said = _own_config_sentence(own_fields) if own_config is not None else ""
        if own_said:
            st.caption(
                f"With no config given here, the files are checked against your draft's config (`{own.short}`, the "
                f"sidebar's draft): {own_said}. A config or a target hidden size given here replaces it."
            )
        ray_address = cluster.address_from_env()
        if ray_address:
            st.caption(f"Files are checked on the Ray cluster at `{ray_address}` (SPECDRAFT_RAY_ADDRESS).")
        run_dumps = st.form_submit_button("Audit dumps", type="primary", key="dumps_run")
    if run_dumps:
        if not folder.strip():
            st.error("Give the dump folder.")
        else:
            try:
                started = time.perf_counter()
                from_own = not cfg_text.strip() and bool(own_said)
                typed_config = None
                if cfg_text.strip():
                    with settings.session_token(app.hub_token()):  # a Hub id is read as the sidebar's draft is
                        typed_config = dumps.load_draft_config(cfg_text)
                common: dict[str, Any] = {
                    "draft_config": typed_config if cfg_text.strip() else (own_config if from_own else None),
                    "target_hidden_size": int(hidden) or None,
                    "max_files": int(max_files),
                    "full": bool(full),
                }
                if ray_address:
                    dump_bar = st.progress(0.0, text=f"Starting on the Ray cluster at {ray_address}…")

                    def dump_progress(done: int, total: int) -> None:
                        dump_bar.progress(done / max(total, 1), text=f"{done:,} of {total:,} files checked")

                    report = cluster.audit_dumps(folder.strip(), address=ray_address, progress=dump_progress, **common)
                else:
                    with st.spinner("Reading dump files…"):
                        report = dumps.audit_dumps(folder.strip(), **common)
            except CompareError as exc:
                st.error(str(exc))
            except (OSError, ValueError) as exc:
                st.error(f"Cannot use that input: {exc}")
            else:
                st.caption(f"Read in {time.perf_counter() - started:,.1f} s.")
                if from_own:
                    typed = (
                        f" The target hidden size typed here ({int(hidden):,}) replaced its "
                        f"{own_fields['target_hidden_size_key']}."
                        if int(hidden) and own_fields["target_hidden_size"]
                        else ""
                    )
                    st.caption(
                        f"Checked against your draft's config (`{own.short}`, the sidebar's draft): {own_said}.{typed}"
                    )
                findings = report.finding_rows()
                # the CLI's verdict line; notes (info) alone leave it ok, so they are no warning here either
                banner = {"broken": st.error, "suspect": st.warning}.get(report.verdict, st.success)
                banner(report.headline())
                if findings:  # whole, wrapped, as the CLI prints them: a table cell cut a fix off mid-sentence
                    with st.container(border=True, key="dumps_findings"):
                        for line in report.finding_lines():
                            st.text(line, width="stretch")
                if report.files:
                    app.show_frame(pd.DataFrame(report.files).astype(str), key="dumps_files")
                if report.layer_stats:
                    st.markdown("**Per-layer statistics by file** (a jump in a layer's norm: a capture mix-up)")
                    app.show_frame(pd.DataFrame(report.layer_stats), key="dumps_layers")
                if report.summary:
                    st.json(report.summary)
