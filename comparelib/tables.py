"""How each table's columns are shown and exported: units, decimals, widths, which column is pinned.

One description per table serves both the page (turned into ``st.column_config`` there: this module
does not import Streamlit) and the exports (``export.render(df, fmt, table=...)``), so a number reads
the same on screen, in Markdown and in LaTeX, while CSV and JSON keep numbers as numbers, rounded to
the shown precision.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Column:
    """One column: ``kind`` is int, float, text or datetime; ``unit`` is appended to shown numbers."""

    name: str
    kind: str = "text"
    label: str | None = None
    decimals: int | None = None
    unit: str | None = None
    # "small" | "medium" | "large" (Streamlit's), pixels, or None: fit the content (a pinned text column: every
    # row's value, see fit_px; any other: what Streamlit's grid samples)
    width: str | int | None = None
    pinned: bool = False
    help: str | None = None
    # a float shown as a percent (0.0362 as "3.62%": Streamlit's "percent" format, up to ``decimals`` - 2 places);
    # exports keep the fraction, rounded to ``decimals``
    percent: bool = False

    @property
    def title(self) -> str:
        return self.label or self.name

    def printf(self) -> str | None:
        """A printf-style number format for Streamlit's NumberColumn ("localized" for plain integers)."""
        if self.kind == "int":
            return "localized" if not self.unit else f"%d{_unit_suffix(self.unit)}"
        if self.kind == "float" and self.percent:
            return "percent"
        if self.kind == "float":
            return f"%.{self.decimals if self.decimals is not None else 2}f{_unit_suffix(self.unit)}"
        return None

    def text(self, value: float, *, unit: bool = True) -> str:
        """The number as Markdown shows it (LaTeX: ``unit=False``, the unit is in the header once)."""
        if self.kind == "int":  # rounded, as the notes' ",.0f" is (int() cut 6,163,056.6 to 6,163,056: walk Z)
            out = f"{round(float(value)):,}"
        elif self.percent:  # as the grid draws it: trailing zeros dropped ("6.5%")
            places = max((self.decimals if self.decimals is not None else 4) - 2, 0)
            digits = f"{float(value) * 100:,.{places}f}"
            return (digits.rstrip("0").rstrip(".") if "." in digits else digits) + "%"
        else:
            out = f"{float(value):,.{self.decimals if self.decimals is not None else 2}f}"
        return out + (_unit_suffix(self.unit) if unit else "")

    @property
    def header(self) -> str:
        """A LaTeX column header: the label with its unit once, e.g. "bf16 (GiB)"."""
        return f"{self.title} ({self.unit})" if self.unit else self.name


def _unit_suffix(unit: str | None) -> str:
    if not unit:
        return ""
    return unit if unit == "x" else f" {unit}"


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    latex: tuple[str, ...] = field(default_factory=tuple)  # the columns that fit a paper's page
    # columns LaTeX carries too, after its first, where the rows hold more than one value in them (the runs of two
    # targets or engines): one value throughout tells no row from another, and the paper's caption can say it once
    latex_if_varied: tuple[str, ...] = field(default_factory=tuple)
    # text columns LaTeX sets as a paragraph (``p{...}``), so a long note wraps within the page instead of running
    # past its edge on one line
    latex_wrap: tuple[str, ...] = field(default_factory=tuple)
    # the widest the pinned name column is fitted to its content, so the key columns after it stay on screen at
    # 1400 px (walk BX 4: "#10 speculative steps=2 topk=1 ndt=3 (vllm s2)" pushed acceptance past the grid's edge);
    # a longer name is cut in its cell and read whole on hover. None: up to Streamlit's own cap
    pinned_max_px: int | None = None

    def get(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)

    def order(self, available: Sequence[str]) -> list[str]:
        """The described columns first, in the description's order, then any others."""
        named = [c.name for c in self.columns if c.name in available]
        return named + [c for c in available if c not in named]

    def latex_columns(self, available: Sequence[str], varied: Iterable[str] = ()) -> list[str]:
        """The columns a LaTeX export keeps: ``latex``, with those of ``latex_if_varied`` named in ``varied`` (the
        columns whose rows differ) after the first, as the page puts a group's several target models."""
        varied = set(varied)
        wanted = [c for c in self.latex if c in available]
        extra = [c for c in self.latex_if_varied if c in varied and c in available and c not in wanted]
        return wanted[:1] + extra + wanted[1:] if wanted else list(available)


# Advance widths (px) of printable ASCII in the data grid's font (Streamlit's "Source Sans" at 14 px), measured
# in Chromium with a canvas; any other character counts as a full em. They size a pinned name column to its
# longest name: Streamlit's own fit samples only the first ten rows and the last, and drops outliers.
_GLYPH_GROUPS: tuple[tuple[str, float], ...] = (
    (" ", 2.8),
    ("|", 3.37),
    ("i", 3.44),
    ("j", 3.46),
    ("',.:;", 3.49),
    ("l", 3.57),
    ("I", 3.68),
    ("!", 4.05),
    ("f", 4.09),
    ("()[]{}", 4.24),
    ("-", 4.35),
    ("t", 4.73),
    ("r", 4.86),
    ("/\\", 4.9),
    ("*", 5.85),
    ("s", 5.87),
    ("?z", 5.95),
    ('"', 5.96),
    ("x", 6.24),
    ("c", 6.38),
    ("vy", 6.54),
    ("Y", 6.66),
    ("J", 6.71),
    ("L", 6.8),
    ("F", 6.92),
    ("k", 6.93),
    ("e", 6.94),
    ("#$+0123456789<=>^~", 6.96),
    ("_", 7.0),
    ("ag", 7.06),
    ("X", 7.18),
    ("V", 7.21),
    ("E", 7.38),
    ("S", 7.48),
    ("T", 7.5),
    ("Z", 7.55),
    ("`o", 7.59),
    ("A", 7.6),
    ("hu", 7.62),
    ("n", 7.66),
    ("b", 7.74),
    ("dpq", 7.77),
    ("P", 7.92),
    ("R", 7.97),
    ("C", 7.99),
    ("K", 8.11),
    ("B", 8.23),
    ("&", 8.53),
    ("D", 8.61),
    ("G", 8.64),
    ("U", 9.03),
    ("N", 9.06),
    ("H", 9.13),
    ("OQ", 9.3),
    ("w", 10.07),
    ("M", 10.18),
    ("W", 11.0),
    ("%", 11.54),
    ("m", 11.61),
    ("@", 11.86),
)
_GLYPH_PX = {ch: px for chars, px in _GLYPH_GROUPS for ch in chars}
_EM_PX = 14.0
CELL_PADDING_PX = 8  # each side of a grid cell's text
MAX_FIT_PX = 500  # Streamlit's own cap on a column it fits to its content (31.25rem)
# A page's grid at a 1400 px window beside the sidebar: across the page, and in one of two columns. The key
# columns of each table below fit in these without scrolling sideways (tests/test_charts_walk.py checks).
GRID_PX = 940
HALF_GRID_PX = 460
# The grid wraps a text cell's words only in rows taller than 4rem (64 px; Streamlit's DataFrame
# isWrappingAllowed): 72 px holds three lines, so a long "why no speedup" is read whole in its fixed width.
WRAP_ROW_PX = 72


def text_px(text: str) -> float:
    """How wide ``text`` is drawn in the data grid (kerning aside), in px."""
    return sum(_GLYPH_PX.get(ch, _EM_PX) for ch in text)


def fit_px(values: Iterable[object], title: str = "") -> int:
    """A column width (px) that shows every value and the title whole, up to Streamlit's cap on fitted columns.

    Missing values are skipped; the header is bold, so its title counts a tenth wider."""
    texts = [str(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    widest = max([text_px(t) for t in texts] + [text_px(title) * 1.1])
    return min(MAX_FIT_PX, math.ceil(widest) + 2 * CELL_PADDING_PX + 2)  # 2: the grid's rounding and border


def pinned_px(table: Table, values: Iterable[object], title: str = "") -> int:
    """The pinned name column's width: its longest value whole (``fit_px``), up to ``table.pinned_max_px``."""
    fitted = fit_px(values, title)
    return fitted if table.pinned_max_px is None else min(fitted, table.pinned_max_px)


def _ints(*names: str, width: str | None = "medium") -> tuple[Column, ...]:
    return tuple(Column(n, "int", width=width) for n in names)


DRAFT_PARAMS = Table(
    # What a user compares drafts for first, on screen at 1400 px (a 940 px grid beside the sidebar) without
    # scrolling sideways: the name, what is trained and what is stored, and the draft's size over its target's (walk
    # Q: the two ratios were the 14th and 15th columns, past the grid's edge). The other counts and the descriptive
    # columns after them. Counts up to a 1T target's "1,026,408,232,448" whole in 124 px.
    columns=(
        Column("draft", "text", width=None, pinned=True, help="as pasted, with the commit it was read at"),
        Column("trainable", "int", width=124, help="parameters training updates; the rest are in frozen"),
        Column(
            "stored",
            "int",
            width=124,
            help="parameters a checkpoint of it holds (a frozen embedding shared with the target is not stored)",
        ),
        Column(
            "draft_to_target",
            "float",
            label="draft/target",
            decimals=4,
            width=96,
            percent=True,
            help="the draft's parameters outside the embedding over the target's total parameters",
        ),
        Column(
            "draft_to_active",
            "float",
            label="draft/active",
            decimals=4,
            width=96,
            percent=True,
            help="the draft's parameters outside the embedding over the target's parameters one text token passes "
            "through: a MoE target's active parameters, a dense target's total less its vision tower and MTP modules "
            "(for a text-only dense target, the same as draft/target): what one token costs the target. Empty while "
            "the target's architecture is not one the counter knows (target_size_from says why)",
        ),
        *_ints("excluding_embedding", "total", "embedding", "lm_head", "frozen", "active", width=None),
        Column(
            "bf16_GiB", "float", label="bf16", decimals=3, unit="GiB", help="memory of what must be loaded, at bf16"
        ),
        *_ints("train_samples", "train_tokens", width=None),
        Column(
            "role",
            "text",
            width="small",
            help="draft, or target: a target model pasted as a draft, counted as a target (no trainable split, "
            "ratio or lint)",
        ),
        *_ints("vocab", "draft_vocab", width=None),
        *_ints("lint_errors", "lint_warnings", width=None),
        Column("architecture", "text"),
        Column("dialect", "text"),
        Column("revision", "text"),
        Column("target", "text"),
        Column(
            "train_source",
            "text",
            help="where train_samples and train_tokens come from: published (the draft's card); approximate or "
            "unverified, and why, where the registry's figure is (e.g. read from its dataset's name); typed in; or "
            "the kind and source of the training volume attached to the draft that is in use (its latest)",
        ),
        Column(
            "attached_volume",
            "text",
            help="every training volume attached to the draft in the results store (each source's latest: samples, "
            "tokens, kind and source, who and when), whether train_samples uses it or, for a published draft, "
            "keeps the published figure beside it",
        ),
    ),
    # what training updates, holds fixed and a checkpoint keeps, side by side: a draft storing its own embedding
    # copy stores more than it trains (walk AJ: 3,310,383,104 stored, 2,135,977,984 trainable)
    latex=(
        "draft",
        "total",
        "excluding_embedding",
        "embedding",
        "lm_head",
        "trainable",
        "frozen",
        "stored",
        "bf16_GiB",
        "train_samples",
        "train_source",  # walk AN: a typed-in figure must not read as a published one
    ),
    latex_wrap=("train_source",),
)

FINDINGS = Table(
    # severity and code as narrow as their longest values ("max-position-mismatch"), the rest for the message
    columns=(
        Column("draft", "text", width=None, pinned=True),
        Column("severity", "text", width=70),
        Column("code", "text", width=170),
        Column("message", "text", width="large"),
    ),
)

# Accept length, pooled and per-request mean: "accept length (pooled)" and "accept length (mean)" were both cut
# to "accept leng..." in a narrow column. Short distinct labels; the full name is the header's help.
AL_POOLED_HELP = "accept length, pooled: tokens per verify step over all requests together"
AL_MEAN_HELP = "accept length, mean: the mean of each request's own tokens per verify step"

_RUN_METRICS = (
    Column("output_tokens_per_s", "float", label="output tok/s", decimals=1),
    Column("accept_length", "float", label="AL pooled", decimals=2, help=AL_POOLED_HELP),
    Column("accept_length_mean", "float", label="AL mean", decimals=2, help=AL_MEAN_HELP),
    Column("ttft_p50_ms", "float", label="TTFT p50", decimals=1, unit="ms"),
    Column("ttft_p99_ms", "float", label="TTFT p99", decimals=1, unit="ms"),
    Column("tpot_p50_ms", "float", label="TPOT p50", decimals=1, unit="ms"),
    Column("tpot_p99_ms", "float", label="TPOT p99", decimals=1, unit="ms"),
)

RUNS = Table(
    columns=(
        # what a run is and what it measured first, on screen at 1400 px (walk M: tok/s and AL sat past the grid's
        # right edge behind group, target model, status and engine); where and when after them
        Column("id", "int", width="small", pinned=True),
        Column(
            "draft",
            "text",
            width=None,
            help="the draft it was served with: repo id or folder name; MTP: the target's own layers; —: none",
        ),
        Column("engine", "text", width="small"),
        # narrow ints (headers fit): tok/s and AL pooled stay on screen beside a 50-character draft at 1400 px
        Column("batch", "int", width=60, help="the benchmark's concurrency (sequences in flight)"),
        Column("num_steps", "int", width=88),
        Column("topk", "int", width=56),
        *_RUN_METRICS[:3],  # tok/s, AL pooled, AL mean
        Column(
            "speculative_algorithm",
            "text",
            label="speculation",
            help="the algorithm as the server reported it (vLLM reports none: its runs say so); -: a baseline",
        ),
        Column("num_draft_tokens", "int", label="draft tokens"),
        *_RUN_METRICS[3:],
        Column("kind", "text", width="small"),
        Column("group", "text", width=None),  # the user's names: whole
        # a group may hold runs of several target models, each another model's numbers
        Column("model", "text", label="target model", width=None, help="the model the server reported"),
        Column("status", "text", width="small", help="interrupted: stopped before all requests finished"),
        *_ints("requests", "errors", width="small"),
        Column("labels", "text", width="medium"),
        Column("created_at", "datetime", label="started (UTC)", width="medium"),
    ),
    # what tells the runs apart (walk X: the batch-1 chain #7 and tree #9 both read "EAGLE3 & 3", and a batch-4 run
    # read as a batch-1 one but for its numbers): the draft and the setting, then what was measured
    latex=(
        "id",
        "draft",
        "batch",
        "num_steps",
        "topk",
        "output_tokens_per_s",
        "accept_length",
        "speculative_algorithm",
        "num_draft_tokens",
        "ttft_p50_ms",
        "tpot_p50_ms",
        "status",
        "requests",
    ),
    latex_if_varied=("model", "engine"),
)

RUN_COMPARISON = Table(
    columns=(
        # What the user came for, on screen at 1400 px (a 940 px grid beside the sidebar) without scrolling
        # sideways: the run's name as wide as its longest (the grid measures it), then 728 px of key columns.
        Column("run", "text", width=None, pinned=True),
        Column("num_steps", "int", width=84),
        Column("output tok/s", "float", decimals=1, width=96),
        Column(
            "speedup",
            "float",
            decimals=2,
            unit="x",
            width=72,
            help="output tok/s over the baseline's; only against the same model, engine and settings",
        ),
        Column(
            "baseline",
            "text",
            width=72,
            help="the run the speedup is against: each run's own baseline of the same model, engine and settings "
            '("itself" for a baseline), or the one picked',
        ),
        Column("speedup_note", "text", label="why no speedup", width=244),
        Column("accept length (pooled)", "float", label="AL pooled", decimals=2, width=84, help=AL_POOLED_HELP),
        Column("accept length (mean)", "float", label="AL mean", decimals=2, width=76, help=AL_MEAN_HELP),
        Column("TTFT p50 ms", "float", decimals=1, width="small"),
        Column("TTFT p99 ms", "float", decimals=1, width="small"),
        Column("TPOT p50 ms", "float", decimals=1, width="small"),
        Column("TPOT p99 ms", "float", decimals=1, width="small"),
        *_ints("requests", "errors", width="small"),
        Column("kind", "text", width="small"),
        Column("status", "text", width="small"),
        Column("model", "text", width="medium"),
    ),
)

REQUESTS = Table(
    # the timings a user reads first, on screen at 1400 px (a 940 px grid beside the sidebar); the start time
    # and the error text last (requests_to_frame leaves out an error column with nothing in it)
    columns=(
        Column("index", "int", width=56, pinned=True),
        Column("ok", "text", width=40),
        Column("ttft_ms", "float", label="TTFT", decimals=1, unit="ms", width=84),
        Column("tpot_ms", "float", label="TPOT", decimals=1, unit="ms", width=84),
        Column("e2e_ms", "float", label="end to end", decimals=1, unit="ms", width=96),
        Column("output_tokens", "int", label="output tokens", width=96),
        Column("accept_length", "float", label="accept length", decimals=2, width=96),
        Column("mean_chunk_gap_ms", "float", label="mean chunk gap", decimals=1, unit="ms", width=112),
        Column("prompt_tokens", "int", label="prompt tokens", width=96),
        *_ints("n_chunks", "spec_verify_ct", width="small"),
        Column("started_at", "datetime", label="started (UTC)", width="medium"),
        Column("error", "text", width="medium"),
    ),
)

PLAN = Table(
    # the plan's options, ranked: what each gives (tok/s, AL) and costs (samples, GPU-hours, TB), with bands. What
    # decides the ranking first (walk M: at 1400 px "samples ne..." was cut and the gain sat past the grid's edge).
    # Every export carries every column, LaTeX too: the tok/s at each batch is the plan's answer, and the note says
    # which figures are measured (which run) and which predicted (from what); walk X's LaTeX kept seven columns
    columns=(
        Column("rank", "int", width="small", pinned=True),
        Column("option", "text", width="large", pinned=True),
        Column("gain_tok_s", "float", label="tok/s gained", decimals=1, width=104),
        Column("per_gpu_hour", "float", label="gain per GPU-h", decimals=3, width=116, help="empty: free"),
        Column("al", "float", label="AL", decimals=2, width="small", help="acceptance length at the plan's steps"),
        Column("samples_needed", "int", label="samples needed", width=124),
        Column("gpu_hours", "float", label="GPU-hours", decimals=1, width=96),  # 0.4 h is not "0" (walk BA)
        Column("storage_tb", "float", label="offline storage", decimals=1, unit="TB", width=128),
        Column("tok_s_bs1", "float", label="tok/s bs1", decimals=1, width=84),
        Column("tok_s_bs8", "float", label="tok/s bs8", decimals=1, width=84),
        Column("tok_s_bs64", "float", label="tok/s bs64", decimals=1, width=92),
        # which tok/s columns are measured (which runs) and which predicted (walk BS 8)
        Column("tok_s_basis", "text", label="tok/s measured?", width="medium"),
        Column("note", "text", width="large"),
        Column("al_low", "float", label="AL low", decimals=2, width="small"),
        Column("al_high", "float", label="AL high", decimals=2, width="small"),
        Column("samples_low", "int", label="samples low", width=104),
        Column("samples_high", "int", label="samples high", width=108, help="empty: unbounded"),
        Column("gpu_hours_low", "float", label="GPU-h low", decimals=0, width=88),
        Column("gpu_hours_high", "float", label="GPU-h high", decimals=0, width=92, help="empty: unbounded"),
        Column("kind", "text", width="small"),
    ),
    latex_wrap=("note",),
)


def plan_table(batches: Sequence[int]) -> Table:
    """``PLAN`` with a tok/s column for each of ``batches`` (a plan's: 1, 8, 64, the batch it ranks at, e.g. a
    measured 16, and any other an option gives a tok/s at: ``plan_table_of``), in batch order where PLAN's three
    stand."""
    tok = [
        PLAN.get(f"tok_s_bs{b}")
        or Column(f"tok_s_bs{b}", "float", label=f"tok/s bs{b}", decimals=1, width=7 * len(f"tok/s bs{b}") + 22)
        for b in sorted(batches)
    ]
    columns: list[Column] = []
    for c in PLAN.columns:
        if c.name.startswith("tok_s_bs"):
            columns += [t for t in tok if t is not None]
            tok = []
        else:
            columns.append(c)
    return Table(columns=tuple(columns), latex=PLAN.latex, latex_wrap=PLAN.latex_wrap)


def plan_table_of(columns: Sequence[str]) -> Table:
    """``plan_table`` for the columns of a plan's frame (``Plan.frame``): a tok/s column for every batch it gives a
    tok/s at: 1, 8, 64, the ranking batch, and a batch only a measured tree gives one at (walk X's batch 4 was drawn
    raw, "tok_s_bs4", and exported unrounded, 455.3902094482915). The page orders the frame by it
    (``Table.order``), and every export carries that frame."""
    return plan_table([int(c.removeprefix("tok_s_bs")) for c in columns if re.fullmatch(r"tok_s_bs\d+", c)])


LIVE_ACCEPTANCE = Table(
    # Acceptance vs data > Learning curve, "Live acceptance length (stored runs)" (curves.live_frame), in one
    # of two columns: the run, then the acceptance lengths to compare (the log's peak, where eval fell after it,
    # before its last point), then the setting (the widest).
    columns=(
        Column("run", "text", width=None, pinned=True),
        Column(
            "accept_length",
            "float",
            label="live AL",
            decimals=2,
            width=64,
            help="measured on the served prompts: the pooled accept length (the per-request mean where no pooled "
            "one was recorded)",
        ),
        Column(
            "tau_sim_peak",
            "float",
            decimals=2,
            width=112,  # "tau_sim_last" whole (walk BS 6: cut to "tau_sim_la" at 102)
            help="the log's eval peak simulated at the run's own num_steps: the checkpoint to serve where eval fell "
            "past noise after it (the caption names its step); shown only then",
        ),
        Column(
            "tau_sim_last",
            "float",
            decimals=2,
            width=112,  # "tau_sim_last" whole (walk BS 6: cut to "tau_sim_la" at 102)
            help="the log's last point simulated at the run's own num_steps (the caption names its step)",
        ),
        Column("num_steps", "int", label="steps", width=56),
        # over 1, a tree: no tau_sim (a chain's), off the curve; its setting says "tree", so the page leaves it out
        Column("topk", "int", width=48, help="draft tokens per position: over 1, a tree"),
        Column("setting_key", "text", label="setting", width=None),
    ),
    pinned_max_px=HALF_GRID_PX - 176,  # the run, then live AL (64) and tau_sim_last (112) in a half grid
)

SERVING = Table(
    # Compare > "Will it serve?" (serving.table_rows): the engine, whether it starts, the blocks it feeds the
    # draft and whether they are the trained ones, then what to change; where ids come from and the cited
    # engine lines after them. A long "starts?" reason is the headline above the grid too.
    columns=(
        Column("engine", "text", width=None, pinned=True),
        Column("starts?", "text", width=130, help="yes; or no / unsupported, and why"),
        Column("blocks captured", "text", width=190, help="the target's hidden states the engine feeds the draft"),
        Column(
            "same as trained?", "text", label="as trained?", width=90, help="same blocks as the draft was trained on"
        ),
        Column("what to change", "text", width="medium"),
        Column("ids read from", "text", width="small"),
        Column("source", "text", width="large", help="the engine's own lines each row is read from"),
    ),
)
