"""Audit offline hidden-state dumps before a draft is trained on them.

A dump captured at the wrong target layers trains a draft that serves "fine" but accepts almost
nothing (one wiring bug cut acceptance from 47% to 19%). Nothing in the trainers checks this, so
we read a seeded random sample of files, one at a time, and test shapes, dtypes, NaN/inf, loss
masks and the wiring of the three aux chunks (low, mid, high).

Files are opened with ``torch.load(weights_only=True)`` or safetensors only. A file that would
need arbitrary unpickling is refused and reported, never loaded another way.
"""

from __future__ import annotations

import gzip
import io
import json
import pickle
import random
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from comparelib import limits, paths
from comparelib.errors import ConfigError, DataError, InputError, Severity
from comparelib.paths import member, resolve_user_path
from comparelib.values import clipped

if TYPE_CHECKING:  # torch is heavy; imported lazily where tensors are touched
    import torch

    from comparelib.models.comparison import Entry

__all__ = [
    "FORMATS",
    "DumpFinding",
    "DumpPlan",
    "DumpSample",
    "DumpReport",
    "FileCheck",
    "audit_dumps",
    "check_file",
    "plan_dumps",
    "report_dumps",
    "discover_dump_files",
    "draft_config_fields",
    "draft_config_of",
    "iter_samples",
    "load_embedding",
    "natural_key",
    "nonfinite",
    "load_draft_config",
    "read_draft_config",
]

DumpFormat = Literal["specforge", "eagle12", "modelopt", "speculators"]
# A file row's status: read files carry their worst finding's severity (info stays "ok"); the last two were not read.
RowStatus = Literal["ok", "warning", "error", "refused", "unreadable"]
_NOT_READ = ("refused", "unreadable")
# findings that stop a file's checks before its lengths and mask are measured: such a file is in no summary figure
_SHAPE_FAILURES = frozenset({"missing_key", "not_tensor", "bad_shape", "length_mismatch", "empty"})
Family = Literal["ckpt", "modelopt", "speculators"]  # what a file name tells: ckpt is SpecForge or EAGLE-1/2

# Required keys per dump layout (data_formats.md 1.1-1.4).
FORMATS: dict[DumpFormat, tuple[str, ...]] = {
    "specforge": ("input_ids", "loss_mask", "hidden_state", "aux_hidden_state"),
    "eagle12": ("input_ids", "hidden_state", "loss_mask"),
    "modelopt": ("input_ids", "hidden_states", "aux_hidden_states"),
    "speculators": ("token_ids", "hidden_states"),
}
FORMAT_LABELS: dict[DumpFormat, str] = {
    "specforge": "SpecForge offline (rows_*/data_*.ckpt)",
    "eagle12": "EAGLE-1/2 ge_data (<n>/data_*.ckpt)",
    "modelopt": "ModelOpt offline (<conversation_id>.pt)",
    "speculators": "speculators offline (hs_*.safetensors)",
}

_CKPT_RE = re.compile(r"^data_\d+\.ckpt(\.gz)?$")
_HS_RE = re.compile(r"^hs_\d+\.safetensors$")
_ROWS_RE = re.compile(r"^rows_\d+-\d+$")
# .pt files that live next to dumps but are not samples.
_NOT_SAMPLES = {"vocab_mapping.pt", "token_freq.pt", "d2t.pt", "t2d.pt", "cache.pt", "training_args.pt"}

# Safe-unpickler complaints that mean "this file holds Python objects" (torch/_weights_only_unpickler.py);
# anything else from it (e.g. "Unsupported operand") is a corrupt or foreign file.
_NEEDS_OBJECTS = re.compile(r"GLOBAL|Can only (?:create new object|build)|is blocked|allowlisted")

_STATE_DTYPES = ("bfloat16", "float16", "float32")
# Trainers that set the last position of each sample's loss mask to 0 at load time, whatever it held, so a
# last 1 is masked but never supervised (specforge 0.2.0 algorithms/eagle3/data.py normalize_offline_sample and
# data/preprocessing.py OfflineEagle3Dataset.process_data; SafeAILab/EAGLE eagle/train/main.py CustomDataset).
_ZEROES_LAST: dict[DumpFormat, str] = {"specforge": "SpecForge", "eagle12": "the EAGLE-1/2 trainer"}
_SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}

# Wiring thresholds. Real layer outputs never repeat exactly; the bugs they catch repeat exactly.
_IDENTICAL_REL = 0.01  # ||a-b|| / max(||a||, ||b||) below this: the same layer twice
_CONTEXT_FREE_REL = 1e-3  # equal token ids giving (almost) equal vectors: a lookup table
_EMBEDDING_COS = 0.99  # mean cosine to embedding[input_ids] above this: the embedding itself
_NEAR_EMBEDDING_COS = 0.9
_MAX_POSITIONS = 1024  # positions sampled per file for norms and cosines
_MAX_PAIRS = 256  # repeated-token position pairs per file for the context-free test
_DRIFT_RATIO = 1.5  # --all: a layer's mean per-token L2 norm this far from its median over files is a jump
LAYERS = ("low", "mid", "high", "final")
# The two norms a report holds are different quantities, ~sqrt(hidden) apart (0.02 against 1.9 at 8192): each
# is shown with what it is. The summary carries these too, so its JSON (and the page) say it.
AUX_NORMS_LABEL = "RMS per element (median over tokens)"
LAYER_NORM_LABEL = "L2 norm per token (mean over tokens)"
NORM_UNITS = {
    "aux_norms": f"{AUX_NORMS_LABEL} of the low, mid and high aux chunks",
    "mean_aux_norms": f"{AUX_NORMS_LABEL} of the low, mid and high aux chunks, mean over files",
    "norm": f"{LAYER_NORM_LABEL} of one layer in one file (--all)",
    "layer_drift": f"{LAYER_NORM_LABEL} of each layer: its range and median over files (--all)",
}


@dataclass
class DumpFinding:
    """One thing worth telling the user about a dump (or one file of it)."""

    severity: Severity
    code: str
    message: str
    file: str | None = None


@dataclass
class DumpReport:
    """What ``audit_dumps`` found; pages show ``findings``, ``files`` and ``summary``."""

    format: DumpFormat
    folder: str
    files_total: int
    files_read: int
    findings: list[DumpFinding] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    layer_stats: list[dict[str, Any]] = field(default_factory=list)  # --all: per file and layer
    runner: dict[str, Any] | None = None  # Ray path: how the pipeline ran

    @property
    def verdict(self) -> str:
        return str(self.summary.get("verdict", "ok"))

    def headline(self) -> str:
        """The verdict first, then what it rests on: the CLI's last line and the page's banner, so they agree."""
        n = {sev: sum(1 for f in self.findings if f.severity == sev) for sev in ("error", "warning", "info")}

        def count(k: int, word: str) -> str:
            return f"{k} {word}{'s' if k != 1 else ''}"

        if n["error"]:
            what = count(n["error"], "error") + (f", {count(n['warning'], 'warning')}" if n["warning"] else "")
        elif n["warning"]:
            what = count(n["warning"], "warning") + ", no errors"
        else:
            what = "no problems found"
        notes = f" ({count(n['info'], 'note')})" if n["info"] else ""
        return f"verdict: {self.verdict} - {what}{notes}"

    def codes(self, severity: Severity | None = None) -> set[str]:
        return {f.code for f in self.findings if severity is None or f.severity == severity}

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    def finding_lines(self) -> list[str]:
        """Each finding as one line of text, worst first: the CLI prints them and the page shows them whole (a
        table cell cut an aux_width fix off at 1400 px)."""
        return [f"[{f.severity}] {f.code}{f' ({f.file})' if f.file else ''}: {f.message}" for f in self.findings]

    def finding_rows(self) -> list[dict[str, str]]:
        """The findings as table rows (severity, code, message, file; file empty for folder-wide ones)."""
        return [
            {"severity": f.severity, "code": f.code, "message": f.message, "file": f.file or ""} for f in self.findings
        ]


# --------------------------------------------------------------------------- discovery

_DIGITS = re.compile(r"(\d+)", re.ASCII)


def natural_key(name: str | Path) -> tuple[Any, ...]:
    """Sort key that compares runs of digits as numbers: hs_2.pt before hs_10.pt, rows_2000-4000 before
    rows_10000-12000. Every list of dump files the audit shows is in this order (text order put hs_10 first)."""
    text = name.as_posix() if isinstance(name, Path) else name
    parts = _DIGITS.split(text)  # text at even indices, digits at odd ones: equal positions compare alike
    # the runs as one tuple, then the text: "hs_01" and "hs_1" stay apart, and names with more digit runs
    # never compare a number against a word
    return (tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), text)


def _family(path: Path) -> Family | None:
    """Dump family from the file name alone: 'ckpt' (SpecForge or EAGLE-1/2), 'modelopt', 'speculators'."""
    name = path.name
    if _HS_RE.match(name):
        return "speculators"
    if _CKPT_RE.match(name):
        return "ckpt"
    if name.endswith(".pt") and name not in _NOT_SAMPLES and path.parent.name != "vocab_mapping":
        return "modelopt"
    return None


def _name_format(path: Path, family: Family) -> DumpFormat:
    if family == "ckpt":
        return "eagle12" if path.parent.name.isdigit() and not _ROWS_RE.match(path.parent.name) else "specforge"
    return family


def discover_dump_files(folder: str | Path) -> dict[Family, list[Path]]:
    """Dump files under ``folder`` grouped by family, each list sorted (stable sampling)."""
    root = resolve_user_path(folder, "dump folder")
    if not root.exists():
        raise DataError(f"dump folder not found: {root}. Give the folder that holds the dump files.")
    groups: dict[Family, list[Path]] = {}
    if root.is_file():
        fam = _family(root)
        if fam is None:
            raise DataError(
                f"{root.name} is not a hidden-state dump file (expected data_<i>.ckpt[.gz], <id>.pt or "
                "hs_<i>.safetensors)."
            )
        return {fam: [root]}
    for dirpath, dirnames, filenames in paths.walk(root):  # never into the uploads folder
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        base = Path(dirpath)
        for name in filenames:
            path = base / name
            fam = _family(path)
            if fam is not None:
                groups.setdefault(fam, []).append(member(path, "dump file"))
    for files in groups.values():
        files.sort(key=natural_key)
    return groups


# --------------------------------------------------------------------------- config / embedding


def draft_config_fields(config: Mapping[str, Any] | None) -> dict[str, Any]:
    """Target hidden size, target vocab and aux layer ids from a draft config, in any dialect."""
    out: dict[str, Any] = {
        "target_hidden_size": None,
        "vocab_size": None,
        "aux_layer_ids": None,
        "target_hidden_size_key": None,  # the config field the hidden size was read from
        "vocab_size_key": None,
    }
    if not config:
        return out
    inner = config.get("transformer_layer_config")
    inner = inner if isinstance(inner, Mapping) else {}
    for key, sources in (
        (
            "target_hidden_size",
            (
                ("target_hidden_size", config.get("target_hidden_size")),
                ("hidden_size", config.get("hidden_size")),
                ("transformer_layer_config.hidden_size", inner.get("hidden_size")),
            ),
        ),
        (
            "vocab_size",
            (
                ("vocab_size", config.get("vocab_size")),
                ("transformer_layer_config.vocab_size", inner.get("vocab_size")),
            ),
        ),
    ):
        for field_name, value in sources:
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                out[key], out[f"{key}_key"] = value, field_name
                break
    eagle = config.get("eagle_config")
    ids = config.get("eagle_aux_hidden_state_layer_ids")
    if ids is None and isinstance(eagle, Mapping):
        ids = eagle.get("eagle_aux_hidden_state_layer_ids")
    if isinstance(ids, (list, tuple)) and all(isinstance(i, int) for i in ids):
        out["aux_layer_ids"] = list(ids)
    return out


def load_embedding(path: str | Path) -> torch.Tensor:
    """The target's token-embedding matrix [V, H] from a safetensors file or a folder of shards.

    Only the one tensor is read (safetensors is lazy), so a multi-GB checkpoint is fine.
    """
    from safetensors import safe_open

    p = resolve_user_path(path, "embedding file")
    if not p.exists():
        raise InputError(f"embedding file not found: {p}. Give a .safetensors file or a folder holding them.")
    candidates = sorted(member(x, "weights file") for x in p.glob("*.safetensors")) if p.is_dir() else [p]
    if not candidates:
        raise DataError(f"no .safetensors files in {p}; point --embedding at the target checkpoint.")
    seen: list[str] = []
    for file in candidates:
        try:
            with safe_open(str(file), framework="pt") as f:
                keys = list(f.keys())
                hits = sorted((k for k in keys if k.endswith("embed_tokens.weight")), key=lambda k: (len(k), k))
                if hits:
                    tensor = f.get_tensor(hits[0])
                    if tensor.ndim != 2:
                        raise DataError(
                            f"{hits[0]} in {file.name} has shape {list(tensor.shape)}, expected [vocab, hidden]."
                        )
                    return tensor
                seen.extend(keys[:5])
        except DataError:
            raise
        except Exception as exc:  # noqa: BLE001 - safetensors raises several types for bad headers
            raise DataError(f"cannot read {file.name} as safetensors: {exc}") from exc
    sample = ", ".join(seen[:5]) or "none"
    raise DataError(
        f"no tensor named '*embed_tokens.weight' in {p} (first names: {sample}); give the target model's "
        "checkpoint (the shard that holds model.embed_tokens.weight)."
    )


# --------------------------------------------------------------------------- loading


class _Refused(Exception):
    """Internal: the file would need arbitrary unpickling."""


def _unreadable(exc: Exception, limit: int) -> str:
    """Why a file could not be loaded, in words: an empty file raises an exception with no message at all."""
    detail = " ".join(str(exc).split())[:limit]
    return detail or f"empty or truncated ({type(exc).__name__})"


def _load_file(path: Path, family: Family, *, mmap: bool = False) -> dict[str, Any]:
    """One dump file as a dict, safely; raises _Refused or another exception for bad files.

    ``mmap``: tensors of an uncompressed torch.save file stay in the page cache until touched (a reader
    that copies them once, e.g. into page-locked memory, then reads the file once, on its own thread).
    """
    import torch

    if family == "speculators":
        from safetensors import safe_open

        with safe_open(str(path), framework="pt") as f:
            return {k: f.get_tensor(k) for k in f.keys()}
    try:
        if path.name.endswith(".gz"):
            with limits.DecompressionGuard(gzip.open(path, "rb"), path.name, path.stat().st_size) as fh:
                buf = io.BytesIO(fh.read())
            obj = torch.load(buf, map_location="cpu", weights_only=True)
        elif mmap:
            try:
                obj = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
            except RuntimeError:  # the legacy (non-zip) format cannot be mapped
                obj = torch.load(path, map_location="cpu", weights_only=True)
        else:
            obj = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        detail = str(exc).rsplit("WeightsUnpickler error:", 1)[-1]
        if _NEEDS_OBJECTS.search(detail):
            raise _Refused(detail.strip()) from None
        detail = detail.split("Check the documentation")[0]
        raise ValueError(f"corrupt, or not a torch.save file ({' '.join(detail.split())})") from None
    if not isinstance(obj, dict):
        raise ValueError(f"holds a {type(obj).__name__}, not a dict of tensors")
    return obj


# --------------------------------------------------------------------------- per-file checks


def _is_tensor(x: Any) -> bool:
    import torch

    return isinstance(x, torch.Tensor)


def _dtype_name(t: Any) -> str:
    return str(t.dtype).replace("torch.", "")


def _flat_1d(t: torch.Tensor) -> torch.Tensor | None:
    """[L] or [1, L] -> [L]; anything else -> None."""
    if t.ndim == 1:
        return t
    if t.ndim == 2 and t.shape[0] == 1:
        return t[0]
    return None


def _states_2d(t: torch.Tensor) -> torch.Tensor | None:
    """[L, D] or [1, L, D] -> [L, D]; anything else -> None."""
    if t.ndim == 2:
        return t
    if t.ndim == 3 and t.shape[0] == 1:
        return t[0]
    return None


def _detect_by_keys(keys: set[str]) -> DumpFormat | None:
    if "aux_hidden_state" in keys:
        return "specforge"
    if "aux_hidden_states" in keys:
        return "modelopt"
    if "token_ids" in keys and "hidden_states" in keys:
        return "speculators"
    if "hidden_state" in keys:
        return "eagle12"
    return None


def _rel_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    den = max(float(a.norm()), float(b.norm()), 1e-12)
    return float((a - b).norm()) / den


def _mean_cos(a: torch.Tensor, b: torch.Tensor) -> float:
    import torch

    return float(torch.nn.functional.cosine_similarity(a, b, dim=-1, eps=1e-12).mean())


def _median_rms(x: torch.Tensor) -> float:
    """Median over tokens of per-token RMS: robust to the few 'massive activation' tokens."""
    return float(x.pow(2).mean(dim=-1).sqrt().median())


def _layer_count_message(n: int, hidden: int | None) -> str:
    """A speculators file with the wrong number of layers per token: which one is missing (or extra).

    The file stores no layer ids, so a missing layer cannot be named for sure; the likely one is.
    """
    shape = f"[L, {n}, {hidden if hidden is not None else 'H'}]"
    head = (
        f"hidden_states is {shape}: {n} captured layer{'s' if n != 1 else ''} per token, where speculators "
        "writes 4 (the three aux layers, then the final layer boundary N, which the trainer reads as the "
        "target's last hidden state)."
    )
    fix = "Re-capture with eagle_aux_hidden_state_layer_ids of four ids, e.g. [2, N//2, N-3, N]."
    if n == 3:
        return (
            f"{head} One layer is missing, most likely the final one (the capture listed only the three aux "
            "ids): the trainer would then take the high aux layer as the final state and see only two aux "
            f"layers. {fix}"
        )
    if n < 3:
        return f"{head} {4 - n} layers are missing: too few for EAGLE-3's three aux layers plus the final one. {fix}"
    return f"{head} {n - 4} extra layer{'s' if n - 4 != 1 else ''}: the trainer would read {n - 1} aux layers. {fix}"


def _layers(k: int) -> str:
    return {1: "one layer", 2: "two layers", 3: "three layers", 4: "four layers"}.get(k, f"{k} layers")


def _aux_width_message(width: int, hidden: int | None, target: int | None, ids: list[int] | None) -> str:
    """Why an aux hidden state is not 3 x the hidden size wide, from the numbers alone, and what to do.

    ``hidden`` is the file's own final hidden state width, ``target`` the draft's target hidden size (either
    may be missing, not both). Only what the widths imply is said: a width one layer wide cannot tell which
    layer it holds, and a width that fits another model's layers cannot tell which model.
    """
    expect = target if target is not None else hidden
    assert expect is not None
    where = "the target hidden size" if target is not None else "this file's final hidden state width"
    head = (
        f"aux hidden state is {width} wide, but an EAGLE-3 draft reads 3 x {where} {expect} = {3 * expect} "
        "(three target layers, low, mid and high, concatenated)."
    )
    if ids is not None:
        recapture = f"the three aux layer ids your draft's config names ({ids})"
    else:
        recapture = (
            "the three aux layer ids your draft's config names (eagle_aux_hidden_state_layer_ids in its "
            "config.json; give the audit that config to have them named here)"
        )
    own = hidden if hidden is not None and hidden != expect else None  # the file's states, from another target
    if width % expect == 0:
        k = width // expect
        if k == 1:
            why = (
                f"{width} is one layer's width: one hidden state was stored where three belong (the embedding, "
                "one aux layer or the final state; the width alone cannot tell which)."
            )
        elif k == 2:
            why = f"{width} is two layers' width: two layers were captured instead of three."
        else:
            why = f"{width} is {_layers(k)}' width: {k - 3} more than the three EAGLE-3 reads."
        return f"{head} {why} Re-generate this file with {recapture}."
    if own is not None and width % own == 0:
        k = width // own
        why = (
            f"{width} is {_layers(k)} of {own}, this file's own final hidden state width: the file was "
            f"captured from a model with hidden size {own}, not the draft's target ({expect})."
        )
        if k != 3:
            why += f" It also holds {_layers(k)}, not three."
        return f"{head} {why} Re-capture it from the draft's target with {recapture}, or remove it."
    if width % 3 == 0:
        why = (
            f"{width} is not a whole number of {expect}-wide layers; it is 3 x {width // 3}, the width of three "
            f"layers of a model with hidden size {width // 3}: captured from another model than the draft's target?"
        )
        fix = f"Check which model wrote it; re-capture it from the draft's target with {recapture}, or remove it."
        return f"{head} {why} {fix}"
    why = f"{width} is not a whole number of {expect}-wide layers, nor three equal layers of another width."
    fix = f"The file does not hold whole target layers: check how it was written, and re-generate it with {recapture}."
    return f"{head} {why} {fix}"


def _row(name: str, status: RowStatus, fmt: DumpFormat | None, error: str | None = None) -> dict[str, Any]:
    """A per-file row; every row has the same keys so a page can tabulate them directly."""
    return {
        "name": name,
        "status": status,
        "format": fmt,
        "seq_len": None,
        "hidden": None,
        "dtype": None,
        "loss_mask_share": None,  # share of positions the loss mask marks (masked_tokens / seq_len)
        "supervised_tokens": None,  # masked positions the trainer supervises (its last zeroed, _ZEROES_LAST)
        "masked_tokens": None,  # positions the loss mask marks, as stored
        "nan": None,
        "inf": None,
        "aux_norms": None,  # median per-token RMS of the low, mid, high chunks
        "aux_pairwise_cos": None,  # mean cosine (low,mid), (low,high), (mid,high)
        "aux_embedding_cos": None,  # mean cosine of each chunk to embedding[input_ids]
        "high_final_cos": None,  # mean cosine of the high chunk to the final hidden state
        "error": error,  # why it was not read, or its first error finding
    }


class _FileAudit:
    """Checks for one loaded file; appends raw findings and fills the per-file row."""

    def __init__(self, name: str, fmt: DumpFormat, ctx: _Context) -> None:
        self.name = name
        self.fmt = fmt
        self.ctx = ctx
        self.findings: list[DumpFinding] = []
        self.row = _row(name, "ok", fmt)
        self.row.update(nan=0, inf=0)
        self.finite_rows: torch.Tensor | None = None  # positions where every state value is finite
        self.layers: list[dict[str, Any]] = []
        self.layers_per_token: int | None = None  # speculators: hidden_states.shape[1] (4 when right)

    def add(self, severity: Severity, code: str, message: str) -> None:
        self.findings.append(DumpFinding(severity, code, message, self.name))

    # The checks run in order; a structural failure stops the ones that depend on it.
    def run(self, data: dict[str, Any]) -> None:
        import torch

        keys = set(data)
        missing = [k for k in FORMATS[self.fmt] if k not in data]
        if missing:
            self.add(
                "error",
                "missing_key",
                f"missing {', '.join(missing)} ({FORMAT_LABELS[self.fmt]} files have {', '.join(FORMATS[self.fmt])}); "
                f"found {', '.join(sorted(keys)) or 'nothing'}.",
            )
            return
        not_tensor = [k for k in FORMATS[self.fmt] if not _is_tensor(data[k])]
        if not_tensor:
            self.add("error", "not_tensor", f"{', '.join(not_tensor)} should be tensors.")
            return
        if self.fmt == "modelopt":
            cid = data.get("conversation_id")
            if cid is None:
                self.add(
                    "warning",
                    "conversation_id",
                    "no conversation_id: the ModelOpt trainer matches .pt files to JSONL rows by it.",
                )
            elif str(cid) != Path(self.name).name[: -len(".pt")]:
                self.add(
                    "warning",
                    "conversation_id",
                    f"conversation_id {clipped(str(cid), 40)!r} does not match the file name; the trainer will not "
                    "pair this file with its conversation.",
                )

        ids, mask, final, aux = self._normalise(data)
        if ids is None:
            return
        seq_len = int(ids.shape[0])
        self.row["seq_len"] = seq_len
        lengths = {"ids": seq_len}
        if mask is not None:
            lengths["loss_mask"] = int(mask.shape[0])
        if final is not None:
            lengths["final hidden"] = int(final.shape[0])
        if aux is not None:
            lengths["aux"] = int(aux.shape[0])
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{k} {v}" for k, v in lengths.items())
            self.add(
                "error", "length_mismatch", f"sequence lengths differ across keys ({shown}); rows are misaligned."
            )
            return
        if seq_len == 0:
            self.add("error", "empty", "zero-length sample.")
            return

        self._check_ids(ids)
        if mask is not None:
            self._check_mask(mask)
        states = [t for t in (final, aux) if t is not None]
        self.row["dtype"] = _dtype_name(states[0]) if states else None
        for label, t in (("final hidden state", final), ("aux hidden state", aux)):
            if t is None:
                continue
            if _dtype_name(t) not in _STATE_DTYPES:
                self.add("warning", "dtype", f"{label} is {_dtype_name(t)}; expected bfloat16, float16 or float32.")
            nan = inf = 0
            if t.is_floating_point():
                rows_ok = torch.isfinite(t).all(dim=1)  # one pass; counts only when something is off
                self.finite_rows = rows_ok if self.finite_rows is None else self.finite_rows & rows_ok
                if not bool(rows_ok.all()):
                    nan, inf = int(torch.isnan(t).sum()), int(torch.isinf(t).sum())
            self.row["nan"] += nan
            self.row["inf"] += inf
            if nan:
                self.add(
                    "error",
                    "nan",
                    f"{nan} NaN value{'s' if nan != 1 else ''} in the {label}; this sample would poison training.",
                )
            if inf:
                self.add("error", "inf", f"{inf} inf value{'s' if inf != 1 else ''} in the {label}.")

        hidden, wiring_ok = self._check_widths(final, aux)
        self.row["hidden"] = hidden
        if self.ctx.full:
            self._layer_stats(final, aux if wiring_ok else None, hidden)
        if aux is not None and hidden is not None and wiring_ok:
            self._check_wiring(ids, final, aux, hidden)

    def _layer_stats(self, final: torch.Tensor | None, aux: torch.Tensor | None, hidden: int | None) -> None:
        """Full scan: mean, std and mean per-token L2 norm of every captured layer, over finite positions."""
        import torch

        parts: list[tuple[str, torch.Tensor]] = []
        if aux is not None and hidden:
            parts += [(LAYERS[k], aux[:, k * hidden : (k + 1) * hidden]) for k in range(3)]
        if final is not None:
            parts.append(("final", final))
        for layer, t in parts:
            if not t.is_floating_point():
                continue
            x = t[self.finite_rows] if self.finite_rows is not None else t
            if x.shape[0] == 0:
                continue
            x = x.double()
            self.layers.append(
                {
                    "file": self.name,
                    "layer": layer,
                    "tokens": int(x.shape[0]),
                    "mean": float(x.mean()),
                    "std": float(x.std()) if x.numel() > 1 else 0.0,
                    "norm": float(torch.linalg.vector_norm(x, dim=1).mean()),
                }
            )

    def _normalise(self, data: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        ids_key = "token_ids" if self.fmt == "speculators" else "input_ids"
        ids = _flat_1d(data[ids_key])
        if ids is None:
            self.add("error", "bad_shape", f"{ids_key} has shape {list(data[ids_key].shape)}, expected [L].")
            return None, None, None, None
        mask = None
        if "loss_mask" in data and _is_tensor(data["loss_mask"]):
            mask = _flat_1d(data["loss_mask"])
            if mask is None:
                self.add("error", "bad_shape", f"loss_mask has shape {list(data['loss_mask'].shape)}, expected [L].")
                return None, None, None, None
        final = aux = None
        if self.fmt == "speculators":
            hs = data["hidden_states"]
            if hs.ndim != 3 or hs.shape[1] < 2:
                self.add(
                    "error",
                    "bad_shape",
                    f"hidden_states has shape {list(hs.shape)}, expected [L, 4, H] (3 aux layers + final).",
                )
                return None, None, None, None
            self.layers_per_token = int(hs.shape[1])
            final = hs[:, -1]
            aux = hs[:, :-1].reshape(hs.shape[0], -1)
            return ids, mask, final, aux
        final_key = "hidden_states" if self.fmt == "modelopt" else "hidden_state"
        aux_key = {"specforge": "aux_hidden_state", "modelopt": "aux_hidden_states"}.get(self.fmt)
        canonical_3d = self.fmt == "specforge"
        for key in (final_key, aux_key):
            if key is None:
                continue
            t = data[key]
            t2 = _states_2d(t)
            if t2 is None:
                want = "[1, L, D]" if canonical_3d else "[L, D]"
                self.add("error", "bad_shape", f"{key} has shape {list(t.shape)}, expected {want}.")
                return None, None, None, None
            if canonical_3d and t.ndim == 2:
                self.add("warning", "layout", f"{key} is [L, D]; SpecForge writes [1, L, D] and batches on dim 0.")
            if key == final_key:
                final = t2
            else:
                aux = t2
        return ids, mask, final, aux

    def _check_ids(self, ids: torch.Tensor) -> None:
        dt = _dtype_name(ids)
        if ids.is_floating_point() or ids.dtype.is_complex or dt == "bool":
            self.add("error", "dtype", f"token ids are {dt}; they must be integers (int64).")
            return
        if dt != "int64":
            self.add("warning", "dtype", f"token ids are {dt}; trainers expect int64 (torch.long).")
        lo, hi = int(ids.min()), int(ids.max())
        vocab = self.ctx.vocab_size
        if lo < 0:
            self.add("error", "token_range", f"negative token id {lo}.")
        if vocab is not None and hi >= vocab:
            self.add(
                "error",
                "token_range",
                f"token id {hi} >= vocab size {vocab}: the dump was made with another tokenizer or target.",
            )
        self.ctx.max_token_id = max(self.ctx.max_token_id, hi)

    def _check_mask(self, mask: torch.Tensor) -> None:
        values = set(mask.unique().tolist())
        if not values <= {0, 1}:
            shown = sorted(values)[:5]
            self.add("error", "loss_mask_values", f"loss_mask holds values other than 0/1: {shown}.")
        if mask.is_floating_point():
            self.add("warning", "dtype", f"loss_mask is {_dtype_name(mask)}; trainers expect int64 0/1.")
        ones = int((mask != 0).sum())
        trainer = _ZEROES_LAST.get(self.fmt)
        dropped = 1 if trainer and bool(mask[-1] != 0) else 0
        self.row["masked_tokens"] = ones
        self.row["supervised_tokens"] = ones - dropped
        self.row["loss_mask_share"] = ones / max(int(mask.shape[0]), 1)
        self.ctx.last_position_ones += dropped
        if ones == 0:
            self.add(
                "warning",
                "loss_mask_empty",
                "loss mask is all zeros: the sample supervises nothing (chat template or assistant-span "
                "detection mismatch?).",
            )
        elif ones == dropped:
            self.add(
                "warning",
                "loss_mask_empty",
                f"loss mask marks only the last position, which {trainer} sets to 0 at load time: the sample "
                "supervises nothing (chat template or assistant-span detection mismatch?).",
            )

    def _check_widths(self, final: torch.Tensor | None, aux: torch.Tensor | None) -> tuple[int | None, bool]:
        """(hidden size for the row, whether the aux splits into three chunks of that size)."""
        target = self.ctx.target_hidden_size
        hidden = int(final.shape[1]) if final is not None else None
        if hidden is not None and target is not None and hidden != target:
            self.add(
                "error",
                "hidden_size",
                f"final hidden state width {hidden} != target hidden size {target}: captured from another model?",
            )
        if aux is None:
            return hidden, False
        width = int(aux.shape[1])
        expect_h = target if target is not None else hidden
        if expect_h is None:
            if width % 3:
                self.add("error", "aux_width", f"aux width {width} is not a multiple of 3 (three captured layers).")
                return None, False
            return width // 3, True
        if width != 3 * expect_h:
            n = self.layers_per_token
            if n is not None and n != 4:
                self.add("error", "aux_width", _layer_count_message(n, hidden))
            else:
                self.add("error", "aux_width", _aux_width_message(width, hidden, target, self.ctx.aux_layer_ids))
            return hidden if hidden is not None else expect_h, False
        return expect_h, True

    def _check_wiring(self, ids: torch.Tensor, final: torch.Tensor | None, aux: torch.Tensor, hidden: int) -> None:
        import torch

        finite = self.finite_rows if self.finite_rows is not None else torch.isfinite(aux).all(dim=1)
        valid = finite.nonzero().squeeze(1)
        if valid.numel() < 2:
            return
        pos = valid
        if pos.numel() > _MAX_POSITIONS:
            pick = torch.linspace(0, pos.numel() - 1, _MAX_POSITIONS).round().long()
            pos = pos[pick]
        rows = aux.index_select(0, pos).float()
        chunks = [rows[:, i * hidden : (i + 1) * hidden] for i in range(3)]
        names = ("low", "mid", "high")
        norms = [_median_rms(c) for c in chunks]
        self.row["aux_norms"] = norms
        pairs = ((0, 1), (0, 2), (1, 2))
        self.row["aux_pairwise_cos"] = [_mean_cos(chunks[i], chunks[j]) for i, j in pairs]
        identical = False
        for i, j in pairs:
            rel = _rel_diff(chunks[i], chunks[j])
            if rel < _IDENTICAL_REL:
                identical = True
                self.add(
                    "error",
                    "aux_identical",
                    f"aux chunks {i} and {j} ({names[i]}, {names[j]}) are near-identical (relative difference "
                    f"{rel:.2g}): the same target layer was captured more than once.",
                )
        if not identical and not (norms[0] < norms[1] < norms[2]):
            shown = ", ".join(f"{n:.3g}" for n in norms)
            self.add(
                "warning",
                "aux_norm_order",
                f"aux chunk norms do not grow with depth (median RMS low, mid, high = {shown}); residual-stream "
                "norms normally grow, so the layers may be captured out of order or at the wrong depth.",
            )

        embedded: set[int] = set()
        emb = self.ctx.embedding
        if emb is not None and emb.shape[1] == hidden:
            sel = ids.index_select(0, pos).long()
            if int(sel.max()) < emb.shape[0] and int(sel.min()) >= 0:
                erows = emb.index_select(0, sel).float()
                cos = [_mean_cos(c, erows) for c in chunks]
                self.row["aux_embedding_cos"] = cos
                e_rms = _median_rms(erows)
                for k, c in enumerate(cos):
                    if c > _EMBEDDING_COS:
                        embedded.add(k)
                        self.add(
                            "error",
                            "aux_is_embedding",
                            f"aux chunk {k} ({names[k]}) equals the token-embedding lookup (mean cosine {c:.4f}): "
                            "the embedding was captured instead of a layer output.",
                        )
                    elif c > _NEAR_EMBEDDING_COS or (
                        k == 0 and c > 0.5 and e_rms > 0 and 0.9 <= norms[0] / e_rms <= 1.1
                    ):
                        self.add(
                            "warning",
                            "aux_near_embedding",
                            f"aux chunk {k} ({names[k]}) looks like embedding-scale values (cosine to the "
                            f"embedding {c:.3f}, RMS ratio {norms[k] / max(e_rms, 1e-12):.2f}): captured too early?",
                        )
        elif emb is not None:
            self.ctx.embedding_mismatch = True

        self._check_context_free(ids, aux, valid, hidden, names, embedded)

        if final is not None and final.shape[1] == hidden:
            frows = final.index_select(0, pos).float()
            high_cos = _mean_cos(chunks[2], frows)
            self.row["high_final_cos"] = high_cos
            if _rel_diff(chunks[2], frows) < _IDENTICAL_REL:
                self.add(
                    "error",
                    "aux_high_equals_final",
                    "the high aux chunk equals the final hidden state: the last layer was captured instead of "
                    "layer N-4 (or hidden_state was filled from the aux).",
                )
            elif high_cos < 0.05:
                self.add(
                    "info",
                    "aux_high_far_from_final",
                    f"high aux chunk and final hidden state are nearly unrelated (mean cosine {high_cos:.3f}); "
                    "check that the rows are not shuffled or misaligned.",
                )

    def _check_context_free(
        self,
        ids: torch.Tensor,
        aux: torch.Tensor,
        valid: torch.Tensor,
        hidden: int,
        names: tuple[str, ...],
        skip: set[int],
    ) -> None:
        """A layer output depends on context; a chunk where equal tokens give equal vectors is a lookup."""
        import torch

        last: dict[int, int] = {}
        pairs: list[tuple[int, int]] = []
        id_list = ids.tolist()
        for p in valid.tolist():
            tok = id_list[p]
            if tok in last:
                pairs.append((last[tok], p))
                if len(pairs) >= _MAX_PAIRS:
                    break
            last[tok] = p
        if len(pairs) < 3:
            return
        a = aux.index_select(0, torch.tensor([i for i, _ in pairs])).float()
        b = aux.index_select(0, torch.tensor([j for _, j in pairs])).float()
        for k in range(3):
            if k in skip:
                continue
            ca, cb = a[:, k * hidden : (k + 1) * hidden], b[:, k * hidden : (k + 1) * hidden]
            den = torch.maximum(ca.norm(dim=1), cb.norm(dim=1)).clamp_min(1e-12)
            same = ((ca - cb).norm(dim=1) / den) < _CONTEXT_FREE_REL
            if float(same.float().mean()) >= 0.95:
                what = "the token-embedding lookup" if k == 0 else "a per-token lookup"
                self.add(
                    "error",
                    "aux_context_free",
                    f"aux chunk {k} ({names[k]}) gives the same vector for the same token at different positions "
                    f"({int(same.sum())} of {len(pairs)} repeats): it is {what}, not a layer output.",
                )


# --------------------------------------------------------------------------- the audit


@dataclass
class _Context:
    target_hidden_size: int | None
    vocab_size: int | None
    embedding: Any
    max_token_id: int = -1
    last_position_ones: int = 0
    embedding_mismatch: bool = False
    full: bool = False
    aux_layer_ids: list[int] | None = None  # the draft config's, named in an aux_width fix


def _merge(findings: list[DumpFinding], files_sampled: int) -> list[DumpFinding]:
    """One finding per (code, severity) when it repeats across files; the rows keep the detail."""
    by_key: dict[tuple[Severity, str], list[DumpFinding]] = {}
    for f in findings:
        by_key.setdefault((f.severity, f.code), []).append(f)
    out: list[DumpFinding] = []
    for (severity, code), group in by_key.items():
        files = sorted({f.file for f in group if f.file}, key=natural_key)
        if len(files) <= 1:
            out.extend(group)
            continue
        shown = ", ".join(files[:3]) + (", ..." if len(files) > 3 else "")
        out.append(
            DumpFinding(
                severity,
                code,
                f"{group[0].message} [{group[0].file}; this check fired in "
                f"{len(files)} of {files_sampled} sampled files: {shown}]",
                None,
            )
        )
    out.sort(key=lambda f: -_SEVERITY_RANK.get(f.severity, 0))
    return out


def _positive(name: str, value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(f"{name} must be a positive integer, got {value!r}.")
    return value


@dataclass
class DumpPlan:
    """What to read and what to check it against: decided once, then handed to every file check."""

    root: Path
    base: Path
    family: Family
    paths: list[Path]
    chosen: list[Path]
    target_hidden_size: int | None
    vocab_size: int | None
    embedding: Any
    aux_layer_ids: list[int] | None
    seed: int
    full: bool = False
    findings: list[DumpFinding] = field(default_factory=list)

    def name(self, path: Path) -> str:
        return path.relative_to(self.base).as_posix()


@dataclass
class FileCheck:
    """One file's row, raw findings and share of the folder-wide counters; ``report_dumps`` merges them."""

    row: dict[str, Any]
    findings: list[DumpFinding]
    fmt: DumpFormat | None = None
    read: bool = False
    max_token_id: int = -1
    last_position_ones: int = 0
    embedding_mismatch: bool = False
    layers: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def failed(cls, name: str, error: str) -> FileCheck:
        """A file whose check raised (on a Ray worker): an unreadable row and an error finding on it."""
        msg = f"cannot check the file: {' '.join(error.split())[:200]}"
        return cls(_row(name, "unreadable", None, msg), [DumpFinding("error", "unreadable", msg, name)])


def plan_dumps(
    folder: str | Path,
    *,
    draft_config: Mapping[str, Any] | None = None,
    target_hidden_size: int | None = None,
    vocab_size: int | None = None,
    embedding: torch.Tensor | None = None,
    max_files: int = 8,
    seed: int = 0,
    full: bool = False,
) -> DumpPlan:
    """Find the dump files and pick the seeded sample (every file with ``full``)."""
    if isinstance(max_files, bool) or not isinstance(max_files, int) or max_files < 1:
        raise InputError(f"max_files must be at least 1, got {max_files!r}.")
    target_hidden_size = _positive("target hidden size", target_hidden_size)
    vocab_size = _positive("vocab size", vocab_size)
    cfg = draft_config_fields(draft_config)
    findings: list[DumpFinding] = []
    if target_hidden_size is None:
        target_hidden_size = cfg["target_hidden_size"]
    if vocab_size is None:
        vocab_size = cfg["vocab_size"]
    if embedding is not None:
        if getattr(embedding, "ndim", 0) != 2:
            raise InputError("embedding must be a 2-D [vocab, hidden] tensor.")
        if vocab_size is None:
            vocab_size = int(embedding.shape[0])
    ids_cfg = cfg["aux_layer_ids"]
    if ids_cfg is not None and len(set(ids_cfg)) != 3:
        findings.append(
            DumpFinding(
                "warning",
                "config_layer_ids",
                f"draft config lists aux layer ids {ids_cfg}: EAGLE-3 needs three distinct layers.",
            )
        )

    groups = discover_dump_files(folder)
    root = resolve_user_path(folder, "dump folder")
    if not groups:
        raise DataError(
            f"no hidden-state dump files in {root}: expected SpecForge rows_*/data_*.ckpt[.gz], EAGLE "
            "<n>/data_*.ckpt, ModelOpt <conversation_id>.pt or speculators hs_*.safetensors."
        )
    family = max(groups, key=lambda k: (len(groups[k]), k))
    if len(groups) > 1:
        counts = ", ".join(f"{len(v)} {k}" for k, v in sorted(groups.items()))
        findings.append(
            DumpFinding(
                "warning",
                "mixed_formats",
                f"the folder mixes dump layouts ({counts}); only the {family} files were audited.",
            )
        )
    paths = groups[family]
    chosen = (
        list(paths) if full else sorted(random.Random(seed).sample(paths, min(max_files, len(paths))), key=natural_key)
    )
    return DumpPlan(
        root=root,
        base=root if root.is_dir() else root.parent,
        family=family,
        paths=paths,
        chosen=chosen,
        target_hidden_size=target_hidden_size,
        vocab_size=vocab_size,
        embedding=embedding,
        aux_layer_ids=ids_cfg,
        seed=seed,
        full=full,
        findings=findings,
    )


def check_file(path: Path, plan: DumpPlan) -> FileCheck:
    """Load and check one file; a file that cannot be read is a finding on it, never an exception."""
    name = plan.name(path)
    name_fmt = _name_format(path, plan.family)
    try:
        real = resolve_user_path(path, "dump file")  # the data root holds on a Ray worker too
        data = _load_file(real, plan.family)
    except _Refused:
        msg = (
            "refused: needs arbitrary unpickling (it holds Python objects, not just tensors); "
            "re-save it with plain tensors (torch.save of a dict of tensors)."
        )
        return FileCheck(_row(name, "refused", None, msg), [DumpFinding("error", "unsafe_pickle", msg, name)])
    except Exception as exc:  # noqa: BLE001 - corrupt/truncated files raise many types
        msg = f"cannot read the file: {_unreadable(exc, 200)}"
        return FileCheck(_row(name, "unreadable", None, msg), [DumpFinding("error", "unreadable", msg, name)])
    detected = _detect_by_keys(set(data))
    fmt = detected or name_fmt
    fits_name = fmt == name_fmt or (plan.family == "ckpt" and fmt in ("specforge", "eagle12"))
    ctx = _Context(
        plan.target_hidden_size, plan.vocab_size, plan.embedding, full=plan.full, aux_layer_ids=plan.aux_layer_ids
    )
    audit = _FileAudit(name, fmt, ctx)
    if not fits_name:
        audit.add(
            "warning",
            "format_mismatch",
            f"file name looks like {FORMAT_LABELS[name_fmt]} but its keys look like {FORMAT_LABELS[fmt]}.",
        )
    audit.run(data)
    del data
    return FileCheck(
        row=audit.row,
        findings=audit.findings,
        fmt=fmt,
        read=True,
        max_token_id=ctx.max_token_id,
        last_position_ones=ctx.last_position_ones,
        embedding_mismatch=ctx.embedding_mismatch,
        layers=audit.layers,
    )


def audit_dumps(
    folder: str | Path,
    *,
    draft_config: Mapping[str, Any] | None = None,
    target_hidden_size: int | None = None,
    vocab_size: int | None = None,
    embedding: torch.Tensor | None = None,
    max_files: int = 8,
    seed: int = 0,
    full: bool = False,
) -> DumpReport:
    """Audit a seeded random sample of the dump files in ``folder`` (every file with ``full``), one at a time."""
    plan = plan_dumps(
        folder,
        draft_config=draft_config,
        target_hidden_size=target_hidden_size,
        vocab_size=vocab_size,
        embedding=embedding,
        max_files=max_files,
        seed=seed,
        full=full,
    )
    return report_dumps(plan, [check_file(path, plan) for path in plan.chosen])


def _drift(layers: list[dict[str, Any]]) -> tuple[list[DumpFinding], dict[str, Any]]:
    """Per layer: files whose mean norm is over _DRIFT_RATIO x off the median over files (a jump)."""
    import statistics

    findings: list[DumpFinding] = []
    summary: dict[str, Any] = {}
    for layer in LAYERS:
        rows = [r for r in layers if r["layer"] == layer]
        if not rows:
            continue
        norms = [r["norm"] for r in rows]
        median = statistics.median(norms)
        jumps = [max(b, a) / max(min(a, b), 1e-12) for a, b in zip(norms, norms[1:], strict=False)]
        summary[layer] = {
            "files": len(rows),
            "median_norm": median,
            "min_norm": min(norms),
            "max_norm": max(norms),
            "max_jump": max(jumps) if jumps else 1.0,
        }
        if len(rows) < 3 or median <= 0:
            continue
        for r in rows:
            ratio = r["norm"] / median
            if ratio > _DRIFT_RATIO or ratio < 1 / _DRIFT_RATIO:
                findings.append(
                    DumpFinding(
                        "warning",
                        "layer_drift",
                        f"{layer} layer's {LAYER_NORM_LABEL} {r['norm']:.4g} is {ratio:.2f}x its median over "
                        f"{len(rows)} files ({median:.4g}): captured from another layer (or another model)?",
                        r["file"],
                    )
                )
    return findings, summary


def _mark_rows(rows: list[dict[str, Any]], raw: list[DumpFinding]) -> None:
    """A read file's status is its worst finding's severity, and its first error the row's ``error``: a file
    table that says "ok" next to a file with a shape error hides the file to fix."""
    worst: dict[str, DumpFinding] = {}
    for f in raw:
        if f.file is None or f.severity == "info":
            continue
        if f.file not in worst or _SEVERITY_RANK[f.severity] > _SEVERITY_RANK[worst[f.file].severity]:
            worst[f.file] = f
    for row in rows:
        top = worst.get(row["name"])
        if top is None or row["status"] in _NOT_READ:
            continue
        row["status"] = top.severity
        if top.severity == "error" and not row.get("error"):
            row["error"] = f"{top.code}: {top.message}"


def _ranked_widths(widths: Counter[int]) -> tuple[list[tuple[int, int]], int | None]:
    """Hidden sizes by file count (most first, then the smaller size), and the one most files hold: ``None``
    on a tie, where the files alone cannot say which target's states they should be. Sorted, not
    ``most_common``, so a tie reads the same whichever files the sample drew first."""
    ranked = sorted(widths.items(), key=lambda hn: (-hn[1], hn[0]))
    tied = len(ranked) > 1 and ranked[0][1] == ranked[1][1]
    return ranked, None if tied else ranked[0][0]


def _width_counts(ranked: list[tuple[int, int]]) -> str:
    return ", ".join(f"{n} file{'s' if n != 1 else ''} at {h}" for h, n in ranked)


def _mixed_widths(widths: Counter[int], rows: list[dict[str, Any]], sampled: bool) -> DumpFinding:
    """Files at two or more hidden sizes came from different targets: one draft cannot train on them all."""
    ranked, major = _ranked_widths(widths)
    counts = _width_counts(ranked)
    if major is None:
        odd_part = "no one size holds most files"
    else:
        odd = sorted(
            (r["name"] for r in rows if r.get("hidden") is not None and r["hidden"] != major), key=natural_key
        )
        odd_part = f"not at {major}: " + ", ".join(odd[:3]) + (", ..." if len(odd) > 3 else "")
    among = " among the files sampled (--all reads every file)" if sampled else ""
    return DumpFinding(
        "error",
        "hidden_size_mixed",
        f"the files hold hidden states of {len(ranked)} different sizes{among}: {counts} ({odd_part}). "
        "They were captured from different targets, and one draft trains on one "
        "target's states: remove or re-capture the files that are not from the draft's target, or pass "
        "--config/--target-hidden to have each file checked against it.",
    )


def _mark_mixed_widths(widths: Counter[int], rows: list[dict[str, Any]]) -> None:
    """The files ``hidden_size_mixed`` names are errors in the file table too (on a tie, every file is):
    a table that says "ok" next to a file from another target hides the file to remove."""
    ranked, major = _ranked_widths(widths)
    for row in rows:
        hidden = row.get("hidden")
        if hidden is None or hidden == major:
            continue
        row["status"] = "error"
        if not row.get("error"):  # a file's first error stays its reason
            if major is None:
                why = f"no one size holds most files ({_width_counts(ranked)})"
            else:
                why = f"most files ({widths[major]} of {sum(widths.values())}) are at {major}"
            row["error"] = f"hidden_size_mixed: hidden size {hidden}, {why}"


def report_dumps(plan: DumpPlan, checks: list[FileCheck]) -> DumpReport:
    """Merge the per-file checks (in ``plan.chosen`` order) into the report."""
    findings: list[DumpFinding] = list(plan.findings)
    rows = [c.row for c in checks]
    raw = [f for c in checks for f in c.findings]
    formats: Counter[DumpFormat] = Counter(c.fmt for c in checks if c.read and c.fmt is not None)
    files_read = sum(1 for c in checks if c.read)
    max_token_id = max((c.max_token_id for c in checks), default=-1)
    last_position_ones = sum(c.last_position_ones for c in checks)
    embedding_mismatch = any(c.embedding_mismatch for c in checks)
    layers = [r for c in checks for r in c.layers]
    chosen, paths = plan.chosen, plan.paths
    target_hidden_size, vocab_size, embedding = plan.target_hidden_size, plan.vocab_size, plan.embedding
    ids_cfg, seed, root = plan.aux_layer_ids, plan.seed, plan.root
    if plan.full:
        drift_findings, drift = _drift(layers)
        raw.extend(drift_findings)
    _mark_rows(rows, raw)
    findings.extend(_merge(raw, len(chosen)))
    fmt = formats.most_common(1)[0][0] if formats else _name_format(paths[0], plan.family)
    ok_rows = [r for r in rows if r.get("status") not in _NOT_READ]  # every file read, whatever it holds
    widths = Counter(r["hidden"] for r in ok_rows if r.get("hidden"))
    if len(widths) > 1 and target_hidden_size is None:  # with a target, each odd file is a hidden_size error
        findings.append(_mixed_widths(widths, ok_rows, len(chosen) < len(paths)))
        _mark_mixed_widths(widths, ok_rows)
    if fmt == "eagle12":
        findings.append(
            DumpFinding(
                "info",
                "no_aux",
                "EAGLE-1/2 dump: only the top layer was captured, no aux layers; wiring checks "
                "skipped. This data cannot train an EAGLE-3 draft.",
            )
        )
    if fmt == "speculators":
        findings.append(
            DumpFinding(
                "info",
                "no_loss_mask",
                "speculators dumps keep the loss mask in the prepared dataset, not in the files; "
                "loss-mask coverage not checked.",
            )
        )
    if target_hidden_size is None:
        findings.append(
            DumpFinding(
                "info",
                "no_target_hidden",
                "no target hidden size given (--config or --target-hidden): aux width was checked "
                "against each file's own final hidden state only.",
            )
        )
    if embedding_mismatch and embedding is not None:  # set only when an embedding was given
        findings.append(
            DumpFinding(
                "warning",
                "embedding_mismatch",
                f"the embedding is {list(embedding.shape)} but the dump's hidden size differs; "
                "embedding checks skipped (wrong target checkpoint?).",
            )
        )
    # every figure (tokens, masked, supervised, share, seq_len) is over one set of files: those whose shape
    # checks passed; a file stopped by one (say 567 ids against 574 states) has a seq_len but no mask count
    failed = {f.file for f in raw if f.code in _SHAPE_FAILURES}
    counted = [r for r in ok_rows if r.get("seq_len") and r["name"] not in failed]
    left_out = [r["name"] for r in ok_rows if not (r.get("seq_len") and r["name"] not in failed)]
    masked = [r for r in counted if r.get("supervised_tokens") is not None]
    supervised = sum(r["supervised_tokens"] for r in masked) if masked else None
    masked_tokens = sum(r["masked_tokens"] for r in masked) if masked else None
    trainer = _ZEROES_LAST.get(fmt, _ZEROES_LAST["specforge"])
    if masked and supervised == 0:
        why = (
            "is all zeros"
            if masked_tokens == 0
            else f"is all zeros or marks only the last position, which {trainer} sets to 0 at load time"
        )
        findings.append(
            DumpFinding(
                "error",
                "no_supervised_tokens",
                f"every loss mask in the {len(masked)} files read {why}: nothing would be "
                "trained. Check the chat template used when the dump was made.",
            )
        )
    if last_position_ones:
        findings.append(
            DumpFinding(
                "info",
                "loss_mask_last",
                f"{last_position_ones} of {len(masked)} files have loss_mask[-1] = 1; {trainer} "
                "sets the last position to 0 at load time, so it is not supervised: supervised_tokens counts "
                f"{supervised:,} of the {masked_tokens:,} masked positions.",
            )
        )
    if files_read < len(chosen):
        findings.append(DumpFinding("info", "sample", f"{files_read} of {len(chosen)} sampled files could be read."))

    findings.sort(key=lambda f: -_SEVERITY_RANK.get(f.severity, 0))
    severities = {f.severity for f in findings}
    verdict = "broken" if "error" in severities else "suspect" if "warning" in severities else "ok"
    lens = [r["seq_len"] for r in counted]
    tokens = sum(lens)
    # norms of two targets' states do not average: only files at the target's (or the one) width count
    width = target_hidden_size
    if width is None and len(widths) == 1:
        (width,) = widths
    norm_rows = [r["aux_norms"] for r in ok_rows if r.get("aux_norms") and r.get("hidden") == width]
    mean_norms = [sum(n[i] for n in norm_rows) / len(norm_rows) for i in range(3)] if norm_rows else None
    hiddens = sorted(widths)
    summary: dict[str, Any] = {
        "verdict": verdict,
        "format_label": FORMAT_LABELS.get(fmt, fmt),
        "files_sampled": len(chosen),
        "files_refused": sum(1 for r in rows if r.get("status") == "refused"),
        "files_unreadable": sum(1 for r in rows if r.get("status") == "unreadable"),
        "errors": sum(1 for f in findings if f.severity == "error"),
        "warnings": sum(1 for f in findings if f.severity == "warning"),
        "files_counted": len(counted),  # the files every figure below is over
        "files_left_out": left_out,  # read but failed a shape check (or empty): in no figure
        "tokens": tokens,
        "supervised_tokens": supervised,  # what the trainer supervises: each sample's last position zeroed
        "masked_tokens": masked_tokens,  # loss-mask ones as stored
        "supervised_share": (supervised / tokens) if supervised is not None and tokens else None,
        "seq_len": {"min": min(lens), "mean": tokens / len(lens), "max": max(lens)} if lens else None,
        "samples_total": len(paths),  # one sample per file in every known layout
        "estimated_total_tokens": round(tokens / len(lens) * len(paths)) if lens else None,
        "mean_aux_norms": mean_norms,
        "norm_units": {k: v for k, v in NORM_UNITS.items() if plan.full or k not in ("norm", "layer_drift")},
        "hidden_size": hiddens[0] if len(hiddens) == 1 else (hiddens or None),
        "target_hidden_size": target_hidden_size,
        "vocab_size": vocab_size,
        "max_token_id": max_token_id if max_token_id >= 0 else None,
        "aux_layer_ids": ids_cfg,
        "dtypes": sorted({r["dtype"] for r in ok_rows if r.get("dtype")}),
        "seed": seed,
        "full_scan": plan.full,
    }
    if plan.full:
        summary["layer_drift"] = drift
    return DumpReport(
        format=fmt,
        folder=str(root),
        files_total=len(paths),
        files_read=files_read,
        findings=findings,
        files=rows,
        summary=summary,
        layer_stats=layers,
    )


@dataclass
class DumpSample:
    """One dump file as the tensors an evaluator needs, whatever the layout: ``[L]`` ids, ``[L, H]`` final
    state, ``[L, n*H]`` aux states (low, mid, high), the loss mask and stored labels where the layout has them."""

    name: str
    format: DumpFormat
    input_ids: Any
    loss_mask: Any | None
    final: Any | None
    aux: Any | None
    labels: Any | None = None
    conversation_id: str | None = None
    index: int | None = None  # data_<index>.ckpt / hs_<index>.safetensors: the row of the prepared dataset


_INDEX_RE = re.compile(r"_(\d+)\.")


def iter_samples(
    folder: str | Path, *, max_files: int | None = None, skipped: list[str] | None = None, mmap: bool = False
) -> Any:
    """The dump's files as ``DumpSample``s in sorted order, one file in memory at a time.

    Files that cannot be read safely are not loaded another way: their names (and why) go to ``skipped``.
    ``mmap``: torch.save files are mapped, not read, until their tensors are touched.
    """
    groups = discover_dump_files(folder)
    root = resolve_user_path(folder, "dump folder")
    if not groups:
        raise DataError(
            f"no hidden-state dump files in {root}: expected SpecForge rows_*/data_*.ckpt[.gz], ModelOpt "
            "<conversation_id>.pt or speculators hs_*.safetensors."
        )
    family = max(groups, key=lambda k: (len(groups[k]), k))
    paths = groups[family]
    if max_files is not None:
        paths = paths[:max_files]
    base = root if root.is_dir() else root.parent
    for path in paths:
        name = path.relative_to(base).as_posix()
        try:
            data = _load_file(path, family, mmap=mmap)
        except _Refused:
            if skipped is not None:
                skipped.append(f"{name}: refused (needs arbitrary unpickling)")
            continue
        except Exception as exc:  # noqa: BLE001 - corrupt/truncated files raise many types
            if skipped is not None:
                skipped.append(f"{name}: unreadable: {_unreadable(exc, 120)}")
            continue
        fmt = _detect_by_keys(set(data)) or _name_format(path, family)
        audit = _FileAudit(name, fmt, _Context(None, None, None))
        missing = [k for k in FORMATS[fmt] if k not in data or not _is_tensor(data[k])]
        parts = (None, None, None, None) if missing else audit._normalise(data)
        ids, mask, final, aux = parts
        if ids is None or (aux is None and final is None):
            if skipped is not None:
                why = f"missing {', '.join(missing)}" if missing else "; ".join(f.message for f in audit.findings)
                skipped.append(f"{name}: {why or 'unusable layout'}")
            continue
        labels = next((data[k] for k in ("labels", "target_ids") if _is_tensor(data.get(k))), None)
        match = _INDEX_RE.search(path.name)
        cid = data.get("conversation_id")
        yield DumpSample(
            name=name,
            format=fmt,
            input_ids=ids.long(),
            loss_mask=mask,
            final=final,
            aux=aux,
            labels=_flat_1d(labels) if labels is not None else None,
            conversation_id=None if cid is None else str(cid),
            index=int(match.group(1)) if match and fmt != "modelopt" else None,
        )
        del data


def nonfinite(sample: DumpSample) -> str | None:
    """Why ``sample`` must be left out (NaN or inf in its hidden states), or None when every value is finite.

    SpecForge skips such records when it writes a dump; fed to a draft, a NaN row still gives a proposal
    (its argmax lands on draft id 0), so an evaluation would count made-up tokens. One device sync when
    all is well (the tensors may be on a GPU), counts only when something is off.
    """
    import torch

    states: list[tuple[str, torch.Tensor]] = [
        (label, t)
        for label, t in (("aux", sample.aux), ("final", sample.final))
        if isinstance(t, torch.Tensor) and t.is_floating_point()
    ]
    if not states:
        return None
    ok = torch.stack([torch.isfinite(t).all() for _, t in states]).all()
    if bool(ok):
        return None
    parts = []
    for label, t in states:
        bad = ~torch.isfinite(t)
        if not bool(bad.any()):
            continue
        nan = int(torch.isnan(t).sum())
        inf = int(bad.sum()) - nan
        rows = int(bad.reshape(t.shape[0], -1).any(dim=1).sum())
        what = " and ".join(x for x in (f"{nan} NaN" if nan else "", f"{inf} inf" if inf else "") if x)
        parts.append(f"{what} in {rows} of {t.shape[0]} positions of the {label} hidden states")
    return (
        f"non-finite hidden states ({'; '.join(parts)}): left out, as SpecForge leaves out such records; "
        "audit-dump lists the files"
    )


def draft_config_of(entry: Entry) -> dict[str, Any] | None:
    """A read draft's own config for the dump checks; None for a target model or an entry without a config."""
    if entry.spec.role != "draft" or not entry.spec.raw_config:
        return None
    return dict(entry.spec.raw_config)


def load_draft_config(source: str) -> dict[str, Any]:
    """A draft's config for the dump checks: a local config.json or the folder holding it (``read_draft_config``),
    else a Hub id or URL read as the pages read the sidebar's draft (its config alone, ``comparison.load_entry``;
    a private or gated repo with the token from HF_TOKEN, on the page the sidebar's token field)."""
    text = source.strip()
    if resolve_user_path(text, "draft config").exists():
        return read_draft_config(text)
    from comparelib.models import comparison

    entry = comparison.load_entry(text, with_header=False, with_card=False)
    config = draft_config_of(entry)
    if config is None:
        raise InputError(
            f"{entry.label} is not a draft ({entry.spec.architecture}, a {entry.spec.role} model): give the draft's "
            "config, or the target's hidden size"
        )
    return config


def read_draft_config(path: str | Path) -> dict[str, Any]:
    """A draft's config.json (or the folder holding it) as a dict."""
    p = resolve_user_path(path, "draft config")
    if p.is_dir():
        p = p / "config.json"
    if not p.is_file():
        raise InputError(f"draft config not found: {p}. Give a config.json or the folder holding it.")
    try:
        obj = limits.loads(limits.read_text_capped(p, str(p), limits.CONFIG_BYTES), str(p))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read {p} as JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise ConfigError(f"{p} is not a JSON object; expected a draft config.json.")
    return obj
