"""What a training-data audit found (``AuditResult``), and the length statistics it reports."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from comparelib.values import VOLUME_TRAINED as VOLUME_TRAINED  # re-exported: the audit's callers
from comparelib.values import VOLUME_UNIQUE as VOLUME_UNIQUE
from comparelib.values import percent as percent  # a share as shown (re-exported: the audit's callers use it)
from comparelib.values import volume_words as volume_words


class Histogram(TypedDict):
    bins: list[float]  # bin edges, one more than counts
    counts: list[int]


@dataclass
class AuditResult:
    """Everything the audit found; ``to_volume`` is what a draft's comparison needs."""

    source: str
    format: str
    format_label: str
    tokenizer: str | None
    token_count_method: str
    template: str
    samples: int
    rows_read: int
    turns: int
    tokens: int
    assistant_tokens: int
    supervised_fraction: float
    length: dict[str, float]
    histogram: Histogram
    max_length: int
    over_max_length: int
    over_max_length_share: float
    over_max_length_note: str
    empty: int
    malformed: int
    malformed_examples: list[dict[str, Any]]
    anomalies: dict[str, int]
    anomaly_rows: int
    anomaly_examples: list[dict[str, Any]]
    duplicates: int
    duplicate_examples: list[dict[str, Any]]
    near_duplicates: int
    near_duplicates_checked: int
    near_duplicate_examples: list[dict[str, Any]]
    regenerated: int
    original: int
    regeneration_status: dict[str, int]
    domains: dict[str, int]
    zero_supervised: int
    rows_with_offsets: int
    # the rows a trainer trains on (rows with no supervised token dropped, duplicates kept) and their tokens;
    # the unique usable rows (duplicates dropped too, exact and whitespace-only: ``whitespace_duplicates``), None for
    # an estimate (duplicates counted in the sample only)
    trained_samples: int = 0
    trained_tokens: int = 0
    unique_samples: int | None = None
    unique_tokens: int | None = None
    # samples with an empty or whitespace-only user / assistant turn (still samples: the trainers keep them)
    empty_turn_rows: int = 0
    empty_turn_roles: dict[str, int] = field(default_factory=dict)  # rows by the role of their empty turn
    empty_turn_examples: list[dict[str, Any]] = field(default_factory=list)
    empty_turn_note: str = ""  # the sentence that says so and that they still count (also in ``notes``)
    # rows after the first whose text repeats an earlier row's once whitespace is collapsed (the exact ones included)
    whitespace_duplicates: int = 0
    whitespace_duplicate_examples: list[dict[str, Any]] = field(default_factory=list)  # the whitespace-only ones
    # rows with a message whose content is not text, by what SpecForge does with them (scan.NON_TEXT_OUTCOMES);
    # the "fail" ones are set aside (malformed), the others are samples
    non_text_rows: int = 0
    non_text_outcomes: dict[str, int] = field(default_factory=dict)
    non_text_examples: list[dict[str, Any]] = field(default_factory=list)
    non_text_note: str = ""  # the sentence that says so (also in ``notes``)
    domain_source: str = "guessed"  # "stated" (by the rows' domain/category field), "guessed" (from text), "mixed"
    domain_note: str = ""  # the sentence that says so (also in ``notes``)
    estimated: bool = False
    estimate: dict[str, dict[str, float]] | None = None
    # rows audited as a sample whose totals are not extrapolated (the Hub states no row count, so there is no
    # population): every count is the sample's, not the data's. None for a full scan or an estimate (``estimated``)
    sample_rows: int | None = None
    population: int | None = None
    hub_rows: int | None = None
    hub_rows_note: str | None = None
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    # Ray path only: files a worker could not read (path and why), and how the pipeline ran.
    file_errors: list[dict[str, str]] = field(default_factory=list)
    runner: dict[str, Any] | None = None
    # a tokenizer the audit was given for the user (a page's draft target) that could not be read, so the byte
    # estimate counted instead: which, why and how to count exactly (``tokens.load_tokenizer_or_estimate``)
    tokenizer_unread: str | None = None

    def estimate_warning(self) -> str | None:
        """The sentence that says totals are estimated from a sample (None for a full scan)."""
        if not self.estimated:
            return None
        return (
            f"Estimate from a random sample of {self.rows_read:,} of {self.population:,} rows; "
            "totals carry a 95% confidence interval."
        )

    def mark_sample(self, sample: int | None) -> None:
        """Record that the audit was asked for a ``sample`` of rows (None: a full scan): one that was not
        extrapolated counts the sample only (``sample_rows``), which Attach stores as such."""
        self.sample_rows = self.rows_read if sample is not None and not self.estimated else None

    @property
    def sampled(self) -> bool:
        """Whether the counts are a sample's (an estimate, or a sample not extrapolated): duplicates among them."""
        return self.estimated or self.sample_rows is not None

    def duplicates_note(self) -> str | None:
        """What a sample's duplicate counts are (None for a full scan): a row counts as one only where the row it
        repeats was drawn too, so a random third of a split with 8% duplicates found about a third of that rate
        (walk AG3 offered the sample's 974 "unique usable rows" as if they were the split's)."""
        if not self.sampled:
            return None
        return (
            f"duplicates are counted within the sample of {self.rows_read:,} rows only: a row counts as one only "
            "where the row it repeats was drawn too, so a random sample finds a lower duplicate rate than the whole "
            "split has (for rows repeated once, about the sampled fraction of it); unique usable rows are not "
            "counted (a full scan counts them)"
        )

    def sample_words(self) -> str | None:
        """ "a sample of 300 rows; totals not extrapolated" for a sample's counts (``sample_rows``), else None."""
        if self.sample_rows is None:
            return None
        return f"a sample of {self.sample_rows:,} rows; totals not extrapolated"

    def hub_rows_sentence(self) -> str | None:
        """What the Hub states about the split's row count, or why it cannot say (None: not a Hub dataset)."""
        if self.hub_rows is not None:
            return f"The Hub states {self.hub_rows:,} rows for this split."
        return self.hub_rows_note or None

    def estimate_rows(self) -> list[dict[str, Any]]:
        """One row per estimated total: the estimate and its 95% interval, rounded to whole units."""
        return [
            {"metric": k, "estimate": round(v["value"]), "95% low": round(v["low"]), "95% high": round(v["high"])}
            for k, v in (self.estimate or {}).items()
        ]

    def response_rows(self) -> list[dict[str, Any]]:
        """Regenerated vs original responses, rows without a supervised token, and each regeneration status."""
        return [
            {"kind": "regenerated (status, _gen ids, finish_reason, primary_id)", "samples": self.regenerated},
            {"kind": "original", "samples": self.original},
            {"kind": "no supervised token", "samples": self.zero_supervised},
        ] + [{"kind": f"status: {k}", "samples": v} for k, v in self.regeneration_status.items()]

    def anomaly_count_rows(self) -> list[dict[str, Any]]:
        return [{"anomaly": k, "rows": v} for k, v in sorted(self.anomalies.items())]

    def anomaly_example_rows(self) -> list[dict[str, Any]]:
        """The first rows with an anomaly (any kind: role order, unknown role, tools not counted), lists joined
        into text for a table."""
        return [
            {**ex, "anomalies": ", ".join(ex["anomalies"]), "roles": " → ".join(ex["roles"])}
            for ex in self.anomaly_examples
        ]

    def empty_turn_example_rows(self) -> list[dict[str, Any]]:
        """The first samples with an empty turn: where, which message, and the row's roles."""
        return [{**ex, "roles": " → ".join(ex["roles"])} for ex in self.empty_turn_examples]

    def share(self, count: int) -> str:
        """``count`` as a percent of the samples scanned (of the sample only, for an estimate), as shown."""
        scanned = self.rows_read - self.malformed - self.empty if self.estimated else self.samples
        return percent(count / scanned) if scanned > 0 else "n/a"

    def duplicate_rows(self) -> list[dict[str, str]]:
        """The first exact, whitespace-only and near duplicates, each with the row it repeats."""
        return (
            [{"kind": "exact", "line": str(e["line"]), "same as": str(e["same_as"])} for e in self.duplicate_examples]
            + [
                {"kind": "whitespace only", "line": str(e["line"]), "same as": str(e["same_as"])}
                for e in self.whitespace_duplicate_examples
            ]
            + [
                {"kind": "near", "line": str(e["line"]), "same as": str(e["similar_to"])}
                for e in self.near_duplicate_examples
            ]
        )

    def to_volume(self) -> dict[str, int]:
        """The training volume Attach stores by default: the rows a trainer trains on (``VOLUME_TRAINED``); a row
        with no supervised token has no assistant token, so ``assistant_tokens`` is the whole set's."""
        return {
            "samples": int(self.trained_samples),
            "tokens": int(self.trained_tokens),
            "assistant_tokens": int(self.assistant_tokens),
        }

    def unique_volume(self) -> dict[str, int] | None:
        """The unique usable rows (``VOLUME_UNIQUE``) and their tokens; None for an estimate."""
        if self.unique_samples is None or self.unique_tokens is None:
            return None
        return {"samples": int(self.unique_samples), "tokens": int(self.unique_tokens)}

    def volume_sentence(self) -> str:
        """What the rows trained on are, counted from which rows, and the unique usable rows beside them."""
        est = " in the sample" if self.sampled else ""
        zero = (
            f"the {self.zero_supervised:,} with no supervised token{est} (an empty loss mask) are left out, as "
            "SpecForge and speculators drop them"
            if self.zero_supervised
            else "no row lacks a supervised token (SpecForge and speculators would drop one)"
        )
        spaced = self.whitespace_duplicates - self.duplicates  # the rows that repeat another only in whitespace
        kept = ([f"the {self.duplicates:,} exact duplicates{est}"] if self.duplicates else []) + (
            [f"the {spaced:,} rows{est} that differ from an earlier row only in whitespace"] if spaced > 0 else []
        )
        dups = (
            f"{' and '.join(kept)} are kept, as the trainers train each copy"
            if kept
            else "no row is a duplicate, exact or differing only in whitespace"
        )
        # an estimate's count is of all rows, not the sample's (walk AU: "8 row(s) in the sample are longer", 5 were)
        longer = (
            f"about {self.over_max_length:,} row(s) are longer, estimated from the sample"
            if self.estimated
            else f"{self.over_max_length:,} row(s){est} are longer"
        )
        cut = (
            f" (each row cut at max_length {self.max_length:,}, as SpecForge truncates: {longer})"
            if self.over_max_length
            else ""
        )
        said = (
            f"Rows trained on: {self.trained_samples:,} of {self.samples:,} samples, {self.trained_tokens:,} tokens"
            f"{' (estimated)' if self.estimated else ''}{cut}: {zero}; {dups}."
        )
        unique = self.unique_volume()
        if unique is None:
            what = "an estimate" if self.estimated else "a sample"
            return f"{said} Unique usable rows: not counted for {what} (duplicates are counted in the sample only)."
        return (
            f"{said} Unique usable rows: {unique['samples']:,} samples, {unique['tokens']:,} tokens (one copy of each "
            "duplicate, exact or differing only in whitespace, no row without a supervised token)."
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [
            ("source", self.source),
            ("format", self.format),
            (
                "tokenizer",
                self.tokenizer
                or (
                    "none (estimate: the one asked for could not be read)"
                    if self.tokenizer_unread
                    else "none (estimate)"
                ),
            ),
            ("token count", self.token_count_method),
            ("chat template", self.template),
            ("samples", self.samples),
            ("rows read", self.rows_read),
            # every message, a system prompt's too: "turns 20,028" of 20,008 user and assistant turns (walk AT)
            ("messages (system prompts included)", self.turns),
            ("tokens", self.tokens),
            ("assistant tokens", self.assistant_tokens),
            ("supervised fraction", share_value(self.supervised_fraction)),
        ]
        rows += [(f"length {k}", v) for k, v in self.length.items()]
        rows += [
            (f"over max_length {self.max_length}", self.over_max_length),
            ("over max_length share", share_value(self.over_max_length_share)),
            ("empty", self.empty),
            ("malformed", self.malformed),
            ("anomaly rows", self.anomaly_rows),  # any kind (role order, unknown role, tools not counted)
            ("rows with an empty turn", self.empty_turn_rows),  # still samples: the trainers keep them
        ]
        rows += [(f"rows with an empty {k} turn", v) for k, v in self.empty_turn_roles.items()]
        rows.append(("rows with a non-text value", self.non_text_rows))  # samples unless SpecForge stops on them
        rows += [(f"rows with a non-text value, SpecForge {k}", v) for k, v in self.non_text_outcomes.items()]
        rows += [
            ("exact duplicates", self.duplicates),
            ("duplicates ignoring whitespace", self.whitespace_duplicates),  # the exact ones included
            ("near duplicates", self.near_duplicates),
            ("near-duplicate rows checked", self.near_duplicates_checked),
            ("regenerated", self.regenerated),
            ("original", self.original),
            ("zero supervised tokens", self.zero_supervised),
            ("samples trained on", self.trained_samples),  # no row without a supervised token; duplicates kept
            ("tokens trained on", self.trained_tokens),
        ]
        if self.unique_samples is not None:
            rows += [("unique usable samples", self.unique_samples), ("unique usable tokens", self.unique_tokens)]
        rows.append(("domain source", self.domain_source))
        rows += [(f"domain {k}", v) for k, v in self.domains.items()]
        rows += [(f"anomaly {k}", v) for k, v in sorted(self.anomalies.items())]
        if self.estimate:
            for key, est in self.estimate.items():
                rows.append((f"{key} 95% low", round(est["low"])))
                rows.append((f"{key} 95% high", round(est["high"])))
        if self.hub_rows is not None or self.hub_rows_note:
            rows.append(("rows per the Hub", self.hub_rows if self.hub_rows is not None else self.hub_rows_note))
        return rows

    def summary_table(self) -> Any:
        import pandas as pd

        # values keep their types so JSON carries numbers as numbers (and text as text)
        rows = [
            (k, v if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v))
            for k, v in self.summary_rows()
        ]
        return pd.DataFrame(rows, columns=["metric", "value"], dtype=object)

    def export(self, fmt: str) -> str:
        from comparelib import export

        return export.render(self.summary_table(), fmt)


def share_value(fraction: float, places: int = 4) -> float:
    """A share as a number for the summary table (CLI, CSV, JSON): rounded to ``places`` decimals, or to three
    significant digits where that rounding would turn a nonzero share into 0.0 or one short of all into 1.0."""
    rounded = round(fraction, places)
    if (fraction > 0 and rounded == 0) or (fraction < 1 and rounded >= 1):
        return float(f"{fraction:.3g}") if fraction < 0.5 else 1 - float(f"{1 - fraction:.3g}")
    return rounded


def percentiles(lengths: Counter[int], qs: Sequence[float] = (50, 90, 99)) -> dict[str, float]:
    """Exact nearest-rank percentiles of the integer lengths in a Counter."""
    total = sum(lengths.values())
    out: dict[str, float] = {}
    if total == 0:
        return {**{f"p{int(q)}": 0 for q in qs}, "max": 0, "mean": 0.0}
    keys = sorted(lengths)
    for q in qs:
        rank = max(1, math.ceil(q / 100 * total))
        seen = 0
        for k in keys:
            seen += lengths[k]
            if seen >= rank:
                out[f"p{int(q)}"] = k
                break
    out["max"] = keys[-1]
    out["mean"] = round(sum(k * v for k, v in lengths.items()) / total, 2)
    return out


def histogram(lengths: Counter[int], bins: int = 40) -> Histogram:
    """Sample counts in at most ``bins`` equal-width bins of token length (``bins`` holds the edges)."""
    if not lengths:
        return {"bins": [0.0, 1.0], "counts": [0]}
    hi = max(lengths)
    width = max(1, math.ceil((hi + 1) / bins))
    n = math.ceil((hi + 1) / width)
    counts = [0] * n
    for k, v in lengths.items():
        counts[k // width] += v
    return {"bins": [float(i * width) for i in range(n + 1)], "counts": counts}
