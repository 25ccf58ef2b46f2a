"""Model configs, in every dialect people publish, turned into one description.

A ``ModelSpec`` is the list of named tensors (checkpoint names, exact shapes) that a config
implies, plus the few fields that lint and comparison need. Counting from that list is exact;
it is also what a checkpoint header is reconciled against.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Components, in the order tables and charts show them.
COMPONENTS: tuple[str, ...] = (
    "embedding",
    "fc",
    "attention",
    "mlp",
    "experts",
    "router",
    "norm",
    "mtp",
    "heads",
    "lm_head",
    "buffer",
)


@dataclass(frozen=True)
class TensorSpec:
    """One stored tensor as a checkpoint names it."""

    name: str
    shape: tuple[int, ...]
    component: str
    trainable: bool = True
    is_buffer: bool = False  # d2t / t2d index maps: stored, but not parameters
    shared_with_target: bool = False  # e.g. a draft's embedding copied from (and frozen like) the target's
    active_fraction: float = 1.0  # MoE routed experts: share of these weights used per token
    stored: bool = True  # False where the producer leaves it out of the checkpoint by design

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class ModelSpec:
    """A normalised model description, whatever dialect its config was written in."""

    source: str
    architecture: str
    dialect: str
    role: str  # "draft" | "target"
    hidden_size: int
    vocab_size: int
    num_hidden_layers: int
    tensors: tuple[TensorSpec, ...]
    draft_vocab_size: int | None = None
    target_hidden_size: int | None = None
    aux_layer_ids: tuple[int, ...] | None = None
    max_position_embeddings: int | None = None
    rope_theta: float | None = None
    rope_scaling: Mapping[str, Any] | None = None
    tie_word_embeddings: bool = False
    torch_dtype: str | None = None
    raw_config: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
