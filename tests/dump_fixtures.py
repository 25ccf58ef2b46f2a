"""Small hidden-state dumps built with torch, wired right and wrong.

A tiny deterministic "target": embedding E [V, H] and N residual blocks
h_{k+1} = h_k + tanh(h_k W_k + b_k) + 0.5 * causal_mean(h_k) A_k, so outputs depend on context
(like attention) and their norms grow with depth. ``states`` follows the HF convention: index 0
is the embedding lookup, index k the output of block k-1. Correct EAGLE-3 wiring captures the
outputs of blocks 1, N//2-1, N-4, i.e. states[2], states[N//2], states[N-3].
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import save_file

HIDDEN = 32
VOCAB = 96
N_LAYERS = 12
ACTIVE_IDS = 48  # ids drawn from [0, 48): short samples still repeat tokens, like real chat text


class TinyTarget:
    def __init__(self, hidden: int = HIDDEN, vocab: int = VOCAB, n_layers: int = N_LAYERS, seed: int = 0) -> None:
        g = torch.Generator().manual_seed(seed)
        self.hidden = hidden
        self.n_layers = n_layers
        self.embedding = torch.randn(vocab, hidden, generator=g) * 0.02
        scale = hidden**-0.5
        self.w = [torch.randn(hidden, hidden, generator=g) * scale for _ in range(n_layers)]
        self.b = [torch.randn(hidden, generator=g) for _ in range(n_layers)]
        self.a = [torch.randn(hidden, hidden, generator=g) * scale for _ in range(n_layers)]

    @property
    def eagle3_indices(self) -> list[int]:
        n = self.n_layers
        return [2, n // 2, n - 3]

    def states(self, ids: torch.Tensor) -> list[torch.Tensor]:
        h = self.embedding[ids]
        out = [h]
        counts = torch.arange(1, h.shape[0] + 1, dtype=h.dtype).unsqueeze(1)
        for k in range(self.n_layers):
            causal_mean = h.cumsum(0) / counts
            h = h + torch.tanh(h @ self.w[k] + self.b[k]) + 0.5 * (causal_mean @ self.a[k])
            out.append(h)
        return out

    @staticmethod
    def norm(h: torch.Tensor) -> torch.Tensor:
        return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)


# ----------------------------------------------------------------------------- pickle traps


class SetstateTrap:
    """Unpickling this writes a marker file (via __setstate__)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __setstate__(self, state: dict[str, Any]) -> None:
        Path(state["marker"]).write_text("unpickled by __setstate__")
        self.__dict__.update(state)


def touch_marker(path: str) -> str:
    Path(path).write_text("unpickled by __reduce__")
    return path


class ReduceTrap:
    """Unpickling this calls touch_marker (the classic __reduce__ payload)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Callable[[str], str], tuple[str]]:
        return touch_marker, (self.marker,)


# ----------------------------------------------------------------------------- builders

Mutator = Callable[[int, dict[str, Any]], None]


def _sample(rng: torch.Generator, i: int) -> tuple[torch.Tensor, torch.Tensor]:
    length = 16 + (i * 13) % 49  # 16..64
    ids = torch.randint(0, ACTIVE_IDS, (length,), generator=rng, dtype=torch.int64)
    mask = torch.zeros(length, dtype=torch.int64)
    mask[int(length * 0.4) : length - 1] = 1  # assistant span; last position 0 as SpecForge leaves it
    return ids, mask


def build_dump(
    root: Path,
    layout: str = "specforge",
    *,
    n_files: int = 6,
    aux: Sequence[int] | None = None,
    final: int | None = None,
    compress: bool = False,
    dtype: torch.dtype = torch.bfloat16,
    mutate: Mutator | None = None,
    target: TinyTarget | None = None,
    seed: int = 1,
) -> Path:
    """Write ``n_files`` samples in ``layout``; ``aux`` = HF state indices captured (default: correct).

    ``final`` = state index written as the final hidden state instead of norm(states[N]).
    """
    target = target or TinyTarget()
    aux_idx = list(aux) if aux is not None else target.eagle3_indices
    rng = torch.Generator().manual_seed(seed)
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n_files):
        ids, mask = _sample(rng, i)
        states = target.states(ids)
        final_state = states[final] if final is not None else TinyTarget.norm(states[-1])
        aux_state = torch.cat([states[k] for k in aux_idx], dim=-1)
        if layout == "specforge":
            rec: dict[str, Any] = {
                "input_ids": ids,
                "loss_mask": mask,
                "hidden_state": final_state.to(dtype).unsqueeze(0),
                "aux_hidden_state": aux_state.to(dtype).unsqueeze(0),
            }
            path = root / "rows_0-2000" / f"data_{i}.ckpt"
        elif layout == "eagle12":
            rec = {"input_ids": ids, "hidden_state": final_state.to(dtype), "loss_mask": mask}
            path = root / "0" / f"data_{i}.ckpt"
        elif layout == "modelopt":
            cid = hashlib.sha256(f"conv-{seed}-{i}".encode()).hexdigest()
            rec = {
                "input_ids": ids,
                "hidden_states": final_state.to(dtype),
                "aux_hidden_states": aux_state.to(dtype),
                "conversation_id": cid,
            }
            path = root / f"{cid}.pt"
        elif layout == "speculators":
            top = states[final] if final is not None else states[-1]  # boundary N, pre-norm
            rec = {
                "token_ids": ids,
                "hidden_states": torch.stack([states[k] for k in aux_idx] + [top], dim=1).to(dtype).contiguous(),
            }
            path = root / f"hs_{i}.safetensors"
        else:
            raise ValueError(layout)
        if mutate is not None:
            mutate(i, rec)
        path.parent.mkdir(parents=True, exist_ok=True)
        if layout == "speculators":
            save_file(rec, str(path))
        elif compress:
            with gzip.open(str(path) + ".gz", "wb", compresslevel=6) as fh:
                torch.save(rec, fh)
        else:
            torch.save(rec, path)
    return root


def add_trap_files(root: Path, marker_dir: Path) -> tuple[Path, Path]:
    """Two SpecForge-named files that need arbitrary unpickling; returns the markers they would write."""
    m1, m2 = marker_dir / "setstate_ran", marker_dir / "reduce_ran"
    folder = root / "rows_0-2000"
    folder.mkdir(parents=True, exist_ok=True)
    ids = torch.arange(8)
    torch.save(
        {"input_ids": ids, "loss_mask": torch.ones(8, dtype=torch.int64), "meta": SetstateTrap(str(m1))},
        folder / "data_90.ckpt",
    )
    torch.save({"input_ids": ids, "payload": ReduceTrap(str(m2))}, folder / "data_91.ckpt")
    return m1, m2


# ----------------------------------------------------------------------------- mutators (SpecForge keys)


def nan_in_first(i: int, rec: dict[str, Any]) -> None:
    if i == 0:
        rec["aux_hidden_state"][0, 3, 5] = float("nan")


def zero_mask_first(i: int, rec: dict[str, Any]) -> None:
    if i == 0:
        rec["loss_mask"].zero_()


def zero_mask_all(i: int, rec: dict[str, Any]) -> None:
    rec["loss_mask"].zero_()


def short_mask(i: int, rec: dict[str, Any]) -> None:
    rec["loss_mask"] = rec["loss_mask"][:-1]


def drop_loss_mask(i: int, rec: dict[str, Any]) -> None:
    del rec["loss_mask"]


def odd_dtypes(i: int, rec: dict[str, Any]) -> None:
    rec["input_ids"] = rec["input_ids"].to(torch.int32)
    rec["aux_hidden_state"] = rec["aux_hidden_state"].to(torch.float64)


def wrong_conversation_id(i: int, rec: dict[str, Any]) -> None:
    rec["conversation_id"] = f"other-{i}"


def last_position_supervised(i: int, rec: dict[str, Any]) -> None:
    rec["loss_mask"][-1] = 1


def blur_low_chunk(i: int, rec: dict[str, Any]) -> None:
    """Low chunk = embedding + 35% per-position noise: close to, but not exactly, the lookup."""
    aux = rec["aux_hidden_state"]
    g = torch.Generator().manual_seed(100 + i)
    low = aux[..., :HIDDEN].float()
    noise = torch.randn(low.shape, generator=g) * low.pow(2).mean().sqrt() * 0.35
    aux[..., :HIDDEN] = (low + noise).to(aux.dtype)


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread() -> Iterator[None]:
    """The tensors in dump tests are tiny; torch's worker threads only fight over the 2 shared cores.
    A module that imports this fixture gets it (autouse, once per module)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
