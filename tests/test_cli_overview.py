"""``python -m comparelib overview``: the Overview page's answer from the command line.

Every page had a CLI counterpart except Overview, so a user comparing the page with the CLI, or scripting it, had
none. The command gathers the page's inputs (your draft and its target, the run group, the attached audit, the
training log kept with the draft) with the same functions, and states the same headline and bullets: each case
below opens the page on a link and runs the command on the same inputs, and compares what they say.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import curves
from tests.fixtures import aq_config, aq_tensors, bench_store, cli_in_process, page_app

DRAFT = "acme/kimi-draft"
GROUP = "acme-sweep"
LLAMA_REF = "lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge"


def _runs(model: str, *, draft: str | None = DRAFT, audit: bool = True) -> None:
    """A baseline and a 1..3-step chain sweep of ``draft`` served with ``model``, stored as the bench page stores
    them, and (``audit``) an audit attached under the draft's own name."""
    store = bench_store()
    for steps, tok_s, acc in ((None, 40.0, None), (1, 55.0, 1.7), (2, 63.0, 2.2), (3, 66.0, 2.6)):
        cfg = {
            "engine": "sglang",
            "model": model,
            "speculative_algorithm": "EAGLE3" if steps else None,
            "draft_model": draft if steps else None,
            "num_steps": steps,
            "topk": 1 if steps else None,
            "num_draft_tokens": steps + 1 if steps else None,
        }
        rid = store.start_run(
            endpoint="http://127.0.0.1:30000",
            server_config=cfg,
            group=GROUP,
            params={"concurrency": 1, "prompt_set": "bundled"},
        )
        store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": acc})
    if audit:
        store.save_data_volume(draft=DRAFT, samples=12_345, tokens=9_000_000, source="audit")


def _plateau() -> dict[str, Any]:
    """A plateaued training log, as "Keep this log with your draft" stores it."""
    pts = []
    for i in range(40):
        seen = (i + 1) * 16_000
        acc = (0.6 + 0.1 * (1 - math.exp(-seen / 40_000)), 0.5, 0.4)
        pts.append(curves.CurvePoint(i + 1, float(seen), "train", acc, curves.tau_sim(acc)))
    curve = curves.analyse(pts)
    assert curve.verdict == "plateau"
    return curves.to_stored(curve, steps=3)


# Each case: set-up (given the Hub emulator; returns the draft's source), the page's link, the command's arguments
# besides the draft and --json, and the reference picked on the page (None: the one it suggests).
Case = tuple[Callable[[Any], str], Callable[[str], dict[str, str]], list[str], str | None]


def _example(hub: Any) -> str:
    return "example"


def _hub_draft(hub: Any) -> str:
    hub.add_model(DRAFT, aq_config(), tensors=aq_tensors())
    _runs("acme/target")
    return f"{hub.url}/{DRAFT}"


def _kept_plateau(hub: Any) -> str:
    hub.add_model(DRAFT, aq_config(), tensors=aq_tensors())
    _runs("moonshotai/Kimi-K2.5", audit=False)
    bench_store().save_learning_curve(draft=DRAFT, source="plateau.csv", attached_by="a colleague", **_plateau())
    return f"{hub.url}/{DRAFT}"


CASES: dict[str, Case] = {
    # the built-in example with its audit and runs, as a fresh page shows it
    "example": (_example, lambda source: {}, [], None),
    # another reference picked in the "Reference draft" fold-out, as --reference
    "example, another reference": (_example, lambda source: {}, ["--reference", LLAMA_REF], LLAMA_REF),
    # a Hub draft whose config names no target (its runs' is taken), its own audit attached: the sidebar attaches
    # the audit stored under its name (the link's draft_vol), the command does too, unasked
    "hub draft, own audit and runs": (
        _hub_draft,
        lambda source: {"draft": source, "draft_vol": DRAFT, "draft_group": GROUP},
        ["--group", GROUP],
        None,
    ),
    # a training log kept with the draft (plateaued) and samples typed in: both answer from the kept log
    "kept plateaued log, samples typed": (
        _kept_plateau,
        lambda source: {"draft": source, "draft_group": GROUP, "draft_samples": "20000"},
        ["--group", GROUP, "--samples", "20000"],
        None,
    ),
}

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def _page(query: dict[str, str], reference: str | None) -> AppTest:
    at = page_app("../pages/overview.py", timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    if reference is not None:
        at.selectbox(key="ov_ref").set_value(reference).run()
        assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _page_headline(at: AppTest) -> str:
    """The page's headline: its first subheader (a gap is named), else its info box (none can be named)."""
    heads = [s.value for s in at.subheader if s.value != "What closes the gap, and what it costs"]
    return heads[0] if heads else at.info[0].value


def _page_lines(at: AppTest) -> list[str]:
    """The page's bullets, their links as their text and no bold, as a terminal shows them."""
    md = next(m.value for m in at.markdown if m.value.startswith("- **Your draft:**"))
    return [_LINK.sub(r"\1", line).replace("**", "") for line in md.split("\n")]


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_the_command_says_what_the_page_says(hub: Any, capsys: Any, case: str) -> None:
    setup, link, extra, reference = CASES[case]
    source = setup(hub)
    proc = cli_in_process(capsys, "overview", source, *extra, "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    at = _page(link(source), reference)

    assert said["headline"] == _page_headline(at)  # the same headline, word for word
    assert said["lines"] == _page_lines(at)  # and the same bullets: size, data, acceptance, live speed
    assert said["reference"]["hub_id"] == (reference or at.selectbox(key="ov_ref").value)
    assert said["run_ids"], said
    md = "\n".join(m.value for m in at.markdown)
    for rid in {said["acceptance"]["run_id"], said["best_run_id"]} - {None}:
        assert f"run #{rid}" in md, (rid, md)  # the runs the page names are the ones the command names
    notes = [n["text"] for n in said["notes"]]
    page_warnings = [_LINK.sub(r"\1", w.value) for w in at.warning]
    assert [n["text"] for n in said["notes"] if n["kind"] == "warning"] == page_warnings, (notes, page_warnings)

    proc = cli_in_process(capsys, "overview", source, *extra)  # the text: the same headline on a line of its own
    assert proc.returncode == 0, proc.stderr
    assert said["headline"] in proc.stdout.splitlines(), proc.stdout
    for line in said["lines"]:
        assert line in proc.stdout.splitlines()


def test_the_kept_log_is_read_and_named_as_the_page_reads_it(hub: Any, capsys: Any) -> None:
    source = _kept_plateau(hub)
    proc = cli_in_process(capsys, "overview", source, "--group", GROUP, "--samples", "20000", "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    log = said["training_log"]
    assert log["kept"] is True and log["source"] == "plateau.csv" and log["verdict"] == "plateau", log
    assert any("has plateaued" in n["text"] for n in said["notes"]), said["notes"]
    # your own log outweighs the published trend in the plan too, as on the page: more data is not ranked first
    assert said["plan"]["lead"] and "More training data" not in said["plan"]["lead"].split(".")[0], said["plan"]
    assert said["training_volume"] == {"samples": 20000.0, "source": "typed in"}

    proc = cli_in_process(capsys, "overview", source, "--group", GROUP, "--samples", "20000", "--no-kept-log")
    assert proc.returncode == 0, proc.stderr
    assert "training log: none (--no-kept-log; --curve LOG gives one)" in proc.stdout, proc.stdout
    assert "has plateaued" not in proc.stdout


def test_a_private_draft_is_read_with_hf_token_which_is_never_printed(
    hub: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add_model(DRAFT, aq_config(), tensors=aq_tensors(), private=True)
    source = f"{hub.url}/{DRAFT}"
    proc = cli_in_process(capsys, "overview", source)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert "HF_TOKEN" in proc.stderr, proc.stderr

    monkeypatch.setenv("HF_TOKEN", hub.token)
    for extra in ([], ["--json"]):
        proc = cli_in_process(capsys, "overview", source, *extra)
        assert proc.returncode == 0, proc.stderr
        assert hub.token not in proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["size"]["own_excluding_embedding"] == 1_190_948_864


def _garbage_log(tmp_path: Path) -> str:
    path = tmp_path / "train.log"
    path.write_text("hello\nnothing to see here\n")
    return str(path)


# (arguments, given the Hub's URL and a temporary folder; environment; what the one line says)
ERRORS: dict[str, tuple[Callable[[str, Path], list[str]], dict[str, str], str]] = {
    "unknown registry draft": (
        lambda hub, tmp: ["registry:nobody/none"],
        {},
        "'nobody/none' is not in the built-in registry",
    ),
    "unknown Hub draft": (lambda hub, tmp: [f"{hub}/nobody/none"], {}, "nobody/none"),
    "no such folder": (lambda hub, tmp: [str(tmp / "no-such-draft")], {}, "no such file or folder"),
    "no DB (--db)": (lambda hub, tmp: ["example", "--db", "nonsense"], {}, "not a database URL: nonsense"),
    "no DB (SPECDRAFT_DB)": (
        lambda hub, tmp: ["example"],
        {"SPECDRAFT_DB": "postgresql://nobody@127.0.0.1:1/none"},
        "cannot open the results database",
    ),
    "unreadable log": (
        lambda hub, tmp: ["example", "--curve", _garbage_log(tmp)],
        {},
        "no training metrics recognised",
    ),
    "missing log": (
        lambda hub, tmp: ["example", "--curve", str(tmp / "none.log")],
        {},
        "no such file or directory",
    ),
    "unknown group": (
        lambda hub, tmp: ["example", "--group", "nope"],
        {},
        "unknown --group 'nope': no run is stored under it; stored: example-kimi-k2.5",
    ),
    "unknown volume": (
        lambda hub, tmp: ["example", "--volume", "nope"],
        {},
        "unknown --volume 'nope': no training volume is stored under it",
    ),
    "unknown reference": (
        lambda hub, tmp: ["example", "--reference", "nope/nope"],
        {},
        "unknown --reference 'nope/nope'",
    ),
    "samples not a number": (
        lambda hub, tmp: ["example", "--samples", "lots"],
        {},
        "training samples must be a whole number",
    ),
}


@pytest.mark.parametrize("case", list(ERRORS), ids=list(ERRORS))
def test_bad_input_is_one_line_and_exit_2(
    hub: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case: str
) -> None:
    args, env, words = ERRORS[case]
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    proc = cli_in_process(capsys, "overview", *args(hub.url, tmp_path), "--json")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert words in proc.stderr, proc.stderr
