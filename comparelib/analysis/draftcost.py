"""What one draft step costs, measured with torch on this machine's CPU or GPU.

The draft is built from its config (the same ``ModelSpec`` the ``params`` command counts) with
random weights, straight on the device: nothing is downloaded and no remote code runs. EAGLE-3
only, laid out as SGLang 0.5.23 runs it (``sglang/srt/models/llama_eagle3.py``):

* ``LlamaModel.forward``: ``fc`` (over the concatenated aux hidden states, ``target_hidden x
  num_aux`` wide; with ``fc_norm`` / ``input_norm`` when the config asks) runs only when the
  incoming hidden state is not already the draft's width, i.e. on the first forward of a proposal
  (the draft-extend over the target's states); later steps feed the draft's own pre-norm hidden;
* ``LlamaDecoderLayer.forward`` (layer 0): ``cat(input_layernorm(embeds), hidden_norm(hidden))``,
  so q/k/v read ``2 x hidden``; then ``post_attention_layernorm``, the MLP, the final ``norm`` and
  ``lm_head`` at the draft vocabulary;
* chain drafting (topk 1): ``eagle_worker_v2.EAGLEWorkerV2.draft_forward`` runs
  ``speculative_num_steps - 1`` draft forwards after the draft-extend, each one new token per
  sequence; its argmax (mapped through ``d2t``) is the next input.

A *step* here is one such decode forward (no ``fc``): batch ``B`` sequences, one token each,
attending with ``scaled_dot_product_attention`` to a KV cache of ``context`` tokens. A *proposal
of N steps* is one forward with ``fc`` plus ``N - 1`` steps. The draft-extend really processes
the accepted tokens of the last cycle (up to N + 1 per sequence); it is timed here with one.

Bytes read per step: every weight the step touches (``fc`` only on the first forward) at the
chosen dtype, the embedding rows actually gathered (``B x hidden``: the table is the target's,
frozen, and a lookup reads only its rows), and the KV cache read by attention. At small batch a
step is bandwidth-bound, so bytes / time against the device's peak says how close it gets.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from comparelib.errors import ConfigError, DataError, InputError
from comparelib.models.architectures import ModelSpec

DTYPES: dict[str, int] = {"bf16": 2, "fp32": 4}
EAGLE3_DIALECTS = frozenset({"specforge-eagle3", "eagle3-authors", "speculators-eagle3", "modelopt-eagle3"})
MAX_BATCH = 4096
MAX_CONTEXT = 1_048_576
MAX_STEPS = 32
MAX_RECORD_BYTES = 2_000_000  # a recorded-figures JSON is a few KB

# Nominal peak memory bandwidth (GB/s, 1e9 bytes/s) by a substring of torch.cuda.get_device_name().
# First match wins, so the more specific names come first. Vendor data sheets.
PEAK_BANDWIDTH_GBS: tuple[tuple[str, float], ...] = (
    ("GH200", 4000.0),
    ("H200", 4800.0),
    ("H100 NVL", 3900.0),
    ("H100 PCIe", 2000.0),
    ("H100", 3350.0),  # SXM5 80GB HBM3
    ("H800", 3350.0),
    ("H20", 4000.0),
    ("B200", 8000.0),
    ("A100-SXM4-80GB", 2039.0),
    ("A100 80GB PCIe", 1935.0),
    ("A100", 1555.0),  # 40GB SXM4 and PCIe
    ("L40S", 864.0),
    ("L40", 864.0),
    ("A10G", 600.0),
    ("A10", 600.0),
    ("L4", 300.0),
    ("MI300X", 5300.0),
)


def peak_bandwidth_gbs(device_name: str) -> float | None:
    """The nominal peak memory bandwidth for a GPU name, or None when not in the table."""
    for key, gbs in PEAK_BANDWIDTH_GBS:
        if key.lower() in device_name.lower():
            return gbs
    return None


# --------------------------------------------------------------------------------------------
# Shape: what the module needs, read from the counted spec's tensors


@dataclass(frozen=True)
class DraftShape:
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    draft_vocab: int
    target_hidden: int
    num_aux: int
    layers: int
    attn_bias: bool = False
    mlp_bias: bool = False
    fc_bias: bool = False
    fc_norm: bool = False
    input_norm: bool = False
    with_d2t: bool = False
    with_t2d: bool = False
    rms_eps: float = 1e-6
    rope_theta: float = 10000.0


def _layer_config(spec: ModelSpec) -> Mapping[str, Any]:
    raw = spec.raw_config or {}
    inner = raw.get("transformer_layer_config")
    return inner if isinstance(inner, Mapping) else raw


def shape_from_spec(spec: ModelSpec) -> DraftShape:
    """The module shape of an EAGLE-3 draft, read from the same tensor list ``params`` counts."""
    if spec.role != "draft" or spec.dialect not in EAGLE3_DIALECTS:
        raise ConfigError(
            f"draft-cost builds EAGLE-3 drafts only; {spec.source or 'this model'} is {spec.architecture} "
            f"({spec.dialect}, {spec.role})"
        )
    by_name = {t.name: t for t in spec.tensors}

    def one(suffix: str) -> Any:
        hits = [t for t in spec.tensors if t.name == suffix or t.name.endswith("." + suffix)]
        return hits[0] if hits else None

    fc = by_name.get("fc.weight")
    q_projs = [t for t in spec.tensors if t.name.endswith("self_attn.q_proj.weight")]
    k_proj = one("self_attn.k_proj.weight")
    gate = one("mlp.gate_proj.weight")
    lm_head = by_name.get("lm_head.weight")
    if fc is None or not q_projs or k_proj is None or gate is None or lm_head is None:
        raise ConfigError(
            f"{spec.source or 'this draft'}: the EAGLE-3 tensor list lacks fc, attention, MLP or lm_head"
        )
    hidden = spec.hidden_size
    target_hidden = spec.target_hidden_size or hidden
    if fc.shape[1] % target_hidden:
        raise ConfigError(f"fc input {fc.shape[1]} is not a multiple of target_hidden_size {target_hidden}")
    cfg = _layer_config(spec)
    heads = cfg.get("num_attention_heads")
    if not isinstance(heads, int) or heads < 1 or q_projs[0].shape[0] % heads:
        raise ConfigError(f"num_attention_heads {heads!r} does not divide the q_proj width {q_projs[0].shape[0]}")
    head_dim = q_projs[0].shape[0] // heads
    eps = cfg.get("rms_norm_eps")
    theta = spec.rope_theta or cfg.get("rope_theta")
    return DraftShape(
        hidden=hidden,
        intermediate=gate.shape[0],
        heads=heads,
        kv_heads=k_proj.shape[0] // head_dim,
        head_dim=head_dim,
        vocab=spec.vocab_size,
        draft_vocab=lm_head.shape[0],
        target_hidden=target_hidden,
        num_aux=fc.shape[1] // target_hidden,
        layers=len(q_projs),
        attn_bias=one("self_attn.q_proj.bias") is not None,
        mlp_bias=one("mlp.gate_proj.bias") is not None,
        fc_bias="fc.bias" in by_name,
        fc_norm="fc_norm.0.weight" in by_name,
        input_norm="input_norm.weight" in by_name,
        with_d2t="d2t" in by_name,
        with_t2d="t2d" in by_name,
        rms_eps=float(eps) if isinstance(eps, (int, float)) and not isinstance(eps, bool) and eps > 0 else 1e-6,
        rope_theta=float(theta) if isinstance(theta, (int, float)) and theta and theta > 0 else 10000.0,
    )


# --------------------------------------------------------------------------------------------
# Bytes


@dataclass(frozen=True)
class StepBytes:
    weights: int  # weights a decode step reads (no fc), embedding excluded
    embedding_rows: int  # the gathered rows
    kv_cache: int  # K and V read by attention
    fc: int  # fc (+ its norms): read only by the first forward of a proposal

    @property
    def step(self) -> int:
        return self.weights + self.embedding_rows + self.kv_cache

    @property
    def first_step(self) -> int:
        return self.step + self.fc


def step_bytes(shape: DraftShape, *, batch: int, context: int, dtype_bytes: int) -> StepBytes:
    """Bytes one decode step reads: weights it touches, gathered embedding rows, the KV cache."""
    h, s = shape.hidden, shape
    per_layer = 0
    for i in range(s.layers):
        in_dim = 2 * h if i == 0 else h
        q, kv = s.heads * s.head_dim, s.kv_heads * s.head_dim
        attn = (q + 2 * kv) * in_dim + h * q + ((q + 2 * kv + h) if s.attn_bias else 0)
        mlp = 3 * h * s.intermediate + ((2 * s.intermediate + h) if s.mlp_bias else 0)
        norms = (2 * h if i == 0 else 0) + (h if i == 0 else 0) + (0 if i == 0 else 2 * h)
        per_layer += attn + mlp + norms
    weights = per_layer + h + s.draft_vocab * h  # + final norm + lm_head
    fc = h * s.num_aux * s.target_hidden + (h if s.fc_bias else 0)
    fc += (s.num_aux * s.target_hidden) * (int(s.fc_norm) + int(s.input_norm))
    kv_cache = batch * s.layers * context * 2 * s.kv_heads * s.head_dim
    return StepBytes(
        weights=weights * dtype_bytes,
        embedding_rows=batch * h * dtype_bytes,
        kv_cache=kv_cache * dtype_bytes,
        fc=fc * dtype_bytes,
    )


# --------------------------------------------------------------------------------------------
# The module (torch imported lazily: the page and most commands never need it)


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - torch is a dependency
        raise InputError("draft-cost needs torch: pip install -r requirements.txt") from exc
    return torch


def _torch_dtype(name: str) -> Any:
    torch = _torch()
    if name not in DTYPES:
        raise InputError(f"--dtype must be one of {', '.join(DTYPES)}, got {name!r}")
    return {"bf16": torch.bfloat16, "fp32": torch.float32}[name]


def build_draft(shape: DraftShape, *, device: str = "cpu", dtype: str = "bf16", seed: int = 0) -> Any:
    """An EAGLE-3 draft with random weights, allocated directly on ``device`` (never built on CPU first)."""
    torch = _torch()
    from torch import nn
    from torch.nn import functional as F

    tdtype = _torch_dtype(dtype)
    s = shape

    class RMSNorm(nn.Module):
        def __init__(self, dim: int) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.empty(dim, device="meta", dtype=tdtype))

        def forward(self, x: Any) -> Any:
            if hasattr(F, "rms_norm"):  # torch >= 2.4
                return F.rms_norm(x, (x.shape[-1],), self.weight, s.rms_eps)
            var = x.float().pow(2).mean(-1, keepdim=True)
            return (x.float() * torch.rsqrt(var + s.rms_eps)).to(x.dtype) * self.weight

    class Layer(nn.Module):
        def __init__(self, first: bool) -> None:
            super().__init__()
            in_dim = 2 * s.hidden if first else s.hidden
            q, kv = s.heads * s.head_dim, s.kv_heads * s.head_dim
            meta = {"device": "meta", "dtype": tdtype}
            self.first = first
            if first:
                self.hidden_norm = RMSNorm(s.hidden)
            self.input_layernorm = RMSNorm(s.hidden)
            self.q_proj = nn.Linear(in_dim, q, bias=s.attn_bias, **meta)
            self.k_proj = nn.Linear(in_dim, kv, bias=s.attn_bias, **meta)
            self.v_proj = nn.Linear(in_dim, kv, bias=s.attn_bias, **meta)
            self.o_proj = nn.Linear(q, s.hidden, bias=s.attn_bias, **meta)
            self.post_attention_layernorm = RMSNorm(s.hidden)
            self.gate_proj = nn.Linear(s.hidden, s.intermediate, bias=s.mlp_bias, **meta)
            self.up_proj = nn.Linear(s.hidden, s.intermediate, bias=s.mlp_bias, **meta)
            self.down_proj = nn.Linear(s.intermediate, s.hidden, bias=s.mlp_bias, **meta)

    class Eagle3Draft(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            meta = {"device": "meta", "dtype": tdtype}
            self.embed_tokens = nn.Embedding(s.vocab, s.hidden, **meta)
            self.embed_tokens.weight.requires_grad_(False)  # the target's, frozen
            aux = s.num_aux * s.target_hidden
            self.input_norm = RMSNorm(aux) if s.input_norm else None
            self.fc_norm = nn.ModuleList([RMSNorm(s.target_hidden) for _ in range(s.num_aux)]) if s.fc_norm else None
            self.fc = nn.Linear(aux, s.hidden, bias=s.fc_bias, **meta)
            self.layers = nn.ModuleList([Layer(i == 0) for i in range(s.layers)])
            self.norm = RMSNorm(s.hidden)
            self.lm_head = nn.Linear(s.hidden, s.draft_vocab, bias=False, **meta)
            if s.with_d2t:
                self.register_buffer("d2t", torch.empty(s.draft_vocab, dtype=torch.int64, device="meta"))
            if s.with_t2d:
                self.register_buffer("t2d", torch.empty(s.vocab, dtype=torch.bool, device="meta"))

    model = Eagle3Draft().to_empty(device=device)
    gen = torch.Generator(device=device).manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight") or ".fc_norm." in name or name.startswith("fc_norm."):
                p.fill_(1.0)
            elif name.endswith(".bias"):
                p.zero_()
            else:
                p.normal_(0.0, 0.02, generator=gen)
        if s.with_d2t:
            # draft id -> target id offset; any in-range map will do for timing
            ids = torch.arange(s.draft_vocab, device=device)
            model.get_buffer("d2t").copy_(ids * (s.vocab // s.draft_vocab) - ids)
        if s.with_t2d:
            model.get_buffer("t2d").zero_()
    model.eval()
    return model


class _Runner:
    """Decode steps against a KV cache of ``context`` tokens, as SGLang's chain drafting runs them."""

    def __init__(self, model: Any, shape: DraftShape, *, batch: int, context: int, steps: int, device: str) -> None:
        torch = _torch()
        self.torch, self.model, self.s = torch, model, shape
        self.batch, self.context, self.device = batch, context, device
        dtype = model.lm_head.weight.dtype
        total = context + steps + 1
        gen = torch.Generator(device=device).manual_seed(1)
        self.k = []
        self.v = []
        for _ in range(shape.layers):
            k = torch.empty(batch, shape.kv_heads, total, shape.head_dim, device=device, dtype=dtype)
            v = torch.empty_like(k)
            k.normal_(0, 1, generator=gen)
            v.normal_(0, 1, generator=gen)
            self.k.append(k)
            self.v.append(v)
        half = shape.head_dim // 2
        inv = 1.0 / (shape.rope_theta ** (torch.arange(0, half, device=device, dtype=torch.float32) / max(half, 1)))
        ang = torch.arange(total, device=device, dtype=torch.float32)[:, None] * inv[None, :]
        self.cos, self.sin = ang.cos().to(dtype), ang.sin().to(dtype)
        self.tokens = torch.randint(0, shape.vocab, (batch,), device=device, generator=gen)
        self.aux = torch.randn(batch, shape.num_aux * shape.target_hidden, device=device, generator=gen).to(dtype)
        self.hidden = torch.randn(batch, shape.hidden, device=device, generator=gen).to(dtype)

    def _rope(self, x: Any, pos: int) -> Any:
        half = self.s.head_dim // 2
        if half == 0:
            return x
        c, s_ = self.cos[pos], self.sin[pos]
        x1, x2 = x[..., :half], x[..., half : 2 * half]
        rot = self.torch.cat([x1 * c - x2 * s_, x2 * c + x1 * s_], dim=-1)
        return rot if 2 * half == x.shape[-1] else self.torch.cat([rot, x[..., 2 * half :]], dim=-1)

    def forward(self, tokens: Any, hidden: Any, pos: int) -> tuple[Any, Any]:
        """One draft forward: next tokens (target ids) and the pre-norm hidden for the next step."""
        torch, m, s = self.torch, self.model, self.s
        from torch.nn import functional as F

        b = tokens.shape[0]
        embeds = m.embed_tokens(tokens)
        h = hidden
        if h.shape[-1] != s.hidden:  # first forward of a proposal: the target's aux states through fc
            if m.input_norm is not None:
                h = m.input_norm(h)
            if m.fc_norm is not None:
                h = torch.cat(
                    [norm(c) for norm, c in zip(m.fc_norm, h.chunk(s.num_aux, dim=-1), strict=False)], dim=-1
                )
            h = m.fc(h)
        residual = None
        for i, layer in enumerate(m.layers):
            if layer.first:
                residual = h
                x = torch.cat([layer.input_layernorm(embeds), layer.hidden_norm(h)], dim=-1)
            else:
                residual = h + residual
                x = layer.input_layernorm(residual)
            q = layer.q_proj(x).view(b, s.heads, 1, s.head_dim)
            k = layer.k_proj(x).view(b, s.kv_heads, 1, s.head_dim)
            v = layer.v_proj(x).view(b, s.kv_heads, 1, s.head_dim)
            q, k = self._rope(q, pos), self._rope(k, pos)
            self.k[i][:, :, pos : pos + 1] = k
            self.v[i][:, :, pos : pos + 1] = v
            keys, values = self.k[i][:, :, : pos + 1], self.v[i][:, :, : pos + 1]
            if s.heads != s.kv_heads:  # GQA (enable_gqa needs torch >= 2.5)
                attn = F.scaled_dot_product_attention(q, keys, values, enable_gqa=True)
            else:
                attn = F.scaled_dot_product_attention(q, keys, values)
            h = layer.o_proj(attn.reshape(b, s.heads * s.head_dim))
            residual = h + residual
            x = layer.post_attention_layernorm(residual)
            h = layer.down_proj(F.silu(layer.gate_proj(x)) * layer.up_proj(x))
        residual = h + residual
        logits = m.lm_head(m.norm(residual))
        nxt = logits.argmax(dim=-1)
        if s.with_d2t:
            nxt = nxt + m.d2t[nxt]
        return nxt, residual

    graphs: list[Any] | None = None  # CUDA graphs: [step, proposal forward 1, ..., proposal forward N]

    def step(self) -> None:
        """One decode step (no fc) at position ``context``."""
        if self.graphs:
            self.graphs[0].replay()
            return
        self.forward(self.tokens, self.hidden, self.context)

    def proposal(self, steps: int, mark: Callable[[], None]) -> None:
        """Chain drafting: the first forward through fc, then ``steps - 1`` steps; ``mark`` after each."""
        if self.graphs:
            for g in self.graphs[1 : steps + 1]:
                g.replay()
                mark()
            return
        tokens, hidden = self.forward(self.tokens, self.aux, self.context)
        mark()
        for i in range(1, steps):
            tokens, hidden = self.forward(tokens, hidden, self.context + i)
            mark()

    def capture(self, steps: int) -> None:
        """CUDA graphs of the step and of each forward of a proposal (SGLang replays its draft steps as
        graphs: ``eagle_draft_cuda_graph_runner.py``); each forward's outputs are the next one's inputs."""
        torch = self.torch
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                self.step()
                self.proposal(steps, lambda: None)
        torch.cuda.current_stream().wait_stream(side)
        graphs = []
        keep = []
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            keep.append(self.forward(self.tokens, self.hidden, self.context))
        graphs.append(g)
        tokens, hidden = self.tokens, self.aux
        for i in range(steps):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                tokens, hidden = self.forward(tokens, hidden, self.context + i)
            keep.append((tokens, hidden))
            graphs.append(g)
        torch.cuda.synchronize()
        self._graph_outputs = keep  # static outputs must outlive the graphs that write them
        self.graphs = graphs


# --------------------------------------------------------------------------------------------
# Timing


class _Clock:
    """Wall time on CPU; CUDA events (and a synchronise) on a GPU."""

    def __init__(self, device: str) -> None:
        self.torch = _torch()
        self.cuda = device.startswith("cuda")

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize()

    def time(self, fn: Callable[[Callable[[], None]], None]) -> list[float]:
        """Run ``fn(mark)`` once; milliseconds from the start to each ``mark()`` call."""
        if self.cuda:
            Event = self.torch.cuda.Event
            start = Event(enable_timing=True)
            marks: list[Any] = []

            def mark() -> None:
                e = Event(enable_timing=True)
                e.record()
                marks.append(e)

            start.record()
            fn(mark)
            self.torch.cuda.synchronize()
            return [start.elapsed_time(e) for e in marks]
        t0 = time.perf_counter()
        out: list[float] = []
        fn(lambda: out.append((time.perf_counter() - t0) * 1000.0))
        return out


def _spread(values: Sequence[float]) -> float:
    """Interquartile range (p75 - p25) of the repeats."""
    if len(values) < 2:
        return 0.0
    q = statistics.quantiles(values, n=4, method="inclusive")
    return float(q[2] - q[0])


def copy_bandwidth_gbs(device: str, *, mib: int = 256, repeats: int = 5) -> float:
    """Reference: a plain tensor copy on the device, GB/s counting bytes read plus bytes written (STREAM copy)."""
    torch = _torch()
    n = mib * 1024 * 1024 // 4
    src = torch.ones(n, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    clock = _Clock(device)
    dst.copy_(src)
    clock.sync()

    def copy(mark: Callable[[], None]) -> None:
        dst.copy_(src)
        mark()

    times = [clock.time(copy)[0] for _ in range(repeats)]
    return 2 * n * 4 / (statistics.median(times) / 1000.0) / 1e9


# --------------------------------------------------------------------------------------------
# Measuring


@dataclass
class BatchResult:
    batch: int
    step_ms: float
    step_ms_spread: float
    proposal_ms: float
    bytes_per_step: int
    bandwidth_gbs: float
    first_step_ms: float
    first_step_bytes: int
    proposal_ms_by_steps: list[float]
    fraction_of_peak: float | None
    fraction_of_reference: float | None


@dataclass
class DraftCost:
    draft: str
    device: str
    device_name: str
    dtype: str
    context: int
    steps: int
    params: dict[str, int]
    shape: dict[str, Any]
    peak_gbs: float | None
    reference_gbs: float | None
    cuda_graphs: bool = False
    results: list[BatchResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def result(self, batch: int) -> BatchResult | None:
        return next((r for r in self.results if r.batch == batch), None)


def resolve_device(device: str) -> str:
    torch = _torch()
    if device not in ("cpu", "cuda") and not device.startswith("cuda:"):
        raise InputError(f"--device must be cpu or cuda, got {device!r}")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise InputError("--device cuda: no CUDA GPU is visible to torch here; use --device cpu")
    return device


def device_name(device: str) -> str:
    torch = _torch()
    if device.startswith("cuda"):
        return str(torch.cuda.get_device_name(torch.device(device)))
    import platform

    return f"CPU {platform.processor() or platform.machine()} ({torch.get_num_threads()} threads)"


def parse_batches(text: str) -> list[int]:
    try:
        values = [int(v) for v in str(text).replace(" ", "").split(",") if v]
    except ValueError as exc:
        raise InputError(f"--batch must be comma-separated integers like 1,8,32,64, got {text!r}") from exc
    if not values or any(not 1 <= v <= MAX_BATCH for v in values):
        raise InputError(f"--batch values must be 1..{MAX_BATCH}, got {text!r}")
    return sorted(set(values))


def parse_steps(text: str) -> int:
    """``N`` or ``1..N``: the longest proposal (every shorter one is timed on the way)."""
    t = str(text).strip()
    if ".." in t:
        lo, _, hi = t.partition("..")
        if lo.strip() != "1":
            raise InputError(f"--steps must be N or 1..N (proposals always start at step 1), got {text!r}")
        t = hi
    try:
        n = int(t)
    except ValueError as exc:
        raise InputError(f"--steps must be N or 1..N, got {text!r}") from exc
    if not 1 <= n <= MAX_STEPS:
        raise InputError(f"--steps must be 1..{MAX_STEPS}, got {n}")
    return n


def _free_bytes(device: str) -> int | None:
    torch = _torch()
    if device.startswith("cuda"):
        free, _total = torch.cuda.mem_get_info(torch.device(device))
        return int(free)
    try:
        import os

        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _check_fits(
    shape: DraftShape,
    *,
    batches: Sequence[int],
    context: int,
    steps: int,
    dtype_bytes: int,
    device: str,
    total_params: int,
) -> None:
    """Refuse up front what cannot fit (weights + the largest KV cache), instead of being killed."""
    kv = max(batches) * shape.layers * (context + steps + 1) * 2 * shape.kv_heads * shape.head_dim * dtype_bytes
    logits = max(batches) * shape.draft_vocab * 4
    need = total_params * dtype_bytes + kv + logits
    free = _free_bytes(device)
    if free is not None and need > free:
        raise InputError(
            f"needs about {need / 1e9:.1f} GB on {device} (weights {total_params * dtype_bytes / 1e9:.1f} GB, "
            f"KV cache {kv / 1e9:.1f} GB at batch {max(batches)} and context {context}) but {free / 1e9:.1f} GB "
            "is free; use smaller --batch/--context or another device"
        )


def module_params(model: Any) -> tuple[int, int]:
    """(parameter elements, buffer elements) of a built module."""
    return sum(p.numel() for p in model.parameters()), sum(b.numel() for b in model.buffers())


def measure(
    spec: ModelSpec,
    *,
    label: str | None = None,
    device: str = "cpu",
    dtype: str = "bf16",
    batches: Iterable[int] = (1, 8, 32, 64),
    context: int = 2048,
    steps: int = 3,
    warmup: int = 3,
    repeats: int = 10,
    reference_gbs: float | None = None,
    threads: int | None = None,
    cuda_graphs: bool = True,
    progress: Callable[[str], None] | None = None,
) -> DraftCost:
    """Build the draft on ``device`` and time a step and an N-step proposal at each batch size.

    ``threads`` sets torch's CPU threads (1 gives steady small-op timings on a shared machine).
    """
    from comparelib.models import params as params_mod

    torch = _torch()
    if threads is not None:
        if not 1 <= threads <= 1024:
            raise InputError(f"--threads must be 1..1024, got {threads}")
        torch.set_num_threads(threads)
    if not 1 <= context <= MAX_CONTEXT:
        raise InputError(f"--context must be 1..{MAX_CONTEXT}, got {context}")
    if not 1 <= steps <= MAX_STEPS:
        raise InputError(f"--steps must be 1..{MAX_STEPS}, got {steps}")
    if not 1 <= repeats <= 1000 or not 0 <= warmup <= 1000:
        raise InputError("repeats must be 1..1000 and warm-up 0..1000")
    batches = sorted({int(b) for b in batches})
    device = resolve_device(device)
    shape = shape_from_spec(spec)
    count = params_mod.count(spec)
    name = device_name(device)
    peak = peak_bandwidth_gbs(name) if device.startswith("cuda") else None
    if reference_gbs is None:
        reference_gbs = copy_bandwidth_gbs(device, mib=1024 if device.startswith("cuda") else 256)
    _check_fits(
        shape,
        batches=batches,
        context=context,
        steps=steps,
        dtype_bytes=DTYPES[dtype],
        device=device,
        total_params=count.total,
    )
    say = progress or (lambda _msg: None)
    say(f"building {label or spec.source} on {name} ({dtype})")
    try:
        model = build_draft(shape, device=device, dtype=dtype)
    except (RuntimeError, MemoryError) as exc:  # out of memory: say so, not a traceback
        raise InputError(f"cannot build the draft on {device} at {dtype}: {str(exc).splitlines()[0]}") from exc
    built, buffers = module_params(model)
    if built != count.total:
        raise DataError(f"built module has {built:,} parameters but the config counts {count.total:,}")
    dbytes = DTYPES[dtype]
    notes = [
        "random weights built from the config on the device; timings do not depend on the values",
        "step: one decode forward (no fc) for every sequence, attending to the KV cache of --context tokens",
        "proposal: one forward through fc (the first, over the aux states) plus steps-1 decode steps, chain drafting",
        "bytes per step: weights read (no fc), the gathered embedding rows, the KV cache read",
        "single device, no tensor parallelism: an engine serving a large target may shard the draft over its GPUs",
    ]
    graphs = bool(cuda_graphs and device.startswith("cuda"))
    notes.append(
        "GPU: each forward replayed as a CUDA graph, as SGLang does for draft decode"
        if graphs
        else "eager (no CUDA graphs): on a GPU, kernel launches can show in small-batch times"
    )
    out = DraftCost(
        draft=label or spec.source,
        device=device,
        device_name=name,
        dtype=dtype,
        context=context,
        steps=steps,
        params={
            "total": count.total,
            "excluding_embedding": count.excluding_embedding,
            "embedding": count.embedding,
            "lm_head": count.lm_head,
            "built": built,
            "buffers": buffers,
        },
        shape=asdict(shape),
        peak_gbs=peak,
        reference_gbs=reference_gbs,
        cuda_graphs=graphs,
        notes=notes,
    )
    clock = _Clock(device)
    with torch.inference_mode():
        for b in batches:
            say(f"  batch {b}")
            try:
                runner = _Runner(model, shape, batch=b, context=context, steps=steps, device=device)
            except (RuntimeError, MemoryError) as exc:
                raise InputError(
                    f"batch {b} at context {context} does not fit on {device}: {str(exc).splitlines()[0]}"
                ) from exc
            if out.cuda_graphs:
                try:
                    runner.capture(steps)
                except RuntimeError as exc:
                    out.cuda_graphs = False
                    runner.graphs = None
                    out.notes.append(f"CUDA graph capture failed ({str(exc).splitlines()[0]}); timed eagerly")
            for _ in range(warmup):
                runner.step()
                runner.proposal(steps, lambda: None)
            clock.sync()
            step_times, props = _time_runner(clock, runner, steps=steps, repeats=repeats)
            by_steps = [statistics.median(p[i] for p in props) for i in range(steps)]
            sb = step_bytes(shape, batch=b, context=context, dtype_bytes=dbytes)
            step_ms = statistics.median(step_times)
            bw = sb.step / (step_ms / 1000.0) / 1e9
            out.results.append(
                BatchResult(
                    batch=b,
                    step_ms=step_ms,
                    step_ms_spread=_spread(step_times),
                    proposal_ms=by_steps[-1],
                    bytes_per_step=sb.step,
                    bandwidth_gbs=bw,
                    first_step_ms=by_steps[0],
                    first_step_bytes=sb.first_step,
                    proposal_ms_by_steps=by_steps,
                    fraction_of_peak=bw / peak if peak else None,
                    fraction_of_reference=bw / reference_gbs if reference_gbs else None,
                )
            )
            del runner
            if device.startswith("cuda"):
                torch.cuda.empty_cache()
    del model
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return out


def _human_bytes(n: float) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB"


def _time_runner(clock: _Clock, runner: _Runner, *, steps: int, repeats: int) -> tuple[list[float], list[list[float]]]:
    """Repeated step times, and repeated proposals' cumulative times after each forward (ms)."""

    def one_step(mark: Callable[[], None]) -> None:
        runner.step()
        mark()

    step_times = [clock.time(one_step)[0] for _ in range(repeats)]
    props = [clock.time(lambda mark: runner.proposal(steps, mark)) for _ in range(repeats)]
    return step_times, props


def closeness_sentence(cost: DraftCost | Mapping[str, Any], batch: int | None = None) -> str:
    """How close the step gets to the device's memory bandwidth, in one sentence."""
    data = cost.to_json() if isinstance(cost, DraftCost) else cost
    rows = data.get("results") or []
    if not rows:
        return "no measured batch sizes"
    row = rows[0] if batch is None else next((r for r in rows if r["batch"] == batch), rows[0])
    peak, ref = data.get("peak_gbs"), data.get("reference_gbs")
    head = (
        f"{data.get('draft')}: batch {row['batch']} step {row['step_ms']:.3f} ms reads "
        f"{_human_bytes(row['bytes_per_step'])} = {row['bandwidth_gbs']:.1f} GB/s"
    )
    if peak:
        return (
            head + f", {row['bandwidth_gbs'] / peak * 100:.0f}% of {data.get('device_name')}'s {peak:.0f} GB/s peak."
        )
    if ref:
        return (
            head
            + f", {row['bandwidth_gbs'] / ref * 100:.0f}% of this device's measured copy bandwidth ({ref:.1f} GB/s)."
        )
    return head + "."


# --------------------------------------------------------------------------------------------
# Recorded figures (shipped JSON; the page cannot run a benchmark for a visitor)


def recorded_dir() -> Path:
    from comparelib.settings import BUILTIN_DIR

    return BUILTIN_DIR / "draftcost"


def load_recorded(path: str | Path) -> dict[str, Any]:
    """One recorded file: ``{"device_name", "drafts": [draft-cost objects]}`` (bench_draftcost --json)."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from exc
    if size > MAX_RECORD_BYTES:
        raise DataError(f"{p.name} is {size:,} bytes; a recorded draft-cost file is at most {MAX_RECORD_BYTES:,}")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{p.name} is not a draft-cost JSON file: {exc}") from exc
    if isinstance(data, Mapping) and "results" in data and "drafts" not in data:
        data = {"device_name": data.get("device_name"), "dtype": data.get("dtype"), "drafts": [data]}
    drafts = data.get("drafts") if isinstance(data, Mapping) else None
    if not isinstance(drafts, list) or not all(
        isinstance(d, Mapping) and isinstance(d.get("results"), list) for d in drafts
    ):
        raise DataError(
            f"{p.name}: expected an object with 'drafts' (each with 'results'), as bench_draftcost.py --json writes"
        )
    for d in drafts:
        for r in d["results"]:
            if not isinstance(r, Mapping) or not all(
                isinstance(r.get(k), (int, float)) and not isinstance(r.get(k), bool) and math.isfinite(r[k])
                for k in ("batch", "step_ms", "bytes_per_step")
            ):
                raise DataError(f"{p.name}: every result needs numeric batch, step_ms and bytes_per_step")
    return dict(data)


def recorded_files() -> list[Path]:
    d = recorded_dir()
    return sorted(d.glob("*.json")) if d.is_dir() else []


def floor_ms(bytes_per_step: int, bandwidth_gbs: float) -> float:
    """The bandwidth floor: the time to read ``bytes_per_step`` at ``bandwidth_gbs``."""
    return bytes_per_step / (bandwidth_gbs * 1e9) * 1000.0


def step_ms_for_batch(
    cost: DraftCost | Mapping[str, Any], batch: int, *, estimate: bool | None = None
) -> tuple[float, str]:
    """The step time at ``batch`` (linear between recorded batch sizes), and how it was read. ``estimate``
    (default: the record's own ``"estimate"`` flag) words it as estimated, not measured: a bandwidth
    floor (``floor_record``) is no measurement, and the page shows this text beside the number."""
    data = cost.to_json() if isinstance(cost, DraftCost) else cost
    word = "estimated" if (data.get("estimate") if estimate is None else estimate) else "measured"
    rows = sorted((r for r in data.get("results") or []), key=lambda r: r["batch"])
    if not rows:
        raise DataError(f"the draft-cost figures have no {word} batch size")
    for r in rows:
        if r["batch"] == batch:
            return float(r["step_ms"]), f"{word} at batch {batch}"
    if batch < rows[0]["batch"] or batch > rows[-1]["batch"]:
        near = rows[0] if batch < rows[0]["batch"] else rows[-1]
        return float(near["step_ms"]), f"batch {batch} not {word}; using batch {near['batch']}"
    lo = max((r for r in rows if r["batch"] < batch), key=lambda r: r["batch"])
    hi = min((r for r in rows if r["batch"] > batch), key=lambda r: r["batch"])
    f = (batch - lo["batch"]) / (hi["batch"] - lo["batch"])
    ms = float(lo["step_ms"]) + f * (float(hi["step_ms"]) - float(lo["step_ms"]))
    return ms, f"interpolated between {word} batch {lo['batch']} and {hi['batch']}"


KIMI_PAIR: tuple[str, ...] = ("registry:AQ-MedAI/Kimi-K2-Instruct-eagle3", "example:own-kimi-k2.5-draft")


def floor_record(
    sources: Sequence[str] = KIMI_PAIR,
    *,
    device_name: str = "NVIDIA H200",
    batches: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    context: int = 2048,
    dtype: str = "bf16",
) -> dict[str, Any]:
    """Not a measurement: each step's bytes read at the GPU's nominal peak bandwidth (a lower bound).

    Same shape as a recorded file, with ``"estimate": true``, so the page can show something
    before anyone has run ``bench_draftcost.py`` on that GPU.
    """
    from comparelib.models import comparison
    from comparelib.models import params as params_mod

    peak = peak_bandwidth_gbs(device_name)
    if peak is None:
        raise InputError(f"no nominal peak bandwidth known for {device_name!r}")
    if dtype not in DTYPES:
        raise InputError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    drafts = []
    for source in sources:
        entry = comparison.load_entry(source, with_header=False)
        shape = shape_from_spec(entry.spec)
        count = params_mod.count(entry.spec)
        rows = []
        for b in batches:
            sb = step_bytes(shape, batch=b, context=context, dtype_bytes=DTYPES[dtype])
            ms = floor_ms(sb.step, peak)
            rows.append(
                {
                    "batch": b,
                    "step_ms": ms,
                    "step_ms_spread": 0.0,
                    "proposal_ms": None,
                    "bytes_per_step": sb.step,
                    "bandwidth_gbs": peak,
                    "first_step_bytes": sb.first_step,
                    "fraction_of_peak": 1.0,
                }
            )
        drafts.append(
            {
                "draft": entry.label,
                "source": source,
                "device": "cuda",
                "device_name": device_name,
                "dtype": dtype,
                "context": context,
                "params": {
                    "total": count.total,
                    "excluding_embedding": count.excluding_embedding,
                    "embedding": count.embedding,
                    "lm_head": count.lm_head,
                },
                "peak_gbs": peak,
                "results": rows,
                "shape": {"hidden": shape.hidden},
            }
        )
    return {"device_name": device_name, "dtype": dtype, "context": context, "estimate": True, "drafts": drafts}


def figure_sources(own: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """(label, record): recorded files (measured), then the bandwidth-floor estimate at H200 peak.

    With the user's draft (``own``, a source as the sidebar holds it) not among the built-in pair, the
    estimate covers it too and comes first: the section starts from the user's draft, not the example.
    """
    out: list[tuple[str, dict[str, Any]]] = []
    for path in recorded_files():
        data = load_recorded(path)
        out.append(
            (f"measured: {data.get('device_name') or 'device?'}, {data.get('dtype') or ''} ({path.name})", data)
        )
    if own and own not in KIMI_PAIR:
        estimate = floor_record((own, *KIMI_PAIR))
        return [("estimate: bandwidth floor at H200 peak, with your draft (not measured)", estimate), *out]
    out.append(("estimate: bandwidth floor at H200 peak (not measured)", floor_record()))
    return out


def served_index(record: Mapping[str, Any], source: str | None, name: str | None = None) -> int | None:
    """Which of a record's drafts is the sidebar's (the draft the sweep measured): by source, else by name (a recorded
    file names its drafts without a source); None when the record has no figure for it. Never another draft in its
    place: the built-in example's step cost set against your sweep's fit would anchor the others on the wrong draft."""
    drafts = list(record.get("drafts") or [])
    for i, d in enumerate(drafts):
        if source and d.get("source") == source:
            return i
    for i, d in enumerate(drafts):
        if name and d.get("draft") == name:
            return i
    return None


def other_widths(record: Mapping[str, Any], own: int | None) -> str | None:
    """The figures' drafts of another hidden size than the served one's, said: drafts for another target, whose step
    costs show what a draft of that size costs, not a draft to serve on yours (walk AX: two Kimi-K2 drafts set beside a
    Llama-3.1-8B draft unremarked). None where all share its width, or it has no figure here."""
    drafts = list(record.get("drafts") or [])
    if own is None or not 0 <= own < len(drafts):
        return None

    def hidden(d: Mapping[str, Any]) -> int | None:
        h = (d.get("shape") or {}).get("hidden")
        return int(h) if h else None

    mine = hidden(drafts[own])
    if mine is None:
        return None
    others = [(str(d.get("draft")), hidden(d)) for i, d in enumerate(drafts) if i != own]
    wide = [(n, h) for n, h in others if h is not None and h != mine]
    if not wide:
        return None
    names = " and ".join(n for n, _ in wide) if len(wide) <= 2 else ", ".join(n for n, _ in wide)
    widths = ", ".join(sorted({f"{h:,}" for _, h in wide}))
    verb = "is a draft" if len(wide) == 1 else "are drafts"
    return (
        f"{names} {verb} of hidden size {widths} against {mine:,} in {drafts[own].get('draft')}: drafts for another "
        "target. Their columns show what a draft of that size would cost a step on your sweep, not drafts you can "
        "serve on your target."
    )


def figures_frame(record: Mapping[str, Any]) -> Any:
    """One row per draft and batch: step ms, proposal ms, GB per step, GB/s and share of the peak."""
    import pandas as pd

    rows = []
    for d in record.get("drafts") or []:
        peak = d.get("peak_gbs")
        for r in d.get("results") or []:
            rows.append(
                {
                    "draft": d.get("draft"),
                    "batch": r.get("batch"),
                    "step_ms": r.get("step_ms"),
                    "step_ms_spread": r.get("step_ms_spread"),
                    "proposal_ms": r.get("proposal_ms"),
                    "GB_per_step": (r.get("bytes_per_step") or 0) / 1e9,
                    "GB_s": r.get("bandwidth_gbs"),
                    "of_peak": (r["bandwidth_gbs"] / peak)
                    if peak and r.get("bandwidth_gbs")
                    else r.get("fraction_of_peak"),
                }
            )
    return pd.DataFrame(
        rows, columns=["draft", "batch", "step_ms", "step_ms_spread", "proposal_ms", "GB_per_step", "GB_s", "of_peak"]
    )


def side_by_side(side: Any, order: Sequence[str], measured: Sequence[Any] = (), *, acceptances: bool = False) -> Any:
    """``speedup.compare_drafts``'s (or ``compare``'s) frame as one row per num_steps: what the sweep measured
    (``measured``: its ``SweepPoint``s, with their runs), the predicted tok/s of each draft in ``order``, with
    ``acceptances`` the acceptance each prediction used ("acceptance used: <draft>"), then the acceptance each later
    draft needs to match the first one's predicted throughput. Every header says measured, predicted or used: the
    columns sit side by side and read alike."""
    import pandas as pd

    table = side.pivot(index="num_steps", columns="scenario", values="tok_s")[list(order)]
    table.columns = [f"predicted tok/s: {c}" for c in table.columns]
    if acceptances:
        used = side.pivot(index="num_steps", columns="scenario", values="accept_length")[list(order)]
        for name in order:
            table[f"acceptance used: {name}"] = used[name]
    rest = side[side["scenario"] != order[0]].set_index("num_steps")
    for name in order[1:]:
        table[f"acceptance {name} needs to match"] = rest[rest["scenario"] == name]["accept_to_match"]
    # what a reader compares: tok/s to 0.1, acceptance lengths to 0.01 (not 490.8296 and 4.2425)
    table = table.round({c: (1 if "tok/s" in c else 2) for c in table.columns})
    if measured:
        best: dict[int, Any] = {}
        for p in measured:  # the fastest run per num_steps, as the sweep's optimum reads it
            if p.num_steps in table.index and (p.num_steps not in best or p.tok_s > best[p.num_steps].tok_s):
                best[p.num_steps] = p
        tok = pd.Series({k: round(float(p.tok_s), 1) for k, p in best.items()}, dtype="float64")
        run = pd.Series(
            {k: (f"#{p.run_id}" if p.run_id is not None else None) for k, p in best.items()}, dtype="string"
        )
        table.insert(0, "measured in run", run.reindex(table.index))
        table.insert(0, "measured tok/s", tok.reindex(table.index))
    return table


def _gaps(table: Any, first: str, tolerance: float) -> list[tuple[int, float, float, str]]:
    """(num_steps, predicted, measured, where) at each measured num_steps the first draft's prediction misses."""
    if "measured tok/s" not in table.columns:
        return []
    col = f"predicted tok/s: {first}"
    out = []
    for k, row in table.dropna(subset=["measured tok/s"]).iterrows():
        measured, predicted = float(row["measured tok/s"]), float(row[col])
        if measured > 0 and abs(predicted / measured - 1) > tolerance:
            run = row["measured in run"]
            out.append((int(k), predicted, measured, f"run {run}" if isinstance(run, str) else "the measured run"))
    return out


def prediction_gaps(table: Any, first: str, tolerance: float = 0.10, *, because: str | None = None) -> str | None:
    """A sentence when the first draft's predicted tok/s misses what its runs measured by more than
    ``tolerance`` at any measured num_steps (``side_by_side``'s table), else None. On the cycle fitted to its runs
    (``compare``) that is the fit's own miss, or an acceptance typed for it; with a step cost swapped in for the
    fitted one (no figure of its own to set the others against) that step cost too. ``because`` says which
    (``gap_reason``); without it the sentence names what may differ."""
    misses = [
        f"{abs(p / m - 1):.0%} {'above' if p > m else 'below'} {where} at num_steps={k}"
        for k, p, m, where in _gaps(table, first, tolerance)
    ]
    if not misses:
        return None
    why = because or (
        "The cycle or the acceptance used for it is not what those runs had (a fit that misses them, a step cost "
        "swapped in for the fitted one, or an acceptance typed for it)."
    )
    return (
        f"The prediction for {first} is "
        + "; ".join(misses)
        + f". {why} Compare the predicted columns with each other, not with the measured one."
    )


# --------------------------------------------------------------------------------------------
# Each draft's acceptance per num_steps: the sweep's measurements, never one run's read as every position


@dataclass(frozen=True)
class Candidate:
    """A draft for the Draft cost table: its step time in the figures picked (and how it was read), and an acceptance
    typed for it. ``compare`` sets the step times against the sweep's fit through their differences.

    ``typed`` None: the acceptance the sweep measured at each num_steps it measured (``SpeedupModel.accept_at``
    elsewhere). A typed value at ``at_steps`` carries the sweep's curve up or down to pass through it."""

    label: str
    step_ms: float
    typed: float | None = None
    at_steps: int | None = None
    step_how: str = ""


def anchor_steps(model: Any) -> int:
    """The num_steps an acceptance is typed at: the largest the sweep measured an acceptance at (it measured the
    most positions; a 1-step run that accepted every drafted token says nothing of position 2)."""
    ks = [p.num_steps for p in model.measured if p.accept_length is not None]
    if not ks:
        raise DataError("the sweep measured no acceptance length to start the drafts' acceptances from")
    return max(ks)


def acceptance_at(model: Any, k: int, typed: float | None = None, at_steps: int | None = None) -> float:
    """A draft's acceptance at ``k``: the sweep's (measured at a measured num_steps, ``accept_at`` elsewhere), or,
    with ``typed`` at ``at_steps``, that curve scaled so its gain over 1 token passes through the typed value there
    (each position keeps the sweep's shape: a draft that accepts less at 4 steps accepts proportionally less at 1)."""
    from comparelib.analysis import speedup

    base = float(model.accept_at(k))
    if typed is None:
        return base
    at = at_steps if at_steps is not None else anchor_steps(model)
    if not 1.0 <= typed <= at + 1:
        raise InputError(f"an acceptance length of {typed:g} is impossible at {at} draft steps (must be 1..{at + 1})")
    ref = float(model.accept_at(at))
    if ref > 1.0:
        return min(1.0 + (base - 1.0) * (typed - 1.0) / (ref - 1.0), float(k + 1))
    # the sweep accepted nothing there: no shape to carry, so geometric through the typed value
    return speedup.geometric_accept(min(speedup.alpha_for(typed, at), 0.99), k)


def anchored(model: Any, *, served: bool = True) -> bool:
    """Whether the drafts' step costs are set against the sweep's fit: the draft the sweep measured has a figure
    (``served``) and the sweep fixes a per-step cost to add the others' differences to (not a single run's cycle with
    no verify time, ``speedup.cycle_held``)."""
    from comparelib.analysis import speedup

    return served and not speedup.cycle_held(model)


def cycle_models(model: Any, candidates: Sequence[Candidate], *, served: bool = True) -> list[Any]:
    """The ``SpeedupModel`` each draft is predicted with.

    ``served`` (the first candidate is the draft the sweep measured, its step cost read from the same figures as the
    others'): that draft keeps the sweep's fitted cycle (fixed cost and per-step cost) whatever its figure, so its
    predictions at measured num_steps are the fit's, within its residual of the runs; every other draft gets the fitted
    per-step cost plus the difference between its figure and the first's (same device, batch and method; the step
    floored at 0, its drafting part at 0 with the rest of it checking). The fitted step holds what a figure leaves
    out (the engine's own overhead, checking one more token where no verify time was recorded); a figure from another
    device or method swapped in for it put walk W's predictions 15-59% above the very runs the sweep measured.

    Not ``anchored`` (the sweep's draft has no figure here, or the sweep fixes no per-step cost): each draft's own
    figure replaces the fitted drafting cost per step (``speedup.with_draft_step``)."""
    from comparelib.analysis import speedup

    if not candidates:
        raise InputError("give at least one draft to predict")
    if not anchored(model, served=served):
        return [speedup.with_draft_step(model, c.step_ms, source=c.label) for c in candidates]
    first = candidates[0]
    out = [model]
    for c in candidates[1:]:
        diff = float(c.step_ms) - float(first.step_ms)
        step = max(model.t_step_ms + diff, 0.0)
        drafting = min(max(model.t_draft_ms + diff, 0.0), step)  # the rest of the step stays checking
        note = (
            f"{c.label}: per step {step:.3f} ms, the {model.method} {model.t_step_ms:.3f} ms {diff:+.3f} ms (the "
            f"difference of its step cost {float(c.step_ms):.3f} ms and {first.label}'s {float(first.step_ms):.3f} ms)"
        )
        out.append(replace(model, t_step_ms=step, t_draft_ms=drafting, notes=(*model.notes, note)))
    return out


def compare(
    model: Any, candidates: Sequence[Candidate], *, steps: Iterable[int] | None = None, served: bool = True
) -> Any:
    """Predicted tok/s per num_steps for each draft, as ``speedup.compare_drafts`` lays them out (``scenario`` =
    label, ``accept_to_match`` against the first), with each draft's acceptance from ``acceptance_at``: the sweep's
    measured acceptance at every num_steps it measured, not a geometric rate read from one run. ``accept_source``
    says "measured", "other batch", "predicted" or "typed". Each draft's cycle is ``cycle_models``'s: with ``served``
    (the first is the draft the sweep measured) the first keeps the fitted cycle and the others are set against it by
    the difference of their figures. ``step_ms`` is the per-step cost used, ``draft_step_ms`` its drafting part,
    ``step_figure_ms`` the draft's figure."""
    import pandas as pd

    from comparelib.analysis import speedup

    labels = [c.label for c in candidates]
    if len(set(labels)) != len(labels):
        raise InputError(f"draft labels must differ, got {labels}")
    ks = list(speedup.STEPS if steps is None else steps)
    frames = []
    for c, m in zip(candidates, cycle_models(model, candidates, served=served), strict=True):
        rows = []
        for k in ks:
            acc = acceptance_at(model, k, c.typed, c.at_steps)
            if c.typed is not None:
                source = "typed"
            elif model.measured_accept(k) is not None:
                source = "measured"
            else:
                source = "other batch" if model.elsewhere_accept(k) is not None else "predicted"
            tps = m.tok_s(k, acc)
            rows.append(
                {
                    "num_steps": int(k),
                    "scenario": c.label,
                    "accept_length": acc,
                    "accept_source": source,
                    "cycle_ms": m.cycle_ms(k),
                    "verify_ms": m.verify_ms(k),
                    "verify_share": m.verify_share(k),
                    "tok_s": tps,
                    "speedup": tps / m.baseline_tok_s if m.baseline_tok_s else None,
                    "kind": "predicted",
                    "step_ms": float(m.t_step_ms),
                    "draft_step_ms": float(m.t_draft_ms),
                    "step_figure_ms": float(c.step_ms),
                }
            )
        frames.append(pd.DataFrame(rows))
    return speedup.side_by_side_frame(frames)


def sweep_model(runs: Sequence[Any], *, target: str | None, draft: str | None) -> tuple[Any, str | None]:
    """The sweep model the tab sets drafts against, fitted to your ``draft``'s own runs by the Live results tab's rule
    (``verdicts.live_outlook``): runs of another draft and the target's own MTP runs are left out first
    (``draft.runs_of_draft``), and the words naming them are returned. Walk AV: a DeepSeek-V3 group's NEXTN runs
    were fitted as "its own runs" where the Live results tab fitted the draft's EAGLE-3 runs."""
    from comparelib.analysis import speedup
    from comparelib.models import registry
    from comparelib.models.draft import runs_of_draft

    own = runs_of_draft(runs, draft)
    mine = [r for r in runs if r not in own.left_out]
    model = speedup.model_from_runs(mine, target=target, draft=draft, accept_from=mine)
    notes = [own.note] if own.note else []
    fitted = {int(i) for i in model.fitted_run_ids}
    mtp = [r for r in runs if int(r.id) in fitted and registry.is_mtp(r)]
    if mtp:  # no draft named (nothing left out): the fit may be the target's MTP layers, said so
        notes.append(
            f"The sweep fitted is {_ids_text(int(r.id) for r in mtp)} of {registry.draft_label(mtp[0])}, the "
            "target's own MTP layers, not a draft's."
        )
    return model, " ".join(notes) or None


def _fit_words(model: Any) -> tuple[str, str, str]:
    """("fitted", "fitted to", "runs #7, #8, #9 and #10"); "calibrated", "calibrated on" for a single run's model."""
    fitted = [p.run_id for p in model.measured if p.run_id is not None]
    runs = _ids_text(fitted) if fitted else "the sweep's runs"
    verb = "fitted" if model.method == "fit" else "calibrated"
    return verb, f"{verb} {'to' if verb == 'fitted' else 'on'}", runs


def step_sources(
    model: Any,
    candidates: Sequence[Candidate],
    *,
    served: bool = True,
    device: str | None = None,
    estimate: bool = False,
) -> str:
    """Where each draft's per-step cost in the table comes from, in words (``cycle_models``' rule): the fit for the
    draft the sweep measured, the fit plus the difference of the figures for the others (which figures: ``step_how``
    and ``device``), or, not anchored, each figure in place of the fitted drafting cost."""
    if not candidates:
        return ""
    verb, to, runs = _fit_words(model)
    fit = f"{to} {runs}"
    where = f" on {device}" if device else ""
    floors = (
        " (bandwidth floors at the GPU's peak, not measurements: their difference is an estimate too)"
        if estimate
        else ""
    )
    models = cycle_models(model, candidates, served=served)
    if not anchored(model, served=served):
        each = "; ".join(f"{c.label} {c.step_ms:.2f} ms ({c.step_how or 'from the figures'})" for c in candidates)
        if served:  # the sweep's own per-step cost is unknown: nothing to set the figures against
            return (
                f"Per-step cost: the sweep measured one num_steps and no verify time, so it fixes no per-step cost to "
                f"set the figures against: each draft's own step cost{where} is its drafting cost per step, checking "
                f"one more token counted free ({each}){floors}."
            )
        return (
            f"Per-step cost: each draft's own step cost{where} in place of the {model.t_draft_ms:.2f} ms of drafting "
            f"per step {fit} ({each}){floors}."
        )
    first = candidates[0]
    checking = model.t_step_ms - model.t_draft_ms
    own = "its own run" if runs.startswith("run ") else "its own runs"
    said = (
        f"Per-step cost: {first.label}: the {model.t_step_ms:.2f} ms per step and {model.t_verify_ms:.2f} ms per "
        f"cycle {fit}, {own}"
    )
    if checking > 1e-9:
        said += f" ({model.t_draft_ms:.2f} ms of each step drafting, the rest checking, from the verify time recorded)"
    elif model.method == "fit":
        said += " (no verify time was recorded, so that step also counts checking one more token)"
    said += f"; its own figure ({first.step_ms:.2f} ms) only sets the others against it."
    out = [said]
    for c, m in zip(candidates[1:], models[1:], strict=True):
        diff = float(c.step_ms) - float(first.step_ms)
        how = (
            c.step_how
            if c.step_how == first.step_how
            else f"({c.label} {c.step_how or 'read'}, {first.label} {first.step_how or 'read'})"
        )
        line = (
            f"{c.label}: {first.label}'s {verb} {model.t_step_ms:.2f} ms per step {'+' if diff >= 0 else '-'} "
            f"{abs(diff):.2f} ms = {m.t_step_ms:.2f} ms, the difference of their step costs {how}{where} "
            f"({c.step_ms:.2f} against {first.step_ms:.2f} ms){floors}"
        )
        if model.t_step_ms + diff <= 0:
            line += f", floored at 0 (the difference is more than the whole {verb} step)"
        out.append(line + ".")
    return " ".join(out)


def anchor_problem(model: Any, served_label: str, *, in_figures: bool) -> str | None:
    """Why the figures cannot be set against the fit where the draft the sweep measured (``served_label``) has no
    figure among them (``in_figures`` False); None where it has one."""
    if in_figures:
        return None
    _verb, to, runs = _fit_words(model)
    return (
        f"{served_label}, the draft the sweep measured, has no step cost in these figures, so theirs cannot be set "
        f"against the {model.t_step_ms:.2f} ms per step {to} {runs}: each draft's own figure replaces the fitted "
        "drafting cost instead, and the predictions carry those figures' device, batch and method, not the runs'. "
        f"Compare the predicted columns with each other, not with the measured one (those are {served_label}'s "
        f"runs); pick figures that include {served_label} to set the others against its runs."
    )


def _steps_text(ks: Sequence[int]) -> str:
    ks = sorted(ks)
    if len(ks) > 2 and ks == list(range(ks[0], ks[-1] + 1)):
        return f"{ks[0]}-{ks[-1]}"
    return ", ".join(map(str, ks))


def _ids_text(ids: Iterable[int]) -> str:
    from comparelib.analysis import speedup

    return speedup.runs_text(sorted(set(ids))).replace(" (their mean)", "")


def acceptance_sources(
    model: Any, candidates: Sequence[Candidate], *, steps: Iterable[int] | None = None, served: str | None = None
) -> str:
    """Where each draft's acceptance in the table comes from, in words: the runs that measured it at each measured
    num_steps, the runs a prediction elsewhere is drawn from, and a typed value with the run it replaces. ``served``:
    the draft the sweep measured where it is not the first candidate (it has no step cost among them): every
    candidate is then assumed to have its acceptance."""
    from comparelib.analysis import speedup

    ks = list(speedup.STEPS if steps is None else steps)
    measured_k = [k for k in ks if model.measured_accept(k) is not None]
    other_k = [k for k in ks if k not in measured_k and model.elsewhere_accept(k) is not None]
    predicted_k = [k for k in ks if k not in measured_k and k not in other_k]
    fitted = [p.run_id for p in model.measured if p.accept_length is not None and p.run_id is not None]
    parts = []
    if measured_k:
        values = ", ".join(f"{model.measured_accept(k):.2f}" for k in measured_k)
        runs = [i for k in measured_k for i in model.measured_runs(k)]
        parts.append(f"measured at num_steps {_steps_text(measured_k)} ({_ids_text(runs)}: {values})")
    for k in other_k:
        e = model.elsewhere_accept(k)
        parts.append(f"at num_steps={k} {e.accept_length:.2f}, {e.words}")
    if predicted_k:
        swept = sorted({p.num_steps for p in model.measured if p.accept_length is not None})
        how = (
            "the per-position acceptance rates they recorded, the last conditional rate kept past them"
            if model.per_position
            else "a geometric fit to all of them"
            if len(swept) >= 2
            else "a geometric rate through that one num_steps"
        )
        if len(swept) == 1 and not model.per_position and model.alpha >= 0.99:  # 2.00 at 1 step: nothing rejected
            how += (
                ", which accepted every drafted token, so every further position is taken as accepted too: an upper "
                "bound until another num_steps is measured"
            )
        if len(swept) >= 2 and not model.per_position and model.accept_decayed(swept[-1] + 1) is not None:
            how += (  # SpeedupModel.accept_decayed (walk AN: the bound was said, and used, as the prediction)
                f" within num_steps {_steps_text(swept)}; past {swept[-1]}, each further step adds the share of the "
                "step before that the last two measured gains keep"
            )
        elif len(swept) >= 2:  # SpeedupModel.accept_bound
            how += ", rising no faster than the last measured gain per step"
        parts.append(
            f"at num_steps {_steps_text(predicted_k)} predicted from {_ids_text(fitted) if fitted else 'the sweep'}"
            f" (measured at num_steps {_steps_text(swept)}: {how}; never below a measurement at fewer steps)"
        )
    first = candidates[0] if candidates else None
    mine = served is None or (first is not None and served == first.label)  # the first is the sweep's draft
    whose = f"{served}'s" if served is not None else f"{first.label}'s" if first else "The sweep's"
    out = [f"{whose} acceptance: {'; '.join(parts)}."]
    for i, c in enumerate(candidates):
        if c.typed is None:
            if i or not mine:
                out.append(f"{c.label}: the same, assumed (no run of the group served it): type its own above.")
            continue
        at = c.at_steps if c.at_steps is not None else anchor_steps(model)
        ref = model.measured_accept(at)
        was = f", where {_ids_text(model.measured_runs(at))} measured {ref:.2f}" if ref is not None else ""
        out.append(
            f"{'Used for it' if not i and mine else c.label}: typed, {c.typed:.2f} at {at} steps{was}; at other "
            "num_steps the sweep's acceptance scaled to pass through it."
        )
    return " ".join(out)


def gap_reason(model: Any, first: Candidate, *, estimate: bool, served: bool = True) -> str:
    """Why the first draft's prediction can miss its own runs. On the cycle fitted to them (``anchored``): the fit's
    own miss, or the acceptance typed for it where one was typed. Otherwise what the prediction swapped in: the step
    cost picked (against the one fitted to the runs), and the typed acceptance only where one was typed."""
    at = first.at_steps if first.at_steps is not None else anchor_steps(model)
    _verb, to, runs = _fit_words(model)
    ref = model.measured_accept(at)
    was = f" where {_ids_text(model.measured_runs(at))} measured {ref:.2f}" if ref is not None else ""
    if anchored(model, served=served):
        cycle = f"{model.t_verify_ms:.2f} ms + {model.t_step_ms:.2f} ms per step"
        if first.typed is None:
            return (
                f"Its acceptance there is what those runs measured and its cycle is the one {to} "
                f"them ({cycle}), so the gap is the fit's own: those runs' cycle times do not lie on one straight "
                "line in num_steps (a disturbed run, or a cost that changes with num_steps); measure the num_steps it "
                "misses again."
            )
        return (
            f"Its cycle is the one {to} those runs ({cycle}); what differs from them is the "
            f"acceptance typed for it ({first.typed:.2f} at {at} steps{was})."
        )
    how = f", {first.step_how}" if first.step_how else ""
    step = (
        f"the step cost picked above ({first.step_ms:.2f} ms per draft step{how}) replaces the "
        f"{model.t_draft_ms:.2f} ms per step {to} {runs}"
    )
    if estimate:
        step += " (a bandwidth-floor estimate is a lower bound on the step time)"
    if first.typed is None:
        return (
            f"Its acceptance there is what those runs measured, so the gap is the cycle time: {step}, and the fit "
            "counts all of each added step's cost as drafting unless a verify time was recorded."
        )
    return (
        f"Two things differ from those runs: the acceptance typed for it ({first.typed:.2f} at {at} steps{was}), "
        f"and {step}."
    )


def best(model: Any, side: Any, candidate: Candidate, *, served: bool) -> Any:
    """The best num_steps for one draft of the table (``speedup.optimum``). The draft the sweep measured (``served``,
    no acceptance typed for it) is picked as the Live results tab picks it: on the measured tok/s at each num_steps
    the sweep measured, the prediction elsewhere; its column is the fit's own, so the two agree (walk BA: the tab named
    num_steps=3 on the fit's 1126.8 tok/s where run #7 measured 3 at 1103.5 and run #8 measured 4 at 1140.3, 3.2%
    faster). Every other draft, or one with an acceptance typed, is a prediction, and nothing is said of the runs
    against it (``its_runs``: they did not measure it)."""
    from comparelib.analysis import speedup

    frame = side[side["scenario"] == candidate.label]
    if not (served and candidate.typed is None):
        return speedup.optimum(model, frame=frame, its_runs=False)
    ks = [int(k) for k in frame["num_steps"]]
    measured = speedup.predict_frame(model, ks)[["num_steps", "pick_tok_s", "tok_s_source", "measured_runs"]]
    merged = frame.merge(measured, on="num_steps", how="left")
    predicted = merged["tok_s_source"] != "measured"  # elsewhere the table's own prediction, as shown
    merged.loc[predicted, "pick_tok_s"] = merged.loc[predicted, "tok_s"]
    return speedup.optimum(model, frame=merged)


def best_caveat(table: Any, first: str, tolerance: float = 0.10) -> str | None:
    """For the first draft's predicted best: where its predictions miss its own runs, the measured best beside it."""
    gaps = _gaps(table, first, tolerance)
    if not gaps:
        return None
    rows = table.dropna(subset=["measured tok/s"])
    k = int(rows["measured tok/s"].idxmax())
    run = rows.loc[k, "measured in run"]
    where = f" in run {run}" if isinstance(run, str) else ""
    above = all(p > m for _k, p, m, _w in gaps)
    return (
        f"Its predictions sit {'above' if above else 'away from'} the runs it was measured in (the warning above): "
        f"the measured best is num_steps={k} at {float(rows.loc[k, 'measured tok/s']):.1f} tok/s{where}."
    )
