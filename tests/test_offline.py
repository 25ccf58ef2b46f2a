"""Offline acceptance against a real greedy speculative-decoding loop.

A tiny transformers Llama is the target; its greedy continuations are the data; a tiny EAGLE-3 draft
is trained on them here, on CPU. The dumps are written in SpecForge's layout and ``eval-draft`` must
give, for every num_steps, exactly the AL of a chain spec-decoding loop (draft proposes K, target
verifies) written below independently of the evaluator: per-cycle incremental drafting with
``scaled_dot_product_attention`` and HF-style RoPE.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import save_file
from torch.nn import functional as F

from comparelib import cli
from comparelib.analysis import draftcost, offline
from comparelib.errors import CompareError

VOCAB, DRAFT_VOCAB, HIDDEN, LAYERS, AUX = 64, 48, 32, 4, (0, 1, 2)  # aux: outputs of layers 1, 2, 3
PROMPT, NEW, SEQS = 6, 32, 6


@pytest.fixture(autouse=True, scope="module")
def _threads() -> Any:
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # the CI box is shared: tiny ops are far steadier on one thread
    yield
    torch.set_num_threads(before)


# ------------------------------------------------------------------ the target and its greedy data


def _target() -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=HIDDEN,
        intermediate_size=64,
        num_hidden_layers=LAYERS,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        initializer_range=0.3,
        tie_word_embeddings=False,
        rms_norm_eps=1e-6,
    )
    model = LlamaForCausalLM(cfg).eval()
    return model


def _states(model: Any, seq: list[int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(logits [L, V], aux [L, 3H] from layers 1..3, final state before the norm [L, H]), in one forward."""
    captured: dict[str, torch.Tensor] = {}

    def grab(_m: Any, _i: Any, o: Any) -> None:
        captured["h"] = o[0] if isinstance(o, tuple) else o

    handle = model.model.layers[-1].register_forward_hook(grab)
    try:
        out = model(torch.tensor([seq]), output_hidden_states=True)
    finally:
        handle.remove()
    aux = torch.cat([out.hidden_states[1 + i][0] for i in AUX], dim=-1)
    return out.logits[0], aux, captured["h"].reshape(len(seq), HIDDEN)


def _greedy(model: Any, prompts: torch.Tensor, n: int) -> list[list[int]]:
    seqs = prompts.clone()
    for _ in range(n):  # full recompute, all prompts at once (same length, no padding)
        seqs = torch.cat([seqs, model(seqs).logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    return seqs.tolist()


# ------------------------------------------------------------------ the draft, trained here


def _shape() -> Any:
    return draftcost.DraftShape(
        hidden=HIDDEN,
        intermediate=64,
        heads=4,
        kv_heads=2,
        head_dim=8,
        vocab=VOCAB,
        draft_vocab=DRAFT_VOCAB,
        target_hidden=HIDDEN,
        num_aux=3,
        layers=1,
        with_d2t=True,
        with_t2d=True,
        rms_eps=1e-6,
        rope_theta=10000.0,
    )


def _train(model: Any, seqs: list[list[int]], shape: Any) -> tuple[Any, torch.Tensor, torch.Tensor]:
    counts = torch.zeros(VOCAB)
    for s in seqs:
        counts += torch.bincount(torch.tensor(s[PROMPT:]), minlength=VOCAB)
    used = sorted(torch.argsort(counts, descending=True)[:DRAFT_VOCAB].tolist())
    d2t = torch.tensor(used) - torch.arange(DRAFT_VOCAB)
    t2d = torch.zeros(VOCAB, dtype=torch.bool)
    t2d[used] = True
    to_draft = torch.full((VOCAB,), -100)
    to_draft[used] = torch.arange(DRAFT_VOCAB)

    draft = draftcost.build_draft(shape, device="cpu", dtype="fp32", seed=1)
    with torch.no_grad():
        draft.embed_tokens.weight.copy_(model.model.embed_tokens.weight)
        draft.get_buffer("d2t").copy_(d2t)
        draft.get_buffer("t2d").copy_(t2d)
    loaded = offline.LoadedDraft("trained", {}, shape, draft, d2t, t2d, "target", None)
    fwd = offline.Forward(loaded)
    data = []
    with torch.no_grad():
        for s in seqs:
            logits, aux, _ = _states(model, s)
            data.append((torch.tensor(s), aux, logits.argmax(-1)))
    params = [p for n, p in draft.named_parameters() if n != "embed_tokens.weight"]
    opt = torch.optim.Adam(params, lr=1e-2)
    for _ in range(60):
        for ids, aux, g in data:
            n = ids.shape[0]
            rows = torch.arange(n)
            nxt = torch.cat([ids[1:], ids.new_zeros(1)])
            h1, cache = fwd.run(draft.embed_tokens(nxt), aux, rows, rows, None, None)
            want1 = torch.cat([to_draft[g[1:]], torch.tensor([-100])])  # step 1 at row t: token t+2 = G[t+1]
            loss = F.cross_entropy(fwd.logits(h1), want1, ignore_index=-100)
            nxt2 = torch.cat([ids[2:], ids.new_zeros(2)])
            h2, _ = fwd.run(draft.embed_tokens(nxt2), h1, rows + 1, rows, cache, [([], [])])
            want2 = torch.cat([to_draft[g[2:]], torch.tensor([-100, -100])])
            loss = loss + F.cross_entropy(fwd.logits(h2), want2, ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            opt.step()
    draft.requires_grad_(False)
    return draft, d2t, t2d


# ------------------------------------------------------------------ a real greedy chain spec-decoding loop


def _rot(x: torch.Tensor, pos: torch.Tensor, theta: float) -> torch.Tensor:
    d = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, d, 2).float() / d))
    ang = pos.float()[:, None] * inv[None, :]
    cos, sin = torch.cat([ang, ang], -1).cos(), torch.cat([ang, ang], -1).sin()
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return x * cos[None] + torch.cat([-x2, x1], -1) * sin[None]


def _draft_layer(d: Any, emb: torch.Tensor, hid: torch.Tensor, pos: torch.Tensor, kv: dict[str, torch.Tensor]):
    """One decoder pass over new rows (hid already projected); appends their K/V to ``kv``; causal over the cache."""
    lay = d.layers[0]
    x = torch.cat([lay.input_layernorm(emb), lay.hidden_norm(hid)], -1)
    n = x.shape[0]
    q = _rot(lay.q_proj(x).view(n, 4, 8).transpose(0, 1), pos, 10000.0)
    k = _rot(lay.k_proj(x).view(n, 2, 8).transpose(0, 1), pos, 10000.0)
    v = lay.v_proj(x).view(n, 2, 8).transpose(0, 1)
    kv["k"] = torch.cat([kv["k"], k], 1) if "k" in kv else k
    kv["v"] = torch.cat([kv["v"], v], 1) if "v" in kv else v
    total = kv["k"].shape[1]
    mask = torch.arange(total)[None, :] <= (total - n + torch.arange(n))[:, None]
    keys, vals = kv["k"].repeat_interleave(2, 0), kv["v"].repeat_interleave(2, 0)
    att = F.scaled_dot_product_attention(q, keys, vals, attn_mask=mask)
    h = lay.o_proj(att.transpose(0, 1).reshape(n, 32))
    res = h + hid
    h = lay.down_proj(
        F.silu(lay.gate_proj(lay.post_attention_layernorm(res))) * lay.up_proj(lay.post_attention_layernorm(res))
    )
    out = h + res
    return out, d.lm_head(d.norm(out)).argmax(-1)


def _spec_decode(model: Any, d: Any, prompt: list[int], n: int, k: int) -> tuple[int, int]:
    """(cycle tokens, cycles) of greedy chain speculative decoding: the draft proposes k, the target verifies."""
    hot = d.get_buffer("d2t") + torch.arange(DRAFT_VOCAB)
    seq = list(prompt)
    seq.append(int(model(torch.tensor([seq])).logits[0, -1].argmax()))  # prefill token: in no cycle
    tokens = cycles = 0
    while len(seq) - len(prompt) < n:
        _, aux, _ = _states(model, seq)
        ctx = len(seq) - 1  # rows 0..ctx-1: aux of verified positions with the next token's embedding
        kv: dict[str, torch.Tensor] = {}
        emb = d.embed_tokens(torch.tensor(seq[1:]))
        hid, tok = _draft_layer(d, emb, d.fc(aux[:ctx]), torch.arange(ctx), kv)
        hid, tok = hid[-1:], hot[tok[-1:]]
        props = [int(tok)]
        for i in range(1, k):
            hid, tok = _draft_layer(d, d.embed_tokens(tok), hid, torch.tensor([ctx - 1 + i]), kv)
            tok = hot[tok]
            props.append(int(tok))
        logits = model(torch.tensor([seq + props])).logits[0]
        verify = logits[len(seq) - 1 :].argmax(-1).tolist()
        a = 0
        while a < k and props[a] == verify[a]:
            a += 1
        emitted = (props[:a] + [verify[a]])[: n - (len(seq) - len(prompt))]
        seq += emitted
        tokens += len(emitted)
        cycles += 1
    return tokens, cycles


# ------------------------------------------------------------------ the pair, once per module


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("offline")
    with torch.no_grad():
        model = _target()
        gen = torch.Generator().manual_seed(3)
        seqs = _greedy(model, torch.randint(0, VOCAB, (SEQS, PROMPT), generator=gen), NEW)
    shape = _shape()
    draft, d2t, t2d = _train(model, seqs, shape)
    model.save_pretrained(root / "target")
    names = {
        "q_proj": "self_attn.q_proj", "k_proj": "self_attn.k_proj", "v_proj": "self_attn.v_proj",
        "o_proj": "self_attn.o_proj", "gate_proj": "mlp.gate_proj", "up_proj": "mlp.up_proj",
        "down_proj": "mlp.down_proj",
    }  # fmt: skip
    state = {}
    for n, p in draft.state_dict().items():
        if n == "embed_tokens.weight":
            continue
        if n.startswith("layers.0."):
            part = n[len("layers.0.") :].split(".", 1)
            n = "midlayer." + names.get(part[0], part[0]) + "." + part[1]
        state[n] = p.contiguous().clone()
    (root / "draft").mkdir()
    save_file(state, str(root / "draft" / "model.safetensors"))
    (root / "draft" / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["LlamaForCausalLMEagle3"],
                "hidden_size": HIDDEN,
                "intermediate_size": 64,
                "num_attention_heads": 4,
                "num_key_value_heads": 2,
                "num_hidden_layers": 1,
                "vocab_size": VOCAB,
                "draft_vocab_size": DRAFT_VOCAB,
                "rms_norm_eps": 1e-6,
                "rope_theta": 10000.0,
                "max_position_embeddings": 256,
            }
        )
    )
    dumps = root / "dumps" / "rows_0-2000"
    dumps.mkdir(parents=True)
    with torch.no_grad():
        for i, s in enumerate(seqs):
            logits, aux, final = _states(model, s)
            # the oracle needs the data to be the target's own greedy output, one sequence at a time
            assert logits[PROMPT - 1 : -1].argmax(-1).tolist() == s[PROMPT:]
            mask = torch.zeros(len(s), dtype=torch.long)
            mask[PROMPT:] = 1
            torch.save(
                {
                    "input_ids": torch.tensor(s),
                    "loss_mask": mask,
                    "hidden_state": final[None].clone(),
                    "aux_hidden_state": aux[None].clone(),
                },
                dumps / f"data_{i}.ckpt",
            )
    with torch.no_grad():
        real = {}
        for k in range(1, 6):
            tok = cyc = 0
            for s in seqs:
                t, c = _spec_decode(model, draft, s[:PROMPT], NEW, k)
                tok, cyc = tok + t, cyc + c
            real[k] = tok / cyc
    return {"root": root, "seqs": seqs, "real": real, "d2t": d2t, "t2d": t2d}


def _eval_json(pair: dict[str, Any], capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    root = pair["root"]
    rc = cli.main(["eval-draft", str(root / "draft"), "--dumps", str(root / "dumps"), "--target",
                   str(root / "target"), "--json", *extra])  # fmt: skip
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


def test_replay_equals_a_real_greedy_speculative_decoding_loop(pair: dict[str, Any], capsys: Any) -> None:
    data = _eval_json(pair, capsys, "--steps", "5")
    assert data["samples"] == SEQS
    got = {b["steps"]: b["al_replay"] for b in data["by_steps"]}
    assert data["acc"][0] > 0.3, data["acc"]  # the draft learned something: acceptance is not trivial
    for k in range(1, 6):
        assert got[k] == pytest.approx(pair["real"][k], abs=1e-12), (k, got, pair["real"])
    assert len({round(v, 6) for v in pair["real"].values()}) > 1  # K matters: the test can tell steps apart
    assert "final norm applied" in data["labels_from"]  # the dump holds the pre-norm state here


def test_positions_and_specforge_figures_follow_their_definitions(pair: dict[str, Any], capsys: Any) -> None:
    data = _eval_json(pair, capsys, "--steps", "4")
    acc = data["acc"]
    for b in data["by_steps"]:
        k = b["steps"]
        assert b["al_positions"] == pytest.approx(1 + sum(math.prod(acc[: i + 1]) for i in range(k)))
        assert b["al_positions"] >= b["al_replay"] - 1e-9  # runs of good rows: positions reads high
        per = data["acc_unconditional"][:k]
        cum, total = 1.0, 0.0
        for a in per:  # SpecForge Evaluator._simulated_acc_len, transcribed
            cum *= a
            total += cum
        assert b["simulated_acc_len"] == pytest.approx(total)
    assert (
        data["by_steps"][0]["al_replay_ci"][0]
        <= data["by_steps"][0]["al_replay"]
        <= data["by_steps"][0]["al_replay_ci"][1]
    )


def test_vocabulary_ceiling_counts_the_target_tokens_the_draft_can_emit(pair: dict[str, Any], capsys: Any) -> None:
    data = _eval_json(pair, capsys, "--steps", "1")
    used = set((pair["d2t"] + torch.arange(DRAFT_VOCAB)).tolist())
    toks = [t for s in pair["seqs"] for t in s[PROMPT:]]  # the generated (loss-masked) tokens
    assert data["vocab"]["ceiling"] == pytest.approx(sum(t in used for t in toks) / len(toks))
    assert data["vocab"]["findings"] == []


D2T = torch.tensor([0, 2, 4, 5]) - torch.arange(4)  # draft ids 0..3 -> target ids 0, 2, 4, 5
T2D = torch.zeros(8, dtype=torch.bool)
T2D[[0, 2, 4, 5]] = True
T2D_BAD = T2D.clone()
T2D_BAD[[5, 6]] = torch.tensor([False, True])

# (case, d2t, t2d, draft vocab, target vocab, expected codes)
LINT_CASES: list[tuple[str, Any, Any, int, int, set[str]]] = [
    ("consistent pruned mapping", D2T, T2D, 4, 8, set()),
    ("full vocabulary, no d2t", None, None, 8, 8, set()),
    ("pruned, d2t missing", None, None, 4, 8, {"d2t_missing"}),
    ("pruned, all-zero d2t", torch.zeros(4, dtype=torch.long), None, 4, 8, {"d2t_identity", "t2d_missing"}),
    ("out of range", torch.tensor([0, 0, 0, 9]), None, 4, 8, {"d2t_range", "t2d_missing"}),
    ("duplicates", torch.tensor([0, 1, 1, 2]) - torch.arange(4), None, 4, 8, {"d2t_duplicates", "t2d_missing"}),
    ("t2d regenerated on resume", D2T, T2D_BAD, 4, 8, {"t2d_inconsistent"}),
    ("t2d wrong length", D2T, torch.ones(7, dtype=torch.bool), 4, 8, {"t2d_shape"}),
]


@pytest.mark.parametrize(("case", "d2t", "t2d", "dv", "v", "codes"), LINT_CASES, ids=[c[0] for c in LINT_CASES])
def test_mapping_lint(case: str, d2t: Any, t2d: Any, dv: int, v: int, codes: set[str]) -> None:
    found = offline.mapping_findings(d2t, t2d, draft_vocab=dv, vocab=v)
    assert {f["code"] for f in found} == codes


def test_replay_schedule_by_hand() -> None:
    # rows 0..9, span [2, 10): prefill token 2, cycles start at row 1; run lengths per row
    run = [0, 2, 0, 0, 1, 0, 3, 0, 0, 0]
    # K=2: row1 a=2 -> 3 tokens, row4 a=1 -> 2, row6 a=2 -> left 2 -> 2 tokens: 7 tokens / 3 cycles
    assert offline.replay_counts(run, [(2, 10)], 2) == (7, 3)
    # K=1: row1 a=1 ->2, row3 a=0 ->1, row4 a=1 ->2, row6 a=1 ->2 (left 2): 7 / 4
    assert offline.replay_counts(run, [(2, 10)], 1) == (7, 4)


def test_bad_input_is_one_line_and_exit_2(pair: dict[str, Any], capsys: Any, tmp_path: Path) -> None:
    root = pair["root"]
    rc = cli.main(["eval-draft", str(root / "draft"), "--dumps", str(tmp_path), "--target", str(root / "target")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "no hidden-state dump files" in err
    rc = cli.main(["eval-draft", str(root / "draft"), "--dumps", str(root / "dumps"), "--steps", "9"])
    err = capsys.readouterr().err
    assert rc == 2 and "--steps must be 1..8" in err
    with pytest.raises(CompareError):
        offline.evaluate(str(root / "target"), root / "dumps")  # a target is not a draft: no fc


def test_offline_al_and_a_measured_step_pick_num_steps_per_batch(
    pair: dict[str, Any], capsys: Any, tmp_path: Path
) -> None:
    cost = {
        "draft": "trained",
        "device_name": "cpu",
        "dtype": "fp32",
        "context": 64,
        "results": [
            {"batch": 1, "step_ms": 0.5, "bytes_per_step": 1, "first_step_ms": 0.6},
            {"batch": 64, "step_ms": 30.0, "bytes_per_step": 1, "first_step_ms": 30.0},
        ],
    }
    path = tmp_path / "cost.json"
    path.write_text(json.dumps(cost))
    data = _eval_json(pair, capsys, "--steps", "5", "--draft-cost", str(path), "--verify-ms", "10")
    rows = data["best_steps"]["rows"]
    al = {b["steps"]: b["al_replay"] for b in data["by_steps"]}
    for row in rows:  # tok/s = batch x AL / (verify + proposal)
        draft = (0.6 if row["batch"] == 1 else 30.0) + (row["num_steps"] - 1) * (0.5 if row["batch"] == 1 else 30.0)
        assert row["tok_s"] == pytest.approx(row["batch"] * al[row["num_steps"]] / (10 + draft) * 1000)
    best = {r["batch"]: r["num_steps"] for r in rows if r["best"]}
    assert best[64] < best[1]  # an expensive step favours short proposals
    assert any("measured with torch on cpu" in e for e in data["best_steps"]["evidence"])
    rc = cli.main(["eval-draft", str(pair["root"] / "draft"), "--dumps", str(pair["root"] / "dumps"), "--draft-cost",
                   str(path)])  # fmt: skip
    assert rc == 2 and "--verify-ms" in capsys.readouterr().err


def _run(run_id: int, draft: str, steps: int, al: float, **kw: Any) -> Any:
    from datetime import datetime

    from comparelib.live.store import RunRecord

    fields = dict(
        id=run_id, created_at=datetime(2026, 12, 3), endpoint="http://x", engine="sglang", kind="live", group="g",
        labels=[], status="done", speculative_algorithm="EAGLE3", draft_model=draft, model="t", num_steps=steps,
        topk=1, num_draft_tokens=steps + 1, is_baseline=False, requests=8, errors=0, output_tokens_per_s=100.0,
        accept_length=al, accept_length_mean=None, ttft_p50_ms=None, ttft_p99_ms=None, tpot_p50_ms=None,
        tpot_p99_ms=None, summary={}, server_config={}, params={}, notes={},
    )  # fmt: skip
    fields.update(kw)
    return RunRecord(**fields)


def test_train_serve_gap_names_likely_causes() -> None:
    ev = {
        "draft": "org/my-draft",
        "by_steps": [{"steps": 3, "al_replay": 2.5, "al_replay_ci": [2.4, 2.6]}],
    }
    runs = [
        _run(1, "org/my-draft", 3, 2.5),
        _run(2, "/models/my-draft", 3, 1.2, params={"temperature": 0.7}),
        _run(3, "org/other-draft", 3, 1.0),
        _run(4, "org/my-draft", 5, 1.0),  # no offline figure at 5 steps
        _run(5, "org/my-draft", 3, 3.1, topk=4),
    ]
    gap = {g["run_id"]: g for g in offline.serve_gap(ev, runs)}
    assert set(gap) == {1, 2, 5}
    assert gap[1]["verdict"] == "within the offline interval" and gap[1]["likely_causes"] == []
    assert gap[2]["verdict"] == "live accepts less than offline"
    assert gap[2]["likely_causes"][0].startswith("this run sampled at temperature 0.7")
    assert any("vocabulary mapping" in c for c in gap[2]["likely_causes"])
    assert gap[5]["verdict"] == "live accepts more than offline" and any(
        "topk=4" in c for c in gap[5]["likely_causes"]
    )


def test_page_section_evaluates_a_dump_folder(pair: dict[str, Any], capsys: Any) -> None:
    from tests.fixtures import page_app

    expect = _eval_json(pair, capsys, "--steps", "3", "--max-samples", "2")
    root = pair["root"]
    at = page_app("pages/scaling.py", timeout=120)
    at.session_state["sc_tab"] = "Before serving"  # built only while shown
    at.run()
    assert not at.exception, at.exception
    at.text_input(key="od_draft").set_value(str(root / "draft"))
    at.text_input(key="od_dumps").set_value(str(root / "dumps"))
    at.text_input(key="od_target").set_value(str(root / "target"))
    at.number_input(key="od_steps").set_value(3)
    at.number_input(key="od_max").set_value(2).run()
    at.button(key="od_run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    table = next(d.value for d in at.dataframe if "al_replay_ci" in d.value.columns)
    assert list(table["al_replay"]) == pytest.approx([b["al_replay"] for b in expect["by_steps"]])
    text = "\n".join(m.value for m in at.markdown)
    assert "can emit" in text and "acc_k" in text


def test_every_dump_layout_reads_the_same_samples(pair: dict[str, Any], capsys: Any, tmp_path: Path) -> None:
    """ModelOpt .pt (with its loss mask) gives SpecForge's figures exactly; speculators hs_*.safetensors
    (no loss mask: one span after the first token) is evaluated from the same tensors."""
    src = sorted((pair["root"] / "dumps" / "rows_0-2000").glob("data_*.ckpt"))
    (tmp_path / "modelopt").mkdir()
    (tmp_path / "speculators").mkdir()
    for i, f in enumerate(src):
        d = torch.load(f, weights_only=True)
        final, aux = d["hidden_state"][0], d["aux_hidden_state"][0]
        torch.save(
            {"input_ids": d["input_ids"], "loss_mask": d["loss_mask"], "hidden_states": final,
             "aux_hidden_states": aux, "conversation_id": f"c{i}"},
            tmp_path / "modelopt" / f"c{i}.pt",
        )  # fmt: skip
        hs = torch.cat([aux.view(len(final), 3, HIDDEN), final[:, None]], dim=1).contiguous()
        save_file(
            {"token_ids": d["input_ids"], "hidden_states": hs}, str(tmp_path / "speculators" / f"hs_{i}.safetensors")
        )
    base = _eval_json(pair, capsys, "--steps", "3")
    root = pair["root"]
    for layout in ("modelopt", "speculators"):
        rc = cli.main(["eval-draft", str(root / "draft"), "--dumps", str(tmp_path / layout), "--target",
                       str(root / "target"), "--steps", "3", "--json"])  # fmt: skip
        got = json.loads(capsys.readouterr().out)
        assert rc == 0 and got["format"] == layout and got["samples"] == SEQS
        if layout == "modelopt":
            assert got["by_steps"] == base["by_steps"] and got["acc"] == base["acc"]
        else:  # the prompt is evaluated too: more cycles than the masked spans give
            assert got["by_steps"][0]["cycles"] > base["by_steps"][0]["cycles"]


DOMAIN_ROWS = [
    # (a prepared row, the domain eval-draft keys it by): the Dataset audit's rule, then the sub-dataset named
    ({"domain": "Math "}, "math"),
    ({"category": "CODE"}, "code"),
    ({"task_category": "Coding & Debugging"}, "coding & debugging"),  # Magpie's field: was not read
    ({"source": "sharegpt", "category": "chat"}, "chat"),  # a stated domain before the sub-dataset
    ({"source": "ShareGPT"}, "source: sharegpt"),  # a sub-dataset is not a domain: said as what it is
    ({"dataset": "flan/cot"}, "source: flan/cot"),
    ({"domain": ["math"], "task": "t1"}, "source: t1"),  # a list states no domain
    ({"domain": "x" * 500}, "x" * 40),  # capped as the audit caps it
    ({"id": "7"}, None),
]


@pytest.mark.parametrize(("row", "want"), DOMAIN_ROWS)
def test_domain_map_reads_domains_as_the_dataset_audit_does(
    tmp_path: Path, row: dict[str, Any], want: str | None
) -> None:
    from comparelib.analysis.offline import domain_map
    from comparelib.audit.conversations import stated_domain

    data = tmp_path / "train.jsonl"
    data.write_text(json.dumps(row) + "\n")
    assert domain_map(data).get("#0") == want
    if want is not None and not want.startswith("source: "):
        assert stated_domain(row) == (next(k for k in row if k in ("domain", "category", "task_category")), want)


def test_by_domain_from_the_prepared_data(pair: dict[str, Any], capsys: Any, tmp_path: Path) -> None:
    data = tmp_path / "train.jsonl"
    data.write_text(
        "".join(json.dumps({"id": str(i), "domain": "code" if i % 2 else "chat"}) + "\n" for i in range(SEQS))
    )
    got = _eval_json(pair, capsys, "--steps", "2", "--data", str(data))
    assert set(got["by_domain"]) == {"chat", "code"}
    assert sum(d["samples"] for d in got["by_domain"].values()) == SEQS
    cyc = sum(d["by_steps"][1]["cycles"] for d in got["by_domain"].values())
    assert cyc == got["by_steps"][1]["cycles"]


def test_target_and_draft_by_range_reads_from_the_hub(pair: dict[str, Any], hub: Any, capsys: Any) -> None:
    root = pair["root"]
    for repo, folder in (("org/tiny-target", root / "target"), ("org/tiny-draft", root / "draft")):
        hub.add_repo(repo, {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()})
    hub.clear_requests()
    head = offline.load_target_head("org/tiny-target")
    assert sorted(head.read) == ["lm_head.weight", "model.embed_tokens.weight", "model.norm.weight"]
    wanted = sum(t.numel() * t.element_size() for t in (head.embedding, head.norm, head.lm_head))
    size = (root / "target" / "model.safetensors").stat().st_size
    assert hub.bytes_served() < wanted + 110_000 < size  # the three tensors and the header range, not the file
    local = _eval_json(pair, capsys, "--steps", "2")
    rc = cli.main(["eval-draft", "org/tiny-draft", "--dumps", str(root / "dumps"), "--target", "org/tiny-target",
                   "--steps", "2", "--json"])  # fmt: skip
    remote = json.loads(capsys.readouterr().out)
    assert rc == 0 and remote["by_steps"] == local["by_steps"]


# (checkpoint name, dialect) -> draftcost's module name
NAME_CASES = [
    ("midlayer.self_attn.q_proj.weight", "layers.0.q_proj.weight"),  # SpecForge / EAGLE authors
    ("midlayer.mlp.down_proj.weight", "layers.0.down_proj.weight"),
    ("midlayer.hidden_norm.weight", "layers.0.hidden_norm.weight"),
    ("layers.0.self_attn.k_proj.weight", "layers.0.k_proj.weight"),  # speculators
    ("model.layers.0.mlp.gate_proj.weight", "layers.0.gate_proj.weight"),
    ("eagle_module.layers.0.self_attn.o_proj.weight", "layers.0.o_proj.weight"),  # ModelOpt
    ("eagle_module.fc.weight", "fc.weight"),
    ("aux_norm_mid.weight", "fc_norm.1.weight"),  # SGLang's legacy names
    ("d2t", "d2t"),
    ("lm_head.weight", "lm_head.weight"),
]


@pytest.mark.parametrize(("name", "want"), NAME_CASES)
def test_checkpoint_names_map_to_the_module(name: str, want: str) -> None:
    assert offline.module_name(name) == want


def test_only_the_target_head_tensors_are_picked() -> None:
    names = [
        "model.embed_tokens.weight",
        "model.layers.0.input_layernorm.weight",
        "model.layers.0.self_attn.q_proj.weight",
        "model.norm.weight",
        "lm_head.weight",
        "model.mtp.embed_tokens.weight",
        "model.vision_tower.norm.weight",
    ]
    assert sorted(offline._pick_target(names)) == ["lm_head.weight", "model.embed_tokens.weight", "model.norm.weight"]


# ------------------------------------------------------------------ the evaluator before the one-chain change
# Its two chains per row (own tokens, dump tokens) and einsum attention over one softmax, kept verbatim as
# the reference the faster path must reproduce token for token.


def _old_attend(f: Any, q: Any, ctx_k: Any, ctx_v: Any, rows: Any, diag_k: list[Any], diag_v: list[Any]) -> Any:
    s = f.s
    rep = s.heads // s.kv_heads
    scale = 1.0 / math.sqrt(s.head_dim)
    total = ctx_k.shape[0]
    keys = ctx_k.repeat_interleave(rep, dim=1) if rep > 1 else ctx_k
    vals = ctx_v.repeat_interleave(rep, dim=1) if rep > 1 else ctx_v
    cols = torch.arange(total)
    sc = torch.einsum("nhd,lhd->nhl", q.float(), keys.float()) * scale
    sc = sc.masked_fill((cols[None, :] > rows[:, None])[:, None, :], float("-inf"))
    parts = [sc]
    if diag_k:
        dk, dv = torch.stack(diag_k, dim=1), torch.stack(diag_v, dim=1)
        if rep > 1:
            dk, dv = dk.repeat_interleave(rep, dim=2), dv.repeat_interleave(rep, dim=2)
        parts.append(torch.einsum("nhd,nmhd->nhm", q.float(), dk.float()) * scale)
    w = torch.softmax(torch.cat(parts, dim=-1), dim=-1)
    o = torch.einsum("nhl,lhd->nhd", w[..., :total], vals.float())
    if diag_k:
        o = o + torch.einsum("nhm,nmhd->nhd", w[..., total:], dv.float())
    return o.to(q.dtype)


def _old_run(f: Any, embeds: Any, hidden: Any, pos: Any, rows: Any, cache: Any, diag: Any) -> tuple[Any, Any]:
    m, s = f.m, f.s
    n = embeds.shape[0]
    cos, sin = f._cos_sin(pos)
    h = f.project(hidden) if cache is None else hidden
    new = []
    residual = h
    for i, layer in enumerate(m.layers):
        if layer.first:
            residual = h
            x = torch.cat([layer.input_layernorm(embeds), layer.hidden_norm(h)], dim=-1)
        else:
            residual = h + residual
            x = layer.input_layernorm(residual)
        q = f._rope(layer.q_proj(x).view(n, s.heads, s.head_dim), cos, sin)
        k = f._rope(layer.k_proj(x).view(n, s.kv_heads, s.head_dim), cos, sin)
        v = layer.v_proj(x).view(n, s.kv_heads, s.head_dim)
        new.append((k, v))
        if cache is None:
            attn = _old_attend(f, q, k, v, rows, [], [])
        else:
            dk, dv = diag[i]
            attn = _old_attend(f, q, cache[i][0], cache[i][1], rows, [*dk, k], [*dv, v])
        h = layer.o_proj(attn.reshape(n, s.heads * s.head_dim))
        residual = h + residual
        x = layer.post_attention_layernorm(residual)
        h = layer.down_proj(F.silu(layer.gate_proj(x)) * layer.up_proj(x))
    return h + residual, new


def _old_both_chains(f: Any, ids: Any, aux: Any, steps: int) -> tuple[Any, Any]:
    m = f.m
    length = ids.shape[0]
    rows = torch.arange(length)
    nxt = torch.cat([ids[1:], ids.new_zeros(1)])
    hidden0, cache = _old_run(f, m.embed_tokens(nxt), aux, rows, rows, None, None)
    first = f.to_target(f.logits(hidden0).argmax(-1))
    padded = torch.cat([ids, ids.new_zeros(steps + 1)])
    outs = []
    for mode in ("own", "teacher"):
        out = torch.empty(length, steps, dtype=torch.long)
        out[:, 0] = first
        hidden, diag = hidden0, [([], []) for _ in m.layers]
        for k in range(2, steps + 1):
            tok = padded[rows + k] if mode == "teacher" else out[:, k - 2]
            hidden, new = _old_run(f, m.embed_tokens(tok), hidden, rows + k - 1, rows, cache, diag)
            for i, (kk, vv) in enumerate(new):
                diag[i][0].append(kk)
                diag[i][1].append(vv)
            out[:, k - 1] = f.to_target(f.logits(hidden).argmax(-1))
        outs.append(out)
    return outs[0], outs[1]


@pytest.mark.parametrize("edits", ["none", "few", "most"])
def test_one_target_token_chain_reproduces_both_old_chains(pair: dict[str, Any], edits: str) -> None:
    """Replay's run lengths from the target-token chain, and the teacher-forced (dump-token) tokens
    recomputed only where needed, equal the old own-token and dump-token chains exactly (fp32), also on
    dumps whose tokens are not the target's (a few edited: a subset of rows; most: all rows again)."""
    from comparelib.audit import dumps

    root = pair["root"]
    head = offline.load_target_head(str(root / "target"))
    ld = offline.load_draft(str(root / "draft"), target=head)
    f = offline.Forward(ld)
    steps, gen, checked = 5, torch.Generator().manual_seed(7), 0
    with torch.inference_mode():
        for sample in dumps.iter_samples(root / "dumps"):
            ids = sample.input_ids.clone()
            n = ids.shape[0]
            if edits != "none":
                where = torch.randperm(n - PROMPT, generator=gen)[: 2 if edits == "few" else n - PROMPT] + PROMPT
                ids[where] = (ids[where] + 1 + torch.randint(0, VOCAB - 1, where.shape, generator=gen)) % VOCAB
            g = offline.target_tokens(sample, head, "cpu", torch.float32, normed=False)
            own, teach = _old_both_chains(f, ids, sample.aux.float(), steps)
            run, new_teach = f.both_chains(ids, sample.aux.float(), g, steps, sample.loss_mask)
            assert run.tolist() == offline.run_lengths(own, g, steps)
            counted = torch.cat([sample.loss_mask[:-1], torch.zeros(steps + 1, dtype=torch.long)])
            read = counted[torch.arange(n)[:, None] + torch.arange(steps)[None, :]] > 0  # step k at t: mask[t+k-1]
            assert torch.equal(new_teach[read], teach[read])
            st = f.launch(ids, sample.aux.float(), g, steps, sample.loss_mask)
            rows = st.differ.nonzero().flatten().tolist()
            if edits == "none":  # only rows that feed prompt tokens (not the target's) into counted steps
                assert rows and max(rows) < PROMPT - 2, rows
            else:
                assert len(rows) > (PROMPT - 2 if edits == "few" else n // 2), rows
            checked += 1
    assert checked == SEQS


def test_teacher_target_skips_the_dump_chain_and_says_so(pair: dict[str, Any], capsys: Any) -> None:
    """On the target's own greedy output the replay and the conditional acc are the same either way; only
    SpecForge's figure moves (rows before a span feed the prompt's tokens into counted steps)."""
    dump = _eval_json(pair, capsys, "--steps", "4")
    target = _eval_json(pair, capsys, "--steps", "4", "--teacher", "target")
    for key in ("al_replay", "al_positions", "cycles"):
        assert [b[key] for b in target["by_steps"]] == [b[key] for b in dump["by_steps"]]
    assert target["acc"] == dump["acc"]
    # SpecForge's unconditional figure may move (rows before a span feed the prompt's tokens into counted steps), or
    # not: whether it does rests on the tiny model's float rounding, which differs between CPUs (on one machine the
    # two lists came out equal); it is a figure for each step either way
    un_t, un_d = target["acc_unconditional"], dump["acc_unconditional"]
    assert len(un_t) == len(un_d) == 4 and all(v is None or 0.0 <= v <= 1.0 for v in un_t), un_t
    assert target["teacher"] == "target" and any("--teacher target" in n for n in target["notes"])


def test_mapped_dump_files_read_the_same_samples(pair: dict[str, Any]) -> None:
    """The evaluator maps torch.save files on a GPU run (read once, into page-locked memory, off the main
    thread); a mapped read gives the same tensors as a plain one."""
    from comparelib.audit import dumps

    plain = list(dumps.iter_samples(pair["root"] / "dumps"))
    mapped = list(dumps.iter_samples(pair["root"] / "dumps", mmap=True))
    assert [s.name for s in mapped] == [s.name for s in plain] and len(plain) == SEQS
    for a, b in zip(plain, mapped, strict=True):
        for name in ("input_ids", "loss_mask", "final", "aux"):
            assert torch.equal(getattr(a, name), getattr(b, name))


def test_an_unknown_teacher_is_refused_before_any_work(tmp_path: Path) -> None:
    from comparelib.errors import InputError

    with pytest.raises(InputError, match="--teacher must be one of dump, target"):
        offline.evaluate("nowhere", tmp_path, teacher="labels")
