"""Write tiny but real checkpoints (config.json + safetensors) from a config or a ModelSpec.

Tests use these to prove header reading and reconciliation against files produced by the real
``safetensors`` writer, and the Hub emulator uses them to populate fake repos. Keep sizes small
(hidden 64, vocab 256): every tensor is materialised.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file

from comparelib.models.architectures import ModelSpec, parse_config

_TORCH_DTYPES: dict[str, torch.dtype] = {
    "bf16": torch.bfloat16,
    "fp16": torch.float16,
    "fp32": torch.float32,
    "BF16": torch.bfloat16,
    "F16": torch.float16,
    "F32": torch.float32,
    "I64": torch.int64,
    "BOOL": torch.bool,
}

# A tiny EAGLE-3 draft in SpecForge's dialect; copy and edit per test.
TINY_EAGLE3: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "num_hidden_layers": 1,
    "vocab_size": 256,
    "draft_vocab_size": 96,
    "max_position_embeddings": 512,
    "rms_norm_eps": 1e-05,
    "rope_theta": 10000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 4], "use_aux_hidden_state": True},
}

# The same draft as vLLM speculators writes it.
TINY_SPECULATORS: dict[str, Any] = {
    "architectures": ["Eagle3Speculator"],
    "speculators_model_type": "eagle3",
    "speculators_version": "0.2.0",
    "draft_vocab_size": 96,
    "norm_before_residual": False,
    "target_hidden_size": None,
    "eagle_aux_hidden_state_layer_ids": [2, 4, 5],
    "transformer_layer_config": {
        "model_type": "llama",
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "num_hidden_layers": 1,
        "vocab_size": 256,
        "rms_norm_eps": 1e-05,
        "max_position_embeddings": 512,
        "attention_bias": False,
        "mlp_bias": False,
    },
    "speculators_config": {
        "algorithm": "eagle3",
        "default_proposal_method": "greedy",
        "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 3}],
        "verifier": {"name_or_path": "tiny/target", "architectures": ["LlamaForCausalLM"]},
    },
    "torch_dtype": "bfloat16",
}

# A tiny Llama target the drafts above could sit on.
TINY_LLAMA: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "num_hidden_layers": 6,
    "vocab_size": 256,
    "max_position_embeddings": 512,
    "rms_norm_eps": 1e-05,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def _tensor(shape: tuple[int, ...], dtype: torch.dtype, name: str) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.ones(shape, dtype=torch.bool)
    if dtype == torch.int64:
        return torch.zeros(shape, dtype=torch.int64)
    # deterministic, non-zero values so a reader cannot pass by accident on all-zero data
    n = 1
    for d in shape:
        n *= d
    return (torch.arange(n, dtype=torch.float32).reshape(shape) % 7 / 7.0 + len(name) / 100).to(dtype)


def write_checkpoint(
    spec_or_config: ModelSpec | Mapping[str, Any],
    folder: str | Path,
    *,
    include: str | Iterable[str] = "stored",
    exclude: Iterable[str] = (),
    dtype: str = "bf16",
    extra: Mapping[str, tuple[int, ...]] | None = None,
    shapes: Mapping[str, tuple[int, ...]] | None = None,
    rename: Callable[[str], str] | Mapping[str, str] | None = None,
    shards: int = 1,
    config: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``config.json`` and safetensors weights for the spec's tensors into ``folder``.

    include: "stored" (what the producer saves: the default), "all", or an explicit list of names.
    exclude: names to leave out. extra: additional tensors (name -> shape) to add.
    shapes: override the shape of named tensors (to fake a mismatch). rename: rewrite names
    (e.g. add a ``model.`` prefix). shards > 1 writes ``model-0000i-of-0000n.safetensors`` plus
    ``model.safetensors.index.json``. Returns the folder.
    """
    spec = spec_or_config if isinstance(spec_or_config, ModelSpec) else parse_config(spec_or_config)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    weight_dtype = _TORCH_DTYPES[dtype]
    if include == "stored":
        chosen = [t for t in spec.tensors if t.stored]
    elif include == "all":
        chosen = list(spec.tensors)
    else:
        names = set(include)  # type: ignore[arg-type]
        chosen = [t for t in spec.tensors if t.name in names]
    skip = set(exclude)
    overrides = dict(shapes or {})
    tensors: dict[str, torch.Tensor] = {}
    for t in chosen:
        if t.name in skip:
            continue
        td = _TORCH_DTYPES[t.dtype] if t.dtype else weight_dtype
        name = t.name
        if callable(rename):
            name = rename(name)
        elif rename is not None:
            name = rename.get(name, name)
        tensors[name] = _tensor(tuple(overrides.get(t.name, t.shape)), td, name)
    for name, shape in (extra or {}).items():
        tensors[name] = _tensor(tuple(shape), weight_dtype, name)

    cfg = dict(config if config is not None else (spec.raw_config or {}))
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")

    if shards <= 1:
        save_file(tensors, str(out / "model.safetensors"), metadata={"format": "pt"})
        return out
    names = sorted(tensors)
    per = -(-len(names) // shards)
    weight_map: dict[str, str] = {}
    total_size = 0
    for i in range(shards):
        part = names[i * per : (i + 1) * per]
        fname = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        chunk = {n: tensors[n] for n in part}
        save_file(chunk, str(out / fname), metadata={"format": "pt"})
        for n in part:
            weight_map[n] = fname
            total_size += tensors[n].numel() * tensors[n].element_size()
    index = {"metadata": {"total_size": total_size}, "weight_map": weight_map}
    (out / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    return out


def read_header(folder: str | Path) -> dict[str, tuple[tuple[int, ...], str]]:
    """Name -> (shape, dtype) of every tensor in the folder's safetensors files, via safe_open."""
    from safetensors import safe_open

    out: dict[str, tuple[tuple[int, ...], str]] = {}
    for path in sorted(Path(folder).glob("*.safetensors")):
        with safe_open(str(path), framework="pt") as fh:
            for name in fh.keys():  # noqa: SIM118 - safe_open has no __iter__
                sl = fh.get_slice(name)
                out[name] = (tuple(sl.get_shape()), sl.get_dtype())
    return out
