"""Acceptance vs training volume: the t quantile, the fit pinned to hand-computed tables, the band,
the inverse, the setting discipline and the Kimi verdict from the built-in data."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from comparelib.analysis import overview, scaling, stats, verdicts
from comparelib.errors import DataError, InputError
from comparelib.live.store import Store
from comparelib.models import registry
from tests.fixtures import run_cli

# Student t quantiles from printed tables (two-sided 95% -> p = 0.975; one-sided 95% -> 0.95).
T_TABLE = [
    (0.975, 1, 12.7062),
    (0.975, 2, 4.3027),
    (0.975, 3, 3.1824),
    (0.975, 5, 2.5706),
    (0.975, 10, 2.2281),
    (0.975, 30, 2.0423),
    (0.95, 4, 2.1318),
    (0.995, 8, 3.3554),
    (0.90, 20, 1.3253),
]


@pytest.mark.parametrize(("p", "df", "expected"), T_TABLE)
def test_t_quantile_matches_tables(p: float, df: int, expected: float) -> None:
    assert stats.t_quantile(p, df) == pytest.approx(expected, abs=1e-4)
    assert stats.t_quantile(1 - p, df) == pytest.approx(-expected, abs=1e-4)
    assert stats.t_cdf(stats.t_quantile(p, df), df) == pytest.approx(p, abs=1e-9)


def test_t_quantile_rejects_bad_probability() -> None:
    with pytest.raises(InputError):
        stats.t_quantile(1.0, 3)


def _pts(
    volumes: list[float],
    accepts: list[float],
    *,
    setting: str = "steps=3,topk=1,draft=4,bs=8,sglang",
    bench: str = "gsm8k",
    family: str = "acme",
    kind: str = "published",
) -> pd.DataFrame:
    rows = [
        scaling.own_point(
            draft=f"d{i}",
            benchmark=bench,
            accept_length=a,
            setting_key=setting,
            chain="(3,1,4)",
            samples=v,
            target_model=f"{family}/m{i}",
        )
        for i, (v, a) in enumerate(zip(volumes, accepts, strict=False))
    ]
    df = pd.DataFrame(rows, columns=list(scaling.POINT_COLUMNS))
    df["kind"] = kind
    df["family"] = family  # the family as given: "acme/m0" names no known model line
    return df


# Hand computation, table A: x = log10(volume) = 5, 6, 7; y = 2.0, 2.5, 3.3.
#   xbar = 6, ybar = 2.6, Sxx = 2, Sxy = (-1)(-0.6) + 0 + (1)(0.7) = 1.3
#   b = 0.65, a = 2.6 - 0.65*6 = -1.3; residuals 0.05, -0.10, 0.05 -> SSE = 0.015, s^2 = 0.015/1
#   s = 0.1224745, se_b = s/sqrt(2) = 0.0866025, se_a = s*sqrt(1/3 + 36/2) = 0.5244044
#   SST = 0.36 + 0.01 + 0.49 = 0.86 -> R^2 = 1 - 0.015/0.86 = 0.9825581
# Table B adds (1e7, 3.1): xbar = 6.25, Sxx = 2.75, Sxy = 1.675 -> b = 0.6090909, a = -1.0818182;
#   residuals 0.0363636, -0.0727273, 0.1181818, -0.0818182 -> SSE = 0.0272727, s^2 = 0.0136364
#   s = 0.1167748, se_b = s/sqrt(2.75) = 0.0704179, se_a = s*sqrt(1/4 + 6.25^2/2.75) = 0.4439678
#   SST = 1.0475 -> R^2 = 0.9739640
FIT_CASES = [
    ([1e5, 1e6, 1e7], [2.0, 2.5, 3.3], -1.3, 0.65, 0.5244044, 0.0866025, 0.1224745, 0.9825581),
    ([1e5, 1e6, 1e7, 1e7], [2.0, 2.5, 3.3, 3.1], -1.0818182, 0.6090909, 0.4439678, 0.0704179, 0.1167748, 0.9739640),
]


@pytest.mark.parametrize(("vols", "accs", "a", "b", "se_a", "se_b", "s", "r2"), FIT_CASES)
def test_fit_matches_hand_computation(vols, accs, a, b, se_a, se_b, s, r2) -> None:  # type: ignore[no-untyped-def]
    f = scaling.fit(_pts(vols, accs))
    assert f.a == pytest.approx(a, abs=1e-6)
    assert f.b == pytest.approx(b, abs=1e-6)
    assert f.se_a == pytest.approx(se_a, abs=1e-6)
    assert f.se_b == pytest.approx(se_b, abs=1e-6)
    assert f.residual_se == pytest.approx(s, abs=1e-6)
    assert f.r2 == pytest.approx(r2, abs=1e-6)
    assert f.n == len(vols)
    assert f.distinct == 3


def test_band_at_the_mean_is_t_times_s_over_root_n() -> None:
    f = scaling.fit(_pts([1e5, 1e6, 1e7], [2.0, 2.5, 3.3]))
    mean, lo, hi = scaling.predict(f, 1e6)  # log10 = xbar: half width = t(0.975, 1) * s / sqrt(3)
    assert mean == pytest.approx(2.6)
    assert hi - mean == pytest.approx(12.7062047 * 0.1224745 / math.sqrt(3), abs=1e-5)
    assert mean - lo == pytest.approx(hi - mean)
    # wider away from the mean of the data
    _, lo2, hi2 = scaling.predict(f, 1e8)
    assert hi2 - lo2 > hi - lo


def test_volume_for_inverts_the_line_and_the_band() -> None:
    f = scaling.fit(_pts([1e5, 1e6, 1e7, 1e7], [2.0, 2.5, 3.3, 3.1]))
    n, lo, hi = scaling.volume_for(f, 3.0)
    assert scaling.predict(f, n)[0] == pytest.approx(3.0)
    assert lo is not None and hi is not None and lo < n < hi
    assert scaling.predict(f, lo)[2] == pytest.approx(3.0)  # upper band reaches the target at the low end
    assert scaling.predict(f, hi)[1] == pytest.approx(3.0)  # lower band reaches it at the high end
    sentence = verdicts.target_sentence(f, 3.0)
    assert sentence.startswith("To reach 3 on GSM8K at steps=3,topk=1,draft=4,bs=8,sglang you need about 5M samples")
    assert "range 1.9M..26M" in sentence
    # a target taken from a measured run reads as the field shows it (walk N: "To reach 3.42857 on GSM8K")
    assert verdicts.target_sentence(f, 24 / 7).startswith("To reach 3.429 on GSM8K")


def test_volume_for_unbounded_and_flat() -> None:
    f = scaling.fit(_pts([1e5, 1e6, 1e7], [2.0, 2.5, 3.3]))  # 1 degree of freedom: slope not resolved
    n, lo, hi = scaling.volume_for(f, 3.0)
    assert lo is None and hi is None
    assert "too uncertain" in verdicts.target_sentence(f, 3.0)
    flat = scaling.fit(_pts([1e5, 1e6, 1e7], [3.0, 2.9, 2.8]))
    assert scaling.volume_for(flat, 3.5) is None
    assert "does not rise" in verdicts.target_sentence(flat, 3.5)


def test_fit_needs_three_distinct_volumes() -> None:
    with pytest.raises(DataError, match="at least 3 distinct"):
        scaling.fit(_pts([1e5, 1e6, 1e6, 1e6], [2.0, 2.5, 2.6, 2.7]))


def test_select_never_mixes_settings_and_says_why() -> None:
    a = _pts([1e5, 1e6, 1e7], [2.0, 2.5, 3.3])
    b = _pts([2e5, 2e6], [4.0, 5.0], setting="bs=1,T=0,dynamic tree (EAGLE-2),eagle")
    c = _pts([3e5], [2.2], bench="mtbench")
    pts = pd.concat([a, b, c], ignore_index=True)
    sel = scaling.select(pts, benchmark="gsm8k", setting_key="steps=3,topk=1,draft=4,bs=8,sglang")
    assert list(sel.points["accept_length"]) == [2.0, 2.5, 3.3]
    assert len(sel.excluded) == 3
    reasons = list(sel.excluded["reason"])
    assert reasons[0].startswith("different setting (bs=1,T=0,dynamic tree")
    assert reasons[2].startswith("other benchmark (mtbench)")


def test_published_points_mark_unusable_rows() -> None:
    results = pd.DataFrame(
        [
            {
                "hub_id": "x/a",
                "target_model": "t/m",
                "benchmark": "gsm8k",
                "accept_length": 3.0,
                "setting_key": "k",
                "chain": "(3,1,4)",
                "train_samples": None,
                "train_tokens": None,
                "source": "s",
            },
            {
                "hub_id": "x/b",
                "target_model": "t/m",
                "benchmark": "gsm8k",
                "accept_length": None,
                "setting_key": "k",
                "chain": "(3,1,4)",
                "train_samples": 1000,
                "train_tokens": None,
                "source": "s",
            },
        ]
    )
    pts = scaling.published_points(results)
    assert list(pts["usable"]) == [False, False]
    assert list(pts["reason"]) == ["no training volume reported", "no acceptance length reported"]


def test_registry_points_are_per_benchmark_and_setting() -> None:
    pts = scaling.published_points()
    aq = pts[(pts["draft"] == verdicts.KIMI_REFERENCE) & (pts["benchmark"] == "gsm8k") & pts["usable"]]
    assert set(aq["accept_length"]) >= {3.271, 4.655, 3.165}
    assert aq["samples"].eq(1_400_000).all()
    assert scaling.resolve_setting(pts, "gsm8k", "3,1,4") == "steps=3,topk=1,draft=4,bs=8,sglang"
    with pytest.raises(InputError):
        scaling.resolve_setting(pts, "gsm8k", "9,9,9")
    with pytest.raises(InputError):
        scaling.resolve_setting(pts, "no-such-bench", None)


def test_kimi_verdict_from_the_data_alone() -> None:
    v = verdicts.kimi_verdict()
    assert v.reference == "AQ-MedAI/Kimi-K2-Instruct-eagle3"
    assert v.own_volume == 37_000 and v.reference_volume == 1_400_000
    assert v.ratio == pytest.approx(37.84, abs=0.01)
    assert v.setting_key == "steps=3,topk=1,draft=4,bs=8,sglang"
    assert v.reference_accept == pytest.approx(3.271)
    # one Kimi-family volume at this exact setting: too few, so the fit is pooled and says so
    assert v.family == "kimik2" and v.family_distinct == 1
    assert v.fit_scope == "pooled" and v.fit is not None and v.fit.label == "pooled across drafts"
    assert v.predicted is not None and 1.0 <= v.predicted[1] <= v.predicted[0] <= v.predicted[2] <= 4.0
    assert v.extrapolated
    s = v.sentence
    assert (
        "37K training samples sits far below the 1.4M of the published draft "
        "AQ-MedAI/Kimi-K2-Instruct-eagle3 (38x fewer)" in s
    )
    assert "too few to fit; a fit pooled across all 7 drafts" in s
    assert "95% band" in s and "extrapolation below the smallest published volume" in s
    # the looser family fit is a separate, labelled sentence
    assert v.family_chain_fit is not None and "Looser, labelled" in s


def test_gap_verdict_uses_the_family_when_it_has_enough_volumes() -> None:
    fam = _pts([4e5, 1e6, 1.4e6], [2.8, 3.1, 3.3], family="moonshotai")
    other = _pts([3e5, 5e5, 1.4e6], [2.0, 2.2, 2.6], family="meta-llama")
    pts = pd.concat([fam, other], ignore_index=True)
    v = verdicts.gap_verdict(37_000, "d2", points=pts)  # d2 in `fam` is the 1.4M draft
    assert v.fit_scope == "family" and v.fit is not None and v.fit.n == 3
    assert "A fit over 3 moonshotai points" in v.sentence


def test_own_points_from_the_example_session_line_up_by_setting_key() -> None:
    store = Store("sqlite://")
    store.ensure_examples()
    runs = store.runs(group="example-kimi-k2.5")
    own = scaling.own_points_from_runs(runs, draft="own", samples=37_000)
    assert len(own) == 1  # baselines are not points
    row = own.iloc[0]
    assert row["setting_key"] == "steps=2,topk=1,draft=3,sglang" and row["chain"] == "(2,1,3)"
    assert row["accept_length"] == pytest.approx(2.1) and row["kind"] == "own" and bool(row["usable"])


def test_overview_facts_for_the_kimi_example() -> None:
    from comparelib.models import comparison

    # the entries the Overview page loads: sizes are load_entry's counts, not counted again
    own = comparison.load_entry(comparison.EXAMPLE_OWN, with_header=False)
    ref = comparison.load_entry(comparison.registry_source(verdicts.KIMI_REFERENCE), with_header=False)
    size = overview.size_facts(own, ref, "our draft", verdicts.KIMI_REFERENCE)
    assert size.own_excluding_embedding == 2_135_977_984
    assert size.ref_excluding_embedding == 1_190_948_864
    assert size.own_embedding == size.ref_embedding == 163_840 * 7_168 == 1_174_405_120
    assert "all of it is the lm_head: 163,840 x 7,168" in size.sentence and "32,000 x 7,168" in size.sentence

    store = Store("sqlite://")
    store.ensure_examples()
    live = overview.live_facts(store.runs(group="example-kimi-k2.5"))
    assert live is not None and live.spec_tok_s == 94.0 and live.baseline_tok_s == 88.8
    assert round(live.gain * 100, 1) == 5.9 and "+5.9%" in live.sentence

    acc = overview.accept_facts(2.1, "steps=2,topk=1,draft=3,sglang", verdicts.KIMI_REFERENCE)
    assert not acc.same_setting
    assert (round(acc.ref_lo, 2), round(acc.ref_hi, 2)) == (3.17, 3.49)
    assert "settings differ" in acc.sentence

    name, sentence = overview.largest_gap(
        data_ratio=1.4e6 / 37e3,
        size_ratio=2_135_977_984 / 1_190_948_864,
        accept_ratio=3.49 / 2.1,
        own_volume=37e3,
        ref_volume=1.4e6,
    )
    assert name == "training data"
    assert sentence.startswith("The largest gap is training data: 37K samples against 1.4M (38x fewer).")


def _published_for_overview() -> list[tuple[str, str | None]]:
    """(draft, own setting) cases: every registry draft with no own setting, and at each setting it publishes."""
    pts = scaling.published_points()
    pts = pts[pts["accept_length"].notna() & pts["benchmark"].isin(overview.HEADLINE_BENCHMARKS)]
    cases: list[tuple[str, str | None]] = []
    for draft, rows in pts.groupby("draft"):
        cases.append((str(draft), None))
        cases += [(str(draft), str(k)) for k in sorted(set(rows["setting_key"].dropna()))]
    return cases


@pytest.mark.parametrize(("draft", "own_setting"), _published_for_overview())
def test_overview_acceptance_range_agrees_with_the_scaling_points(draft: str, own_setting: str | None) -> None:
    """Overview's published range is read without pandas (registry records); the scaling chart's points
    (a pandas frame of the same registry) must give the same range, at the same setting or over all."""
    pts = scaling.published_points()
    rows = pts[
        (pts["draft"] == draft) & pts["accept_length"].notna() & pts["benchmark"].isin(overview.HEADLINE_BENCHMARKS)
    ]
    if own_setting is not None:
        rows = rows[rows["setting_key"] == own_setting]
    acc = overview.accept_facts(2.0, own_setting, draft)
    assert acc.same_setting is (own_setting is not None)
    assert (acc.ref_lo, acc.ref_hi) == (rows["accept_length"].min(), rows["accept_length"].max())
    assert acc == overview.accept_facts(2.0, own_setting, draft, results=registry.results_frame())


def test_cli_scaling_json() -> None:
    proc = run_cli(
        "scaling",
        "--benchmark",
        "gsm8k",
        "--setting",
        "3,1,4",
        "--target-accept",
        "3.0",
        "--own-samples",
        "37000",
        "--reference",
        verdicts.KIMI_REFERENCE,
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["setting_key"] == "steps=3,topk=1,draft=4,bs=8,sglang"
    assert out["fit"]["n"] == 7 and out["fit"]["se_b"] > 0
    assert out["fit"]["volume_for_target"]["n"] > 1e6
    assert out["excluded_reasons"]["different setting"] > 0
    assert "38x fewer" in out["gap"]


@pytest.mark.parametrize(
    "args",
    [
        ("scaling", "--benchmark", "no-such-bench"),
        ("scaling", "--setting", "9,9,9"),
        ("scaling", "--target-accept", "0.5"),
        ("scaling", "--own-samples", "-3"),
    ],
)
def test_cli_scaling_bad_input_exits_2(args: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    from comparelib import cli

    try:
        code = cli.main(list(args))
    except SystemExit as exc:  # argparse's own errors (a missing option) exit from inside the parser
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1


def test_overview_answer_uses_the_loaded_entries_and_the_run_group() -> None:
    from comparelib.models import comparison

    own = comparison.load_entry(comparison.EXAMPLE_OWN, with_header=False)
    ref = comparison.load_entry(comparison.registry_source(verdicts.KIMI_REFERENCE), with_header=False)
    store = Store("sqlite://")
    store.ensure_examples()
    runs = store.runs(group="example-kimi-k2.5")
    ans = overview.answer(own, ref, runs, 37_000.0)
    assert ans.reference == verdicts.KIMI_REFERENCE and ans.ref_volume == 1_400_000
    assert ans.size.own_excluding_embedding == own.count.excluding_embedding == 2_135_977_984
    assert ans.best_run is not None and ans.best_run.output_tokens_per_s == 94.0
    assert ans.own_accept == pytest.approx(2.1) and ans.own_setting == "steps=2,topk=1,draft=3,sglang"
    assert ans.accept.ref_range == "3.17-3.49" and not ans.accept.same_setting
    assert ans.data_ratio == pytest.approx(1.4e6 / 37e3) and ans.gap == "training data"
    assert ans.gap_sentence.startswith("The largest gap is training data: 37K samples against 1.4M (38x fewer).")
    # no volume, no runs: the data and acceptance gaps cannot be named; the 2.1B against 1.0B outside the
    # embedding is all lm_head (163,840 rows against 32,000), so the layers are alike and size is no gap either
    bare = overview.answer(own, ref, [], None)
    assert bare.data_ratio is None and bare.accept_ratio is None and bare.best_run is None and bare.live is None
    assert bare.gap == "" and bare.gap_sentence.startswith(
        "No real gap to the reference in what is known so far: size in its layers (outside the embedding and the "
        "lm_head) (within 0%). Not known yet: your training volume is missing"
    ), bare.gap_sentence


def test_fit_published_ignores_own_points_and_fit_at_reference() -> None:
    pub = _pts([1e5, 1e6, 1e7], [2.0, 2.5, 3.3])
    own = _pts([37_000], [9.9], kind="own")
    sel = scaling.select(
        pd.concat([pub, own], ignore_index=True), benchmark="gsm8k", setting_key="steps=3,topk=1,draft=4,bs=8,sglang"
    )
    f = scaling.fit_published(sel)
    assert f.n == 3 and f.a == pytest.approx(-1.3) and f.setting_key == "steps=3,topk=1,draft=4,bs=8,sglang"
    accept, steps, volume = scaling.fit_at_reference(f, sel.points, "d1") or (0.0, 0, 0.0)
    assert (accept, steps, volume) == (pytest.approx(2.6), 3, 1e6)
    assert scaling.fit_at_reference(f, sel.points, "nobody") is None
    no_steps = scaling.fit(_pts([1e5, 1e6, 1e7], [2.0, 2.5, 3.3], setting="bs=1,eagle"))
    assert scaling.fit_at_reference(no_steps, sel.points, "d1") is None


def test_measured_against_fit_takes_the_best_own_point() -> None:
    f = scaling.fit(_pts([1e5, 1e6, 1e7], [2.0, 2.5, 3.3]))
    assert verdicts.measured_against_fit(f, 1e6, scaling.empty_points()) is None
    own = _pts([1e6, 1e6], [1.5, 2.6], kind="own")
    agrees_text = verdicts.measured_against_fit(f, 1e6, own)
    assert agrees_text is not None and "You measured **2.60**" in agrees_text[1]


@pytest.mark.parametrize(
    ("at_reference", "scenario", "refused"),
    [
        (None, False, False),  # no fit at the reference: the current draft only
        ((3.27, 3, 1.4e6), True, False),  # the fit beats the 2.1-ish the example reaches: a "more data" scenario
        ((1.5, 3, 1.4e6), False, True),  # below what the draft already reaches: said, and no scenario
    ],
)
def test_live_outlook_adds_a_more_data_scenario_only_when_the_fit_beats_the_draft(
    at_reference: tuple[float, int, float] | None, scenario: bool, refused: bool
) -> None:
    store = Store("sqlite://")
    store.ensure_examples()
    look = verdicts.live_outlook(
        store.runs(group="example-kimi-k2.5"), at_reference, reference="AQ-MedAI/Kimi-K2-Instruct-eagle3", x="samples"
    )
    assert look.best is not None and look.best.num_steps == 2  # the session's own finding
    assert look.prediction is not None
    assert (look.scenario is not None) is scenario
    assert (look.best_with_more_data is not None) is scenario
    if scenario:
        assert look.scenario == "fit at 1.4M samples: 3.27 at 3 steps"
        assert set(look.prediction["scenario"]) == {"current draft", look.scenario}
        assert look.best_with_more_data.tok_s > look.best.tok_s
    assert (look.no_scenario is not None) is refused
    if refused:
        assert 'No "more data" scenario: the fit\'s prediction of 1.50' in look.no_scenario
        # the example measured num_steps=2 only: 3 steps is the model's extrapolation, and says so
        assert "the model predicts for your draft at 3 steps" in look.no_scenario
        assert "extrapolated from the runs at num_steps=2; not measured" in look.no_scenario
