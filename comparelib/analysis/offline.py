"""Acceptance before serving: a trained EAGLE-3 draft evaluated on hidden-state dumps, with torch.

The draft's real weights go into the module ``draftcost`` builds (laid out as SGLang 0.5.23's
``llama_eagle3.py``); the token embedding, final norm and lm_head come from the target, read
tensor by tensor (range reads on the Hub), never the whole target. Dump files are streamed with
a bounded read-ahead (a few files, whatever the dump's size), so reading overlaps the device.

One draft chain per row does the work of two: fed the target's greedy tokens, it is the replay's
own-token chain up to each row's first miss (all the replay reads), and SpecForge's dump-token
chain is recomputed only for rows that feed a differing dump token into a counted step.

Index conventions (SpecForge's ``TargetHead.preprocess`` shift and TTT loop; SGLang's chain draft):

* row ``t`` reads the aux states at position ``t`` with the embedding of token ``t+1``; step ``k``
  at row ``t`` predicts token ``t+1+k`` at RoPE position ``t+k-1`` and attends to rows ``0..t``
  (the draft-extend over verified context) plus its own earlier steps of that row;
* step 1 feeds ``fc(aux)``; later steps feed the draft's own pre-norm hidden and either its own
  token through ``d2t`` (``replay``, what an engine does) or the dump's token (teacher forcing, as
  SpecForge trains and evaluates);
* ``G[j]`` is the target's greedy token at position ``j+1``: argmax of lm_head(final norm(stored
  final state at j)) where the target is given, else stored labels, else the dump's next token;
* a generated span is a run of ``loss_mask == 1`` (the whole sequence after the first token when a
  layout has no mask); its first token is the prefill token, in no cycle; a cycle at row ``t``
  emits accepted + 1 tokens, the last cycle only the tokens still left; AL = tokens / cycles.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from comparelib import limits
from comparelib.analysis import draftcost
from comparelib.audit import dumps
from comparelib.errors import ConfigError, DataError, InputError
from comparelib.paths import resolve_user_path

MAX_STEPS = 8
BOOTSTRAP = 200
TARGET_READ_BYTES = 8 * 1024**3  # embedding + norm + lm_head of the largest targets fit
TEACHERS = ("dump", "target")
DRAFT_READ_BYTES = 16 * 1024**3
_ATTN_BUDGET = 64 * 1024**2  # floats per attention chunk (rows x heads x keys)

POSITIONS_NOTE = (
    "al_positions is NOT a serving AL: conditional per-position acceptance over every row where a cycle could "
    "start counts runs of correct rows that a real cycle jumps over, so it reads high; al_replay is the "
    "serving figure"
)
SPECFORGE_NOTE = (
    "simulated_acc_len is SpecForge's training proxy (unconditional teacher-forced per-position accuracy, "
    "a0 + a0*a1 + ..., no bonus token): shown only to explain a training log"
)


# --------------------------------------------------------------------------------------------
# Loading the draft (real weights) and the target's head tensors


_LEGACY = (
    ("midlayer.", "layers.0."),
    ("aux_norm_low.", "fc_norm.0."),
    ("aux_norm_mid.", "fc_norm.1."),
    ("aux_norm_high.", "fc_norm.2."),
    (".self_attn.", "."),
    (".mlp.", "."),
)
_PREFIXES = ("eagle_module.", "model.", "draft_model.")


def module_name(name: str) -> str:
    """A checkpoint tensor name (SpecForge, EAGLE, speculators, ModelOpt dialects) as draftcost's module names it."""
    out = name
    changed = True
    while changed:
        changed = False
        for prefix in _PREFIXES:
            if out.startswith(prefix):
                out, changed = out[len(prefix) :], True
    for old, new in _LEGACY:
        out = out.replace(old, new)
    return out


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _layer_config(config: Mapping[str, Any]) -> Mapping[str, Any]:
    inner = config.get("transformer_layer_config")
    return inner if isinstance(inner, Mapping) else config


def shape_from_weights(state: Mapping[str, Any], config: Mapping[str, Any], *, vocab: int | None) -> Any:
    """The module shape from the checkpoint's tensor shapes; fc width from the fc weight and the config."""
    cfg = _layer_config(config)

    def need(name: str) -> Any:
        if name not in state:
            have = ", ".join(sorted(state)[:8])
            raise ConfigError(
                f"the draft checkpoint has no {name} (an EAGLE-3 draft has fc, layers, norm, lm_head); it has {have}"
            )
        return state[name]

    fc = need("fc.weight")
    q = need("layers.0.q_proj.weight")
    k = need("layers.0.k_proj.weight")
    gate = need("layers.0.gate_proj.weight")
    lm_head = need("lm_head.weight")
    need("norm.weight")
    hidden = int(fc.shape[0])
    fc_in = int(fc.shape[1])
    target_hidden = _int(config.get("target_hidden_size")) or _int(cfg.get("target_hidden_size"))
    if target_hidden is None:
        target_hidden = hidden
    if fc_in % target_hidden:
        raise ConfigError(
            f"fc takes {fc_in} inputs, not a multiple of the target hidden size {target_hidden} "
            "(config target_hidden_size / hidden_size)"
        )
    heads = _int(cfg.get("num_attention_heads"))
    if heads is None or q.shape[0] % heads:
        raise ConfigError(
            f"num_attention_heads {cfg.get('num_attention_heads')!r} does not divide q_proj {q.shape[0]}"
        )
    head_dim = _int(cfg.get("head_dim")) or q.shape[0] // heads
    layers = 1 + max(int(n.split(".")[1]) for n in state if n.startswith("layers.") and n.split(".")[1].isdigit())
    eps = cfg.get("rms_norm_eps")
    rope_cfg = cfg.get("rope_parameters")
    rope: Mapping[str, Any] = rope_cfg if isinstance(rope_cfg, Mapping) else {}
    theta = cfg.get("rope_theta") or rope.get("rope_theta")
    target_vocab = vocab or _int(config.get("vocab_size")) or _int(cfg.get("vocab_size")) or int(lm_head.shape[0])
    return draftcost.DraftShape(
        hidden=hidden,
        intermediate=int(gate.shape[0]),
        heads=heads,
        kv_heads=int(k.shape[0]) // head_dim,
        head_dim=head_dim,
        vocab=target_vocab,
        draft_vocab=int(lm_head.shape[0]),
        target_hidden=target_hidden,
        num_aux=fc_in // target_hidden,
        layers=layers,
        attn_bias="layers.0.q_proj.bias" in state,
        mlp_bias="layers.0.gate_proj.bias" in state,
        fc_bias="fc.bias" in state,
        fc_norm="fc_norm.0.weight" in state,
        input_norm="input_norm.weight" in state,
        with_d2t="d2t" in state,
        with_t2d="t2d" in state,
        rms_eps=float(eps) if isinstance(eps, (int, float)) and not isinstance(eps, bool) and eps > 0 else 1e-6,
        rope_theta=float(theta) if isinstance(theta, (int, float)) and theta > 0 else 10000.0,
    )


@dataclass
class TargetHead:
    """What the evaluation needs of the target: its embedding, final norm and lm_head, and where they came from."""

    embedding: Any
    norm: Any | None
    lm_head: Any | None
    eps: float
    label: str
    read: list[str] = field(default_factory=list)


def _pick_target(names: list[str]) -> list[str]:
    def best(cands: Iterable[str]) -> list[str]:
        c = sorted(cands, key=lambda n: (len(n), n))
        return c[:1]

    out = best(n for n in names if n.endswith("embed_tokens.weight") and "mtp" not in n and "vision" not in n)
    out += best(
        n for n in names if n.endswith("norm.weight") and "layers." not in n and "vision" not in n and "embed" not in n
    )
    out += best(n for n in names if n.endswith("lm_head.weight") and "mtp" not in n)
    return out


def load_target_head(text: str) -> TargetHead:
    """The target's embedding, final norm and lm_head only (local safetensors or Hub range reads)."""
    from comparelib.models import hub

    model, tensors = hub.read_tensors(text, _pick_target, max_bytes=TARGET_READ_BYTES)
    cfg = model.config
    inner = cfg.get("text_config")
    text_cfg: Mapping[str, Any] = inner if isinstance(inner, Mapping) else cfg
    emb = next((t for n, t in tensors.items() if n.endswith("embed_tokens.weight")), None)
    if emb is None:
        raise ConfigError(f"{model.source_label} has no *embed_tokens.weight tensor; is it the target model?")
    norm = next((t for n, t in tensors.items() if n.endswith("norm.weight")), None)
    head = next((t for n, t in tensors.items() if n.endswith("lm_head.weight")), None)
    if head is None and (text_cfg.get("tie_word_embeddings") or cfg.get("tie_word_embeddings")):
        head = emb
    eps = text_cfg.get("rms_norm_eps", 1e-6)
    return TargetHead(
        embedding=emb,
        norm=norm,
        lm_head=head,
        eps=float(eps) if isinstance(eps, (int, float)) and eps > 0 else 1e-6,
        label=model.source_label,
        read=sorted(tensors),
    )


@dataclass
class LoadedDraft:
    label: str
    config: dict[str, Any]
    shape: Any
    model: Any
    d2t: Any | None  # as stored: draft id -> target id offset
    t2d: Any | None
    embedding_from: str
    rope_scaling: Mapping[str, Any] | None


def load_draft(
    text: str, *, target: TargetHead | None = None, device: str = "cpu", dtype: str = "fp32"
) -> LoadedDraft:
    """The draft's safetensors (any EAGLE-3 dialect) in draftcost's module, with the target's embedding."""
    from comparelib.models import hub

    torch = draftcost._torch()
    model_ref, raw = hub.read_tensors(text, lambda names: names, max_bytes=DRAFT_READ_BYTES)
    state = {module_name(k): v for k, v in raw.items()}
    config = model_ref.config
    own_emb = state.get("embed_tokens.weight")
    fc_out = state["fc.weight"].shape[0] if "fc.weight" in state else None
    emb = target.embedding if target is not None else own_emb
    from_target = target is not None
    if emb is not None and fc_out is not None and int(emb.shape[1]) != fc_out and own_emb is not None:
        emb, from_target = own_emb, False  # a draft narrower than its target carries its own embedding
    if emb is None:
        raise InputError(
            f"{model_ref.source_label} carries no embed_tokens.weight: give --target (the draft uses the target's "
            "embedding)"
        )
    shape = shape_from_weights(state, config, vocab=int(emb.shape[0]))
    if int(emb.shape[1]) != shape.hidden:
        raise ConfigError(f"the embedding is {list(emb.shape)} but the draft's hidden size is {shape.hidden}")
    module = draftcost.build_draft(shape, device=device, dtype=dtype)
    own = dict(module.named_parameters())
    own.update(dict(module.named_buffers()))
    missing = [n for n in own if n != "embed_tokens.weight" and n not in state]
    if missing:
        raise ConfigError(f"{model_ref.source_label}: the checkpoint lacks {', '.join(missing[:4])}")
    with torch.no_grad():
        for name, p in own.items():
            src = emb if name == "embed_tokens.weight" else state[name]
            if tuple(src.shape) != tuple(p.shape):
                raise ConfigError(f"{name}: checkpoint shape {list(src.shape)}, module {list(p.shape)}")
            p.copy_(src.to(device=device, dtype=p.dtype))
    module.requires_grad_(False)
    scaling = config.get("rope_scaling") or _layer_config(config).get("rope_scaling")
    return LoadedDraft(
        label=model_ref.source_label,
        config=config,
        shape=shape,
        model=module,
        d2t=state.get("d2t"),
        t2d=state.get("t2d"),
        embedding_from=target.label if from_target and target is not None else f"{model_ref.source_label} (its own)",
        rope_scaling=scaling if isinstance(scaling, Mapping) else None,
    )


# --------------------------------------------------------------------------------------------
# The forward: extend over the sequence, then chain steps for every row at once


def inv_freq(shape: Any, scaling: Mapping[str, Any] | None, device: str) -> Any:
    """RoPE frequencies, with Llama-3 scaling when the config asks (as SGLang's get_rope does)."""
    torch = draftcost._torch()
    half = shape.head_dim // 2
    inv = 1.0 / (shape.rope_theta ** (torch.arange(0, half, device=device, dtype=torch.float64) / max(half, 1)))
    kind = (scaling or {}).get("rope_type") or (scaling or {}).get("type")
    if kind == "llama3":
        factor = float(scaling.get("factor", 8.0))  # type: ignore[union-attr]
        low = float(scaling.get("low_freq_factor", 1.0))  # type: ignore[union-attr]
        high = float(scaling.get("high_freq_factor", 4.0))  # type: ignore[union-attr]
        old = float(scaling.get("original_max_position_embeddings", 8192))  # type: ignore[union-attr]
        wavelen = 2 * math.pi / inv
        smooth = ((old / wavelen) - low) / (high - low)
        scaled = torch.where(wavelen > old / low, inv / factor, inv)
        mid = (wavelen <= old / low) & (wavelen >= old / high)
        inv = torch.where(mid, (1 - smooth) * inv / factor + smooth * inv, scaled)
    return inv.float()


class Forward:
    """The draft's forward over one sequence, as SpecForge's TTT and SGLang's chain draft compute it."""

    def __init__(self, draft: LoadedDraft, *, rope: Any | None = None, fused: bool = True) -> None:
        self.torch = draftcost._torch()
        self.m, self.s = draft.model, draft.shape
        self.inv = rope if rope is not None else inv_freq(draft.shape, draft.rope_scaling, str(self._device()))
        self.hot = None
        self._use_flash = fused  # False: the chunked attention everywhere (the reference the fused one matches)
        self.fused = 0  # attention calls that ran torch's fused flash kernel
        # positions of the sequences (draft forward rows, one per dump token) whose dump-token chain was computed:
        # those that need it, or every one of a file where most do (one fused pass); what that chain costs
        self.teacher_rows = 0
        # positions that need it: a dump token that differs from the target's is fed into a step some figure counts
        self.teacher_tokens = 0
        if draft.d2t is not None:
            d2t = draft.d2t.to(self._device()).long()
            self.hot = d2t + self.torch.arange(d2t.shape[0], device=d2t.device)

    def _device(self) -> Any:
        return self.m.lm_head.weight.device

    def _cos_sin(self, pos: Any) -> tuple[Any, Any]:
        ang = pos.float()[:, None] * self.inv[None, :]
        dt = self.m.lm_head.weight.dtype
        return ang.cos().to(dt), ang.sin().to(dt)

    def _rope(self, x: Any, cos: Any, sin: Any) -> Any:
        half = self.s.head_dim // 2
        if half == 0:
            return x
        c, s_ = cos[:, None, :], sin[:, None, :]
        x1, x2 = x[..., :half], x[..., half : 2 * half]
        rot = self.torch.cat([x1 * c - x2 * s_, x2 * c + x1 * s_], dim=-1)
        return rot if 2 * half == x.shape[-1] else self.torch.cat([rot, x[..., 2 * half :]], dim=-1)

    def to_target(self, draft_ids: Any) -> Any:
        ids = draft_ids if self.hot is None else self.hot[draft_ids]
        return ids.clamp(0, self.s.vocab - 1)  # an out-of-range d2t is reported by the lint, not a crash here

    def logits(self, hidden: Any) -> Any:
        return self.m.lm_head(self.m.norm(hidden))

    def project(self, aux: Any) -> Any:
        m, s, torch = self.m, self.s, self.torch
        h = aux
        if m.input_norm is not None:
            h = m.input_norm(h)
        if m.fc_norm is not None:
            h = torch.cat([n(c) for n, c in zip(m.fc_norm, h.chunk(s.num_aux, dim=-1), strict=False)], dim=-1)
        return m.fc(h)

    def _flash(self, q: Any, k: Any, v: Any) -> tuple[Any, Any] | None:
        """Causal attention of all rows over all rows with its log-sum-exp, from torch's fused flash kernel
        (CUDA, half precision); None where that kernel does not apply, and the chunked path runs instead."""
        torch, s = self.torch, self.s
        if not self._use_flash or q.device.type != "cuda" or q.dtype not in (torch.bfloat16, torch.float16):
            return None
        op = getattr(torch.ops.aten, "_scaled_dot_product_flash_attention", None)
        if op is None or s.head_dim > 256 or s.head_dim % 8:
            self._use_flash = False
            return None
        rep = s.heads // s.kv_heads
        kk = k.repeat_interleave(rep, dim=1) if rep > 1 else k
        vv = v.repeat_interleave(rep, dim=1) if rep > 1 else v
        try:
            res = op(q.transpose(0, 1)[None], kk.transpose(0, 1)[None], vv.transpose(0, 1)[None], 0.0, True, False,
                     scale=1.0 / math.sqrt(s.head_dim))  # fmt: skip
        except (RuntimeError, TypeError):  # an older/newer op signature or an unsupported shape
            self._use_flash = False
            return None
        self.fused += 1
        return res[0][0].transpose(0, 1), res[1][0].transpose(0, 1).float()

    def _context(self, q: Any, ctx_k: Any, ctx_v: Any, rows: Any, all_rows: bool) -> tuple[Any, Any]:
        """q [N, heads, d] (rows ``rows``) over context keys ``0..row``: (output, log-sum-exp [N, heads])."""
        torch, s = self.torch, self.s
        if all_rows:
            got = self._flash(q, ctx_k, ctx_v)
            if got is not None:
                return got
        rep = s.heads // s.kv_heads
        scale = 1.0 / math.sqrt(s.head_dim)
        n, total = q.shape[0], ctx_k.shape[0]
        chunk = max(1, _ATTN_BUDGET // max(1, s.heads * total))
        keys = (ctx_k.repeat_interleave(rep, dim=1) if rep > 1 else ctx_k).float()
        vals = (ctx_v.repeat_interleave(rep, dim=1) if rep > 1 else ctx_v).float()
        cols = torch.arange(total, device=q.device)
        outs, lses = [], []
        for a in range(0, n, chunk):
            sc = torch.einsum("nhd,lhd->nhl", q[a : a + chunk].float(), keys) * scale
            sc = sc.masked_fill((cols[None, :] > rows[a : a + chunk, None])[:, None, :], float("-inf"))
            lse = torch.logsumexp(sc, dim=-1)
            outs.append(torch.einsum("nhl,lhd->nhd", torch.exp(sc - lse[..., None]), vals).to(q.dtype))
            lses.append(lse)
        return torch.cat(outs, dim=0), torch.cat(lses, dim=0)

    def _attend(
        self, q: Any, ctx_k: Any, ctx_v: Any, rows: Any, diag_k: list[Any], diag_v: list[Any], all_rows: bool
    ) -> Any:
        """q [N, heads, d] for rows ``rows`` against context keys ``0..row`` and the row's own chain keys.

        The context part and its log-sum-exp come first (a fused kernel where it applies); each row's own
        earlier chain keys are a few dot products merged in by log-sum-exp, as SpecForge's flash backend does.
        """
        torch, s = self.torch, self.s
        out, lse = self._context(q, ctx_k, ctx_v, rows, all_rows)
        if isinstance(diag_k, list) and not diag_k:
            return out
        scale = 1.0 / math.sqrt(s.head_dim)
        qf = q.float()

        def heads(x: Any) -> Any:
            return x if x.dtype == torch.float32 and x.shape[1] == s.heads else self.widen(x)

        stacked = not isinstance(diag_k, list)  # [N, heads, m, d] fp32 (a chain's buffer) or a list of [N, kvh, d]
        if stacked:
            own = torch.einsum("nhd,nhmd->nhm", qf, diag_k) * scale
        else:
            own = torch.stack([(qf * heads(dk)).sum(-1) * scale for dk in diag_k], dim=-1)  # [N, heads, m]
        top = torch.maximum(lse, own.amax(-1))
        w_ctx = torch.exp(lse - top)
        w_own = torch.exp(own - top[..., None])
        num = out.float() * w_ctx[..., None]
        if stacked:
            num = num + torch.einsum("nhm,nhmd->nhd", w_own, diag_v)
        else:
            for i, dv in enumerate(diag_v):
                num = num + w_own[..., i, None] * heads(dv)
        return (num / (w_ctx + w_own.sum(-1))[..., None]).to(q.dtype)

    def widen(self, x: Any) -> Any:
        """A chain key or value [N, kv_heads, d] as fp32 with every query head's copy (kept so, once a step)."""
        rep = self.s.heads // self.s.kv_heads
        return (x.repeat_interleave(rep, dim=1) if rep > 1 else x).float()

    def run(
        self,
        embeds: Any,
        hidden: Any,
        pos: Any,
        rows: Any,
        cache: list[tuple[Any, Any]] | None,
        diag: list[Any] | None,
        *,
        all_rows: bool = False,
    ) -> tuple[Any, list[tuple[Any, Any]]]:
        """One forward for N rows. ``cache`` None: the extend (causal over these rows, which become the cache).

        ``all_rows``: the rows are exactly 0..N-1 of the cache, so the context part is plain causal attention.
        Returns the pre-norm hidden (the next step's input) and each layer's new (k, v) [N, kv_heads, d].
        """
        torch, m, s = self.torch, self.m, self.s
        from torch.nn import functional as F

        n = embeds.shape[0]
        cos, sin = self._cos_sin(pos)
        h = self.project(hidden) if cache is None else hidden
        residual = h
        new: list[tuple[Any, Any]] = []
        for i, layer in enumerate(m.layers):
            if layer.first:
                residual = h
                x = torch.cat([layer.input_layernorm(embeds), layer.hidden_norm(h)], dim=-1)
            else:
                residual = h + residual
                x = layer.input_layernorm(residual)
            q = self._rope(layer.q_proj(x).view(n, s.heads, s.head_dim), cos, sin)
            k = self._rope(layer.k_proj(x).view(n, s.kv_heads, s.head_dim), cos, sin)
            v = layer.v_proj(x).view(n, s.kv_heads, s.head_dim)
            new.append((k, v))
            if cache is None:
                attn = self._attend(q, k, v, rows, [], [], all_rows)
            elif diag and isinstance(diag[i], _ChainKV):
                dk, dv = diag[i].add(k, v)
                attn = self._attend(q, cache[i][0], cache[i][1], rows, dk, dv, all_rows)
            else:
                dk, dv = diag[i] if diag else ([], [])
                attn = self._attend(q, cache[i][0], cache[i][1], rows, [*dk, k], [*dv, v], all_rows)
            h = layer.o_proj(attn.reshape(n, s.heads * s.head_dim))
            residual = h + residual
            x = layer.post_attention_layernorm(residual)
            h = layer.down_proj(F.silu(layer.gate_proj(x)) * layer.up_proj(x))
        return h + residual, new

    def _chain(self, hidden0: Any, cache: Any, first: Any, inputs: Any, rows: Any, steps: int, all_rows: bool) -> Any:
        """Draft tokens [N, steps] of rows ``rows``: step 1 given, step k fed ``inputs[:, k-2]`` (target ids)."""
        torch, m = self.torch, self.m
        out = torch.empty(rows.shape[0], steps, dtype=torch.long, device=first.device)
        out[:, 0] = first
        hidden = hidden0
        diag = [_ChainKV(self, rows.shape[0], steps - 1) for _ in m.layers]
        for k in range(2, steps + 1):
            hidden, _new = self.run(
                m.embed_tokens(inputs[:, k - 2]), hidden, rows + k - 1, rows, cache, diag, all_rows=all_rows
            )
            out[:, k - 1] = self.to_target(self.logits(hidden).argmax(-1))
        return out

    def launch(self, ids: Any, aux: Any, g: Any, steps: int, mask: Any | None = None) -> ChainState:
        """Queue the target-token chain for every row of one sequence (no host sync).

        ``g`` [L] on the device: G[j], the target's greedy token at position j+1 (-1 unknown). Step k at row
        t is fed G[t+k-1], the target's token at position t+k. Up to a row's first miss that is exactly the
        token the draft fed itself (replay), so this one chain gives the replay's run lengths; the dump's
        token is fed where G is unknown (the run has ended there already). ``mask``: the dump's loss mask.
        """
        torch, m = self.torch, self.m
        length = ids.shape[0]
        dev = self._device()
        rows = torch.arange(length, device=dev)
        ids = ids.to(dev, non_blocking=True)
        nxt = torch.cat([ids[1:], ids.new_zeros(1)])  # embedding of token t+1 (0 past the end)
        hidden0, cache = self.run(m.embed_tokens(nxt), aux, rows, rows, None, None, all_rows=True)
        first = self.to_target(self.logits(hidden0).argmax(-1))
        dump = torch.cat([ids, ids.new_zeros(steps + 1)])  # the dump's token at each position
        gp = torch.cat([g.to(dev), g.new_full((steps + 1,), -1).to(dev)])
        prev = torch.cat([gp.new_full((1,), -1), gp[:-1]])  # G[j-1]: the target's token at position j
        fed = torch.where(prev >= 0, prev, dump)
        at = rows[:, None] + torch.arange(2, steps + 1, device=dev)[None, :]  # positions fed at steps 2..K
        chain = self._chain(hidden0, cache, first, fed[at], rows, steps, True)
        want = gp[rows[:, None] + torch.arange(1, steps + 1, device=dev)[None, :]]
        run = ((chain == want) & (want >= 0)).int().cumprod(dim=1).sum(dim=1)
        # the dump-token chain leaves this one from a row's first differing fed token on; it matters only where
        # a figure reads the step: step k at row t where loss_mask[t+k-1] (SpecForge's rule, last zeroed), which
        # also holds every step the conditional acc reads (they lie inside a generated span)
        if mask is None:
            counted = torch.ones(length, dtype=torch.long, device=dev)
        else:
            counted = mask.to(dev, non_blocking=True).long().clone()
        counted = torch.cat([counted[:-1], counted.new_zeros(steps + 2)])  # last position zeroed, no host sync
        left = (fed[at] != dump[at]).int().cumsum(dim=1) > 0
        differ = (left & (counted[at - 1] > 0)).any(dim=1)
        return ChainState(hidden0, cache, first, dump[at], rows, chain, run, differ)

    def teacher(self, st: ChainState, steps: int, differ: Any | None = None) -> Any | None:
        """The dump-token (teacher-forced) chain [L, steps]: the target-token chain's tokens, recomputed only
        for the rows where a dump token fed at some step differs from the target's; None where no row does.
        ``differ``: ``st.differ`` already on the host (else one host sync here)."""
        if differ is None:
            need = st.differ.nonzero().flatten()
        else:
            need = differ.nonzero().flatten()
            if need.numel() and need.device != st.rows.device:
                need = need.pin_memory().to(st.rows.device, non_blocking=True) if _cuda(st.rows) else need
        n = int(need.shape[0])
        if n == 0 or steps == 1:
            return None
        self.teacher_tokens += n
        if 2 * n > st.rows.shape[0]:  # most rows: one fused pass over all (the others' extra steps are unused)
            self.teacher_rows += int(st.rows.shape[0])
            return self._chain(st.hidden0, st.cache, st.first, st.dump_fed, st.rows, steps, True)
        self.teacher_rows += n
        sub = self._chain(st.hidden0[need], st.cache, st.first[need], st.dump_fed[need], need, steps, False)
        out = st.chain.clone()
        out[need] = sub
        return out

    def both_chains(self, ids: Any, aux: Any, g: Any, steps: int, mask: Any | None = None) -> tuple[Any, Any]:
        """(replay run lengths [L], teacher-forced chain tokens [L, steps]) of one sequence, on the device; the
        teacher-forced tokens are exact where a figure reads them (``mask``: the dump's loss mask)."""
        st = self.launch(ids, aux, g, steps, mask)
        teach = self.teacher(st, steps)
        return st.run, st.chain if teach is None else teach


class _ChainKV:
    """One layer's chain keys and values of every row, [N, heads, steps-1, d] fp32, filled a step at a time:
    a step attends to them with two batched products instead of a pass per earlier step."""

    def __init__(self, fwd: Forward, n: int, slots: int) -> None:
        torch, s = fwd.torch, fwd.s
        dev = fwd._device()
        self.fwd = fwd
        self.k = torch.empty(n, s.heads, max(slots, 1), s.head_dim, dtype=torch.float32, device=dev)
        self.v = torch.empty_like(self.k)
        self.m = 0

    def add(self, k: Any, v: Any) -> tuple[Any, Any]:
        """Store this step's [N, kv_heads, d] key and value; all so far as [N, heads, m, d] views."""
        self.k[:, :, self.m] = self.fwd.widen(k)
        self.v[:, :, self.m] = self.fwd.widen(v)
        self.m += 1
        return self.k[:, :, : self.m], self.v[:, :, : self.m]


def _cuda(t: Any) -> bool:
    return bool(t.device.type == "cuda")


class _Copy:
    """Device tensors copied to the host without a sync now: ``get()`` waits for just this copy."""

    def __init__(self, **tensors: Any) -> None:
        torch = draftcost._torch()
        first = next(iter(tensors.values()))
        self.event = None
        if _cuda(first):
            self.host = {k: v.to("cpu", non_blocking=True) for k, v in tensors.items()}
            self.event = torch.cuda.Event()
            self.event.record()
        else:
            self.host = dict(tensors)

    def get(self) -> dict[str, Any]:
        if self.event is not None:
            self.event.synchronize()
            self.event = None
        return self.host


@dataclass
class ChainState:
    """One sequence's queued chain: what the teacher-forced recompute and the counting need."""

    hidden0: Any
    cache: Any
    first: Any
    dump_fed: Any  # [L, steps-1]: the dump's token fed at steps 2..K
    rows: Any
    chain: Any  # [L, steps]: target-token chain
    run: Any  # [L]: consecutive correct steps (replay's run lengths)
    differ: Any  # [L] bool: rows whose dump-token chain leaves this one


# --------------------------------------------------------------------------------------------
# Target tokens, spans, counting


def target_tokens(
    sample: Any, head: TargetHead | None, device: str, dtype: Any, *, normed: bool | None, on_device: bool = False
) -> Any:
    """G[j]: the target's greedy token at position j+1 (-1 where unknown); on the host unless ``on_device``."""
    torch = draftcost._torch()
    ids = sample.input_ids
    if head is not None and head.lm_head is not None and sample.final is not None:
        w = head.lm_head.to(device=device, dtype=dtype)
        nw = head.norm.to(device=device, dtype=dtype) if head.norm is not None and normed is False else None
        final = sample.final.to(device=device, non_blocking=True)
        out = []
        for a in range(0, final.shape[0], 512):
            h = final[a : a + 512].to(dtype=dtype)
            if nw is not None:
                h = torch.nn.functional.rms_norm(h.float(), (h.shape[-1],), nw.float(), head.eps).to(dtype)
            out.append((h @ w.T).argmax(-1))
        got = torch.cat(out)
        return got if on_device else got.cpu()
    if sample.labels is not None and sample.labels.shape[0] == ids.shape[0]:
        got = sample.labels.long()
    else:
        got = torch.cat([ids[1:], ids.new_full((1,), -1)])
    return got.to(device, non_blocking=True) if on_device else got


def spans(sample: Any) -> list[tuple[int, int]]:
    """Generated spans [s, e): runs of loss_mask == 1 (from token 1 on); one span after token 0 without a mask."""
    length = int(sample.input_ids.shape[0])
    if sample.loss_mask is None:
        return [(1, length)] if length >= 3 else []
    mask = [int(v) for v in sample.loss_mask.tolist()]
    out, start = [], None
    for i, v in enumerate([*mask, 0]):
        if v and start is None:
            start = max(i, 1)
        elif not v and start is not None:
            if i - start >= 2:
                out.append((start, i))
            start = None
    return out


def run_lengths(chain: Any, g: Any, steps: int) -> list[int]:
    """Per row, consecutive correct steps from step 1 (step k at row t is judged against G[t+k])."""
    torch = draftcost._torch()
    length = chain.shape[0]
    gp = torch.cat([g, g.new_full((steps + 1,), -2)])
    idx = torch.arange(length)[:, None] + torch.arange(1, steps + 1)[None, :]
    want = gp[idx]
    ok = (chain.cpu() == want) & (want >= 0)
    return ok.int().cumprod(dim=1).sum(dim=1).tolist()


def replay_counts(run: Sequence[int], spans_: Sequence[tuple[int, int]], steps: int) -> tuple[int, int]:
    """(cycle tokens, cycles) of the greedy chain schedule with ``steps`` draft tokens per cycle."""
    tokens = cycles = 0
    for s, e in spans_:
        t = s - 1
        while (left := e - t - 2) > 0:
            a = min(run[t], steps)
            tokens += min(a + 1, left)
            cycles += 1
            t += a + 1
    return tokens, cycles


@dataclass
class _SampleStats:
    name: str
    domain: str | None
    tokens: int
    rows: int
    replay: list[tuple[int, int]]  # per K (1..MAX): (cycle tokens, cycles)
    cond_num: list[int]  # per k: rows with >= k consecutive teacher-forced correct
    cond_den: list[int]  # per k: rows with >= k-1 of them
    sf_correct: list[int]  # SpecForge per-position correct, unconditional
    sf_denom: list[int]
    ceiling_hits: int = 0
    ceiling_total: int = 0


# --------------------------------------------------------------------------------------------
# Vocabulary ceiling and mapping lint


def mapping_findings(d2t: Any | None, t2d: Any | None, *, draft_vocab: int, vocab: int) -> list[dict[str, str]]:
    """What is wrong with a draft's d2t/t2d, each as {severity, code, message}."""
    torch = draftcost._torch()
    out: list[dict[str, str]] = []

    def add(sev: str, code: str, msg: str) -> None:
        out.append({"severity": sev, "code": code, "message": msg})

    pruned = draft_vocab < vocab
    hot = None
    if d2t is None:
        if pruned:
            add(
                "error",
                "d2t_missing",
                f"no d2t with a pruned draft vocabulary ({draft_vocab} of {vocab}): vLLM then maps draft ids to "
                "target ids 0..N-1 without a word (NVIDIA-NeMo/Automodel PR #2447) and acceptance collapses",
            )
    else:
        d = d2t.long().flatten()
        if d.shape[0] != draft_vocab:
            add("error", "d2t_shape", f"d2t has {d.shape[0]} entries; the draft lm_head has {draft_vocab} rows")
        else:
            hot = d + torch.arange(draft_vocab)
            if pruned and bool((d == 0).all()):
                add(
                    "error",
                    "d2t_identity",
                    f"d2t is all zeros (identity) with a pruned vocabulary ({draft_vocab} of {vocab}): draft ids are "
                    "read as target ids 0..N-1",
                )
            bad = int(((hot < 0) | (hot >= vocab)).sum())
            if bad:
                add("error", "d2t_range", f"{bad} d2t entries map outside the target vocabulary 0..{vocab - 1}")
            dup = draft_vocab - int(torch.unique(hot).numel())
            if dup:
                add("error", "d2t_duplicates", f"{dup} draft ids map to a target id another draft id already has")
    if t2d is not None:
        t = t2d.flatten()
        if t.shape[0] != vocab:
            add("error", "t2d_shape", f"t2d has {t.shape[0]} entries; the target vocabulary has {vocab}")
        elif hot is not None:
            want = torch.zeros(vocab, dtype=torch.bool)
            ok = hot[(hot >= 0) & (hot < vocab)]
            want[ok] = True
            diff = int((want != t.bool()).sum())
            if diff:
                add(
                    "error",
                    "t2d_inconsistent",
                    f"t2d disagrees with d2t on {diff} target ids (a mapping regenerated on resume: SpecForge PR "
                    "#534); training then supervises other tokens than the draft emits",
                )
    elif d2t is not None and pruned:
        add("info", "t2d_missing", "no t2d: training-side consistency with d2t cannot be checked")
    return out


def domain_map(path: str | Path) -> dict[str, str]:
    """Sample key -> domain from a prepared JSONL (row i is SpecForge data_i; ids match ModelOpt conversation ids).

    The domain is the one the Dataset audit reads (``conversations.stated_domain``: ``domain``, ``category``,
    ``task_category``, normalised alike), so both pages name one mix; a row stating none is keyed by the
    sub-dataset its ``source``, ``dataset`` or ``task`` names, as "source: <name>".
    """
    import json

    from comparelib.audit.conversations import stated_domain

    p = resolve_user_path(path, "data file")
    out: dict[str, str] = {}
    try:
        with p.open("rb") as fh:
            for i, line in enumerate(limits.iter_lines(fh, str(p))):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                    raise DataError(f"{p.name} line {i + 1} is not JSON: {exc}") from None
                if not isinstance(row, Mapping):
                    continue
                stated = stated_domain(row)
                if stated is not None:
                    dom = stated[1]
                else:  # the sub-dataset named, normalised as a stated domain is
                    named = next((row[k] for k in ("source", "dataset", "task") if isinstance(row.get(k), str)), "")
                    sub = stated_domain({"domain": named})
                    if sub is None:
                        continue
                    dom = f"source: {sub[1]}"
                out[f"#{i}"] = str(dom)
                rid = row.get("conversation_id", row.get("id"))
                if rid is not None:
                    out[f"id:{rid}"] = str(dom)
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None
    return out


def _domain_of(sample: Any, domains: Mapping[str, str] | None) -> str | None:
    if not domains:
        return None
    if sample.conversation_id is not None and f"id:{sample.conversation_id}" in domains:
        return domains[f"id:{sample.conversation_id}"]
    if sample.index is not None:
        return domains.get(f"#{sample.index}")
    return None


# --------------------------------------------------------------------------------------------
# The evaluation


@dataclass
class Evaluation:
    draft: str
    target: str | None
    dumps: str
    format: str | None
    labels_from: str
    samples: int
    tokens: int
    rows: int
    by_steps: list[dict[str, Any]]
    acc: list[float | None]
    acc_unconditional: list[float | None]
    by_domain: dict[str, Any]
    vocab: dict[str, Any]
    device: str
    dtype: str
    seconds: float
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    teacher: str = "dump"
    # positions (of ``tokens``, not of ``rows``: walk X read "teacher_rows 296" beside "rows 280" as more teacher rows
    # than rows) where a dump token that differs from the target's is fed into a step some figure counts, so the
    # dump-token chain is recomputed there; the rest share the target-token chain. 0 with ``teacher="target"``.
    teacher_tokens: int = 0
    # positions the dump-token chain was computed over: ``teacher_tokens``, or every position of a file where most
    # needed it (one fused pass). Its cost, for benchmarks/bench_offline.py; not in the JSON (``teacher_rows``).
    teacher_computed: int = field(default=0, repr=False)
    attention: str = "chunked"  # or "fused": torch's flash kernel for the context part

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict

        out = asdict(self)
        del out["teacher_computed"]  # what a pass cost, not what the dump holds
        out["tokens_per_second"] = self.tokens / self.seconds if self.seconds > 0 else None
        return out

    @property
    def teacher_rows(self) -> int:
        """``teacher_computed``, by the name benchmarks/bench_offline.py reads: draft forward rows of the dump-token
        chain (positions, counted against ``tokens``)."""
        return self.teacher_computed


def teacher_words(teacher_tokens: int, tokens: int, rows: int) -> str:
    """What ``teacher_tokens`` counts, against ``tokens`` (not ``rows``, which counts fewer positions)."""
    return (
        f"teacher_tokens: at {teacher_tokens:,} of the {tokens:,} tokens a dump token that differs from the "
        "target's is fed into a step the teacher-forced figures count, so the dump-token chain was recomputed "
        f"there (rows, {rows:,}, counts only the positions where a cycle could start in a generated span)"
    )


def _ratio(n: float, d: float) -> float | None:
    return n / d if d else None


def _figures(stats: Sequence[_SampleStats], steps: int) -> dict[str, Any]:
    """Pooled AL/acc figures over ``stats`` (one bootstrap resample or the whole set)."""
    out: dict[str, Any] = {"replay": [], "positions": [], "sf": []}
    for k in range(steps):
        tok = sum(s.replay[k][0] for s in stats)
        cyc = sum(s.replay[k][1] for s in stats)
        out["replay"].append(_ratio(tok, cyc))
    acc = [_ratio(sum(s.cond_num[k] for s in stats), sum(s.cond_den[k] for s in stats)) for k in range(steps)]
    sf = [_ratio(sum(s.sf_correct[k] for s in stats), sum(s.sf_denom[k] for s in stats)) for k in range(steps)]
    out["acc"], out["sf_acc"] = acc, sf
    for k in range(steps):
        prod, al, ok = 1.0, 1.0, True
        for a in acc[: k + 1]:
            if a is None:
                ok = False
                break
            prod *= a
            al += prod
        out["positions"].append(al if ok else None)
        cum, total = 1.0, 0.0
        for a in sf[: k + 1]:  # SpecForge Evaluator._simulated_acc_len
            cum *= a or 0.0
            total += cum
        out["sf"].append(total)
    return out


def _interval(values: list[float | None]) -> list[float] | None:
    vals = sorted(v for v in values if v is not None)
    if len(vals) < 10:
        return None
    lo = vals[int(0.025 * (len(vals) - 1))]
    hi = vals[int(math.ceil(0.975 * (len(vals) - 1)))]
    return [lo, hi]


def _summarise(stats: list[_SampleStats], steps: int, *, bootstrap: int, seed: int) -> dict[str, Any]:
    import random

    fig = _figures(stats, steps)
    boots: list[dict[str, Any]] = []
    if len(stats) >= 2 and bootstrap > 0:
        rng = random.Random(seed)
        for _ in range(bootstrap):
            boots.append(_figures([stats[rng.randrange(len(stats))] for _ in stats], steps))
    by_steps = []
    for k in range(steps):
        by_steps.append(
            {
                "steps": k + 1,
                "al_replay": fig["replay"][k],
                "al_replay_ci": _interval([b["replay"][k] for b in boots]) if boots else None,
                "al_positions": fig["positions"][k],
                "al_positions_ci": _interval([b["positions"][k] for b in boots]) if boots else None,
                "cycles": sum(s.replay[k][1] for s in stats),
                "cycle_tokens": sum(s.replay[k][0] for s in stats),
                "simulated_acc_len": fig["sf"][k],
            }
        )
    return {"by_steps": by_steps, "acc": fig["acc"], "acc_unconditional": fig["sf_acc"]}


@dataclass
class _Pending:
    sample: Any
    spans: list[tuple[int, int]]
    length: int
    g: Any  # on the device
    chain: ChainState
    copied: _Copy  # g, run, differ, chain on the host once the target-token chain is done
    teach: _Copy | None = None  # the dump-token chain's tokens on the host


_ON_DEVICE = ("aux", "final", "input_ids", "loss_mask", "labels")


def _prefetch(samples: Iterable[Any], device: str, workers: int = 4) -> Iterable[tuple[Any, Any, str | None]]:
    """``samples`` read ahead on a thread, in order, at most ``workers`` + 2 in memory (flat in the number
    of files), each as (host sample, the same on ``device``, why it must be left out or None). On CUDA a
    pool of ``workers`` threads copies each (memory-mapped) file to the device on side streams: the copies
    overlap the compute stream's work and never wait for it (a copy from pageable memory on the compute
    stream would), and no page-locked memory is allocated (its allocation stalls the launching thread).
    The NaN/inf check runs where the copy does (on the device, syncing only that side stream), never on
    the compute thread."""
    import dataclasses
    import queue
    import threading
    from concurrent.futures import Future, ThreadPoolExecutor

    torch = draftcost._torch()
    cuda = device.startswith("cuda")
    done = object()
    q: queue.Queue[Any] = queue.Queue(maxsize=workers)
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dump-copy") if cuda else None
    local = threading.local()

    def ready(sample: Any) -> tuple[Any, Any, str | None]:
        if not hasattr(local, "stream"):
            local.stream = torch.cuda.Stream(device=device)
        with torch.cuda.stream(local.stream):  # ATen copies let go of the GIL; blocking on this stream only
            moved = {n: getattr(sample, n).to(device) for n in _ON_DEVICE if getattr(sample, n) is not None}
            dev = dataclasses.replace(sample, **moved)
            bad = dumps.nonfinite(dev)
        return sample, dev, bad

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for sample in samples:
                item = pool.submit(ready, sample) if pool is not None else (sample, sample, dumps.nonfinite(sample))
                if not put(item):
                    return
            put(done)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the consumer
            put(exc)

    thread = threading.Thread(target=work, name="dump-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            host, dev, bad = item.result() if isinstance(item, Future) else item
            if cuda:  # the compute stream uses them now: their blocks wait for it before reuse
                for n in _ON_DEVICE:
                    t = getattr(dev, n)
                    if t is not None:
                        t.record_stream(torch.cuda.current_stream())
            yield host, dev, bad
    finally:
        stop.set()
        thread.join(timeout=5)
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _resolve_dtype(name: str) -> Any:
    return draftcost._torch_dtype(name)


def evaluate(
    draft: str,
    dumps_dir: str | Path,
    *,
    target: str | None = None,
    steps: int = MAX_STEPS,
    device: str = "cpu",
    dtype: str = "fp32",
    max_samples: int | None = None,
    domains: Mapping[str, str] | None = None,
    bootstrap: int = BOOTSTRAP,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    loaded: tuple[LoadedDraft, TargetHead | None] | None = None,
    teacher: str = "dump",
) -> Evaluation:
    """Evaluate ``draft`` on the dumps in ``dumps_dir`` for 1..steps draft tokens per cycle, in one pass.

    ``teacher``: the tokens the teacher-forced figures (acc, al_positions, simulated_acc_len) feed at steps
    2..K: ``dump`` (SpecForge's way; a second chain only for rows where the dump's token is not the
    target's) or ``target`` (the target's greedy tokens; no second chain). al_replay never depends on it;
    acc and al_positions do not either where the generated spans are the target's own greedy output;
    simulated_acc_len moves a little even then (rows just before a span feed the prompt's tokens).
    """
    torch = draftcost._torch()
    if teacher not in TEACHERS:
        raise InputError(f"--teacher must be one of {', '.join(TEACHERS)}, got {teacher!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise InputError(f"--steps must be 1..{MAX_STEPS}, got {steps!r}")
    if max_samples is not None and (isinstance(max_samples, bool) or max_samples < 1):
        raise InputError(f"--max-samples must be at least 1, got {max_samples!r}")
    device = draftcost.resolve_device(device)
    tdtype = _resolve_dtype(dtype)
    say = progress or (lambda _m: None)
    started = time.perf_counter()
    if not dumps.discover_dump_files(dumps_dir):  # before any weights are read
        raise DataError(
            f"no hidden-state dump files in {dumps_dir}: expected SpecForge rows_*/data_*.ckpt[.gz], ModelOpt "
            "<conversation_id>.pt or speculators hs_*.safetensors."
        )
    if loaded is not None:
        ld, head = loaded
    else:
        head = load_target_head(target) if target else None
        ld = load_draft(draft, target=head, device=device, dtype=dtype)
    fwd = Forward(ld)
    s = ld.shape
    findings = mapping_findings(ld.d2t, ld.t2d, draft_vocab=s.draft_vocab, vocab=s.vocab)
    emit = torch.zeros(s.vocab + 1, dtype=torch.bool)
    emittable = fwd.to_target(torch.arange(s.draft_vocab, device=fwd._device())).cpu()
    emit[emittable.clamp(0, s.vocab)] = True
    emit[s.vocab] = False

    skipped: list[str] = []
    nonfinite = 0  # files left out for NaN/inf hidden states
    stats: list[_SampleStats] = []
    state: dict[str, Any] = {"fmt": None, "normed": None, "labels_from": "", "tokens": 0}
    if head is not None:  # on the device once, not once a file
        head = TargetHead(
            embedding=head.embedding,
            norm=head.norm.to(device=device, dtype=tdtype) if head.norm is not None else None,
            lm_head=head.lm_head.to(device=device, dtype=tdtype) if head.lm_head is not None else None,
            eps=head.eps,
            label=head.label,
            read=head.read,
        )

    def launch(sample: Any, dev: Any) -> _Pending | None:
        """Check one sample (host) and queue its GPU work (``dev``: the same on the device); no host sync
        after the first file."""
        state["fmt"] = state["fmt"] or sample.format
        if sample.aux is None:
            skipped.append(f"{sample.name}: no aux hidden states (EAGLE-1/2 dump): EAGLE-3 cannot be evaluated")
            return None
        if sample.aux.shape[-1] != s.num_aux * s.target_hidden:
            raise DataError(
                f"{sample.name}: aux states are {sample.aux.shape[-1]} wide but the draft's fc takes "
                f"{s.num_aux} x {s.target_hidden} = {s.num_aux * s.target_hidden}: another target or capture"
            )
        if int(sample.input_ids.max()) >= s.vocab or int(sample.input_ids.min()) < 0:
            raise DataError(f"{sample.name}: token ids outside the target vocabulary 0..{s.vocab - 1}")
        length = int(sample.input_ids.shape[0])
        state["tokens"] += length
        sp = spans(sample)
        if not sp:
            skipped.append(f"{sample.name}: no generated span of 2 or more tokens")
            return None
        g = None
        if head is not None and head.lm_head is not None and sample.final is not None and state["normed"] is None:
            state["normed"], g = _stored_state_is_normed(dev, head, device, tdtype)
        if g is None:
            g = target_tokens(dev, head, device, tdtype, normed=state["normed"], on_device=True)
        if not state["labels_from"]:
            state["labels_from"] = _labels_from(sample, head, state["normed"])
        chain = fwd.launch(dev.input_ids, dev.aux.to(tdtype), g, steps, dev.loss_mask)
        copied = _Copy(g=g, run=chain.run, differ=chain.differ, chain=chain.chain)
        sample.aux = sample.final = None  # the host side needs neither any more
        return _Pending(sample, sp, length, g, chain, copied)

    def second(p: _Pending) -> None:
        """Queue the dump-token chain where rows need it (waits only for this sample's target-token chain)."""
        if teacher == "dump":
            got = fwd.teacher(p.chain, steps, p.copied.get()["differ"])
            if got is not None:
                p.teach = _Copy(teach=got)

    def finish(p: _Pending) -> None:
        """Count one sample on the host (its GPU work done; later samples' queued behind it)."""
        host = p.copied.get()
        g, run = host["g"], host["run"].tolist()
        teach = host["chain"] if p.teach is None else p.teach.get()["teach"]
        trun = torch.tensor(run_lengths(teach, g, steps)) if teacher == "dump" else host["run"]
        replay = [replay_counts(run, p.spans, k) for k in range(1, steps + 1)]
        num, den = [0] * steps, [0] * steps
        rows = hits = tot = 0
        for st, e in p.spans:
            t = torch.arange(st - 1, e - 2)
            rows += int(t.shape[0])
            r = torch.minimum(trun[t], e - t - 2)  # a step past the span's last token is not correct
            for k in range(1, steps + 1):
                den[k - 1] += int((r >= k - 1).sum())  # rows with >= k-1 consecutive correct
                num[k - 1] += int((r >= k).sum())
            tok = g[st - 1 : e - 1]  # the span's tokens: what the target emits there
            tok = tok[tok >= 0]
            tot += int(tok.shape[0])
            hits += int(emit[tok.clamp(max=s.vocab)].sum())
        sf_c, sf_d = _specforge_counts(p.sample, teach, g, steps)
        stats.append(
            _SampleStats(
                name=p.sample.name,
                domain=_domain_of(p.sample, domains),
                tokens=p.length,
                rows=rows,
                replay=replay,
                cond_num=num,
                cond_den=den,
                sf_correct=sf_c,
                sf_denom=sf_d,
                ceiling_hits=hits,
                ceiling_total=tot,
            )
        )
        say(f"  {p.sample.name}: {p.length} tokens")

    # a three-stage pipeline: queue sample i's chain, then sample i-1's dump-token rows, then count sample
    # i-2 on the host, so the device always has queued work while the host waits or counts
    with torch.inference_mode():
        queued: list[_Pending] = []
        files = dumps.iter_samples(dumps_dir, max_files=max_samples, skipped=skipped, mmap=device.startswith("cuda"))
        for sample, dev, bad in _prefetch(files, device):
            if bad is not None:  # before anything is counted: SpecForge would not train on it either
                skipped.append(f"{sample.name}: {bad}")
                nonfinite += 1
                continue
            launched = launch(sample, dev)
            if launched is None:
                continue
            queued.append(launched)
            if len(queued) >= 2:
                second(queued[-2])
            if len(queued) >= 3:
                finish(queued.pop(0))
        if len(queued) >= 1:
            second(queued[-1])
        for p in queued:
            finish(p)
    fmt, labels_from, total_tokens = state["fmt"], state["labels_from"], state["tokens"]
    if not stats:
        why = "; ".join(skipped[:3]) or "no samples"
        raise DataError(f"nothing in {dumps_dir} could be evaluated: {why}")
    summ = _summarise(stats, steps, bootstrap=bootstrap, seed=seed)
    by_domain: dict[str, Any] = {}
    for dom in sorted({st.domain for st in stats if st.domain is not None}):
        part = [st for st in stats if st.domain == dom]
        ds = _summarise(part, steps, bootstrap=bootstrap, seed=seed)
        by_domain[dom] = {
            "samples": len(part),
            "tokens": sum(p.tokens for p in part),
            "by_steps": [
                {k: b[k] for k in ("steps", "al_replay", "al_replay_ci", "al_positions", "cycles")}
                for b in ds["by_steps"]
            ],
            "acc": ds["acc"],
        }
    hits = sum(st.ceiling_hits for st in stats)
    tot = sum(st.ceiling_total for st in stats)
    vocab = {
        "target_vocab": s.vocab,
        "draft_vocab": s.draft_vocab,
        "d2t": ld.d2t is not None,
        "t2d": ld.t2d is not None,
        "ceiling": _ratio(hits, tot),
        "ceiling_tokens": tot,
        "findings": findings,
    }
    notes = [POSITIONS_NOTE, SPECFORGE_NOTE, f"target tokens: {labels_from}", f"embedding: {ld.embedding_from}"]
    rows = sum(st.rows for st in stats)
    if teacher == "dump":
        notes.append(teacher_words(fwd.teacher_tokens, total_tokens, rows))
    if teacher == "target":
        notes.append(
            "teacher-forced figures (acc, al_positions, simulated_acc_len) fed the target's greedy tokens, not "
            "the dump's (--teacher target): simulated_acc_len is then not SpecForge's exactly, and acc differs "
            "too where the dump's answers are not the target's own greedy output"
        )
    if nonfinite:
        notes.append(
            f"{nonfinite} dump file{'s' if nonfinite != 1 else ''} left out: NaN or inf in the hidden states "
            "(SpecForge skips such records when it writes a dump; `skipped` lists them, audit-dump flags them)"
        )
    if not domains:
        notes.append("by_domain is empty: no data file maps the dump's rows to sources (--data)")
    if ld.rope_scaling and (ld.rope_scaling.get("rope_type") or ld.rope_scaling.get("type")) not in (None, "llama3"):
        notes.append(f"rope_scaling {dict(ld.rope_scaling)} is not applied (only llama3 is)")
    return Evaluation(
        draft=ld.label,
        target=head.label if head is not None else None,
        dumps=str(dumps_dir),
        format=fmt,
        labels_from=labels_from,
        samples=len(stats),
        tokens=total_tokens,
        rows=rows,
        by_steps=summ["by_steps"],
        acc=summ["acc"],
        acc_unconditional=summ["acc_unconditional"],
        by_domain=by_domain,
        vocab=vocab,
        device=device,
        dtype=dtype,
        seconds=time.perf_counter() - started,
        skipped=skipped,
        notes=notes,
        teacher=teacher,
        teacher_tokens=fwd.teacher_tokens,
        teacher_computed=fwd.teacher_rows,
        attention="fused" if fwd.fused else "chunked",
    )


def _stored_state_is_normed(sample: Any, head: TargetHead, device: str, dtype: Any) -> tuple[bool, Any]:
    """SGLang's capture stores the state after the final norm (SpecForge applies only lm_head); other tools
    store it before. Whichever reading agrees more with the dump's next tokens is taken; its G (on the
    device) comes back with it, so the first file's lm_head runs twice, not three times."""
    if head.norm is None:
        return True, None
    nxt = sample.input_ids[1:].to(device)
    raw = target_tokens(sample, head, device, dtype, normed=True, on_device=True)
    normed = target_tokens(sample, head, device, dtype, normed=False, on_device=True)
    is_normed = bool(int((raw[:-1] == nxt).sum()) > int((normed[:-1] == nxt).sum()))  # a tie: apply the norm
    return is_normed, raw if is_normed else normed


def _labels_from(sample: Any, head: TargetHead | None, normed: bool | None) -> str:
    if head is not None and head.lm_head is not None and sample.final is not None:
        how = "the stored state is already normed" if normed else "final norm applied"
        return f"argmax of the target's lm_head over the dump's final hidden state ({how})"
    if sample.labels is not None:
        return "the dump's stored labels"
    return "the dump's next tokens (assumes the dump is the target's own greedy output; give --target to check)"


def _specforge_counts(sample: Any, teach: Any, g: Any, steps: int) -> tuple[list[int], list[int]]:
    """SpecForge's per-position correct/denominator: step idx at row t is judged against G[t+1+idx] and
    counted where loss_mask[t+idx] (last position zeroed), every row, unconditionally."""
    torch = draftcost._torch()
    length = int(sample.input_ids.shape[0])
    mask = sample.loss_mask.long().clone() if sample.loss_mask is not None else torch.ones(length, dtype=torch.long)
    mask[-1] = 0
    gp = torch.cat([g, g.new_full((steps + 1,), -2)])
    mp = torch.cat([mask, mask.new_zeros(steps + 1)])
    rows = torch.arange(length)
    correct, denom = [], []
    for idx in range(steps):
        m = mp[rows + idx]
        ok = (teach[:, idx] == gp[rows + 1 + idx]) & (gp[rows + 1 + idx] >= 0)
        correct.append(int((ok.long() * m).sum()))
        denom.append(int(m.sum()))
    return correct, denom


# --------------------------------------------------------------------------------------------
# Train/serve gap: offline AL next to live runs of the same draft

GAP_CAUSES_LOW = (
    "wiring (the engine captures other aux layers than the dump did)",
    "vocabulary mapping (d2t missing or regenerated: see the vocab findings)",
    "chat template (served prompts rendered unlike the dump's data)",
    "sampling (temperature > 0 accepts less than greedy)",
)
GAP_CAUSES_HIGH = (
    "served prompts easier or more repetitive than the dump's data",
    "a tree (topk > 1) or more draft tokens than the chain replayed here",
)


def _same_draft(run_draft: str | None, label: str) -> bool:
    if not run_draft:
        return False
    a = run_draft.rstrip("/").split("@")[0].rsplit("/", 1)[-1].lower()
    b = label.rstrip("/").split("@")[0].rsplit("/", 1)[-1].lower()
    return a == b


def serve_gap(evaluation: Mapping[str, Any], runs: Iterable[Any]) -> list[dict[str, Any]]:
    """Live runs of the same draft (by name) next to the offline replay AL at their num_steps.

    A gap outside the bootstrap interval gets the causes that usually explain it; live runs are
    measured, the offline figure is a replay on the dump, and neither is adjusted.
    """
    by_k = {b["steps"]: b for b in evaluation.get("by_steps") or []}
    out = []
    for r in runs:
        if r.is_baseline or not _same_draft(r.draft_model, str(evaluation.get("draft") or "")):
            continue
        live = r.accept_length if r.accept_length is not None else r.accept_length_mean
        k = r.num_steps
        if live is None or k is None or k not in by_k or by_k[k]["al_replay"] is None:
            continue
        off = float(by_k[k]["al_replay"])
        ci = by_k[k].get("al_replay_ci") or [off, off]
        temp = (r.params or {}).get("temperature")
        if ci[0] <= live <= ci[1]:
            verdict, causes = "within the offline interval", []
        elif live < ci[0]:
            verdict, causes = "live accepts less than offline", list(GAP_CAUSES_LOW)
            if isinstance(temp, (int, float)) and temp > 0:
                causes.insert(0, f"this run sampled at temperature {temp:g}; the replay is greedy")
        else:
            verdict, causes = "live accepts more than offline", list(GAP_CAUSES_HIGH)
        if r.topk not in (None, 1):
            causes.append(f"the run used topk={r.topk} (a tree); the replay is a chain")
        out.append(
            {
                "run_id": r.id,
                "engine": r.engine,
                "num_steps": k,
                "live_al": float(live),
                "offline_al": off,
                "offline_ci": ci,
                "gap": float(live) - off,
                "verdict": verdict,
                "likely_causes": causes,
            }
        )
    return out
