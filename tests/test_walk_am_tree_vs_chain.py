"""A tree's acceptance is not set against a published chain's (walk AM, finding 2).

The walk's group qwen35-walk for the draft qwen35lab/qwen35-397b-eagle3 (target Qwen/Qwen3.5-397B-A17B), SGLang,
batch 1: chains at num_steps 2 (#3, 2.50) and 4 (#6, 3.45), and a tree at num_steps 4, topk 4, 8 draft tokens (#9,
4.00). The reference AQ-MedAI/Qwen3.5-397B-A17B-eagle3 publishes acceptance at batch 1 with no tree stated (HumanEval
3.47, MATH500 3.53, GSM8K 3.40). Overview said "Your draft is ahead in a higher measured acceptance (our 4.00 is 1.13
times the reference's highest, MATH500 3.53)": the tree's 4.00 against a chain's figure (a tree accepts more per
cycle by construction), while the best chain at that batch measured 3.45, below it.
"""

from __future__ import annotations

from comparelib.analysis import overview
from tests.fixtures import bench_config, bench_store, page_app, page_text, run_cli, store_run, stored_run
from tests.hub_emulator import HubEmulator

DRAFT = "qwen35lab/qwen35-397b-eagle3"
REF = "AQ-MedAI/Qwen3.5-397B-A17B-eagle3"
TARGET = "Qwen/Qwen3.5-397B-A17B"
GROUP = "qwen35-walk"
# (id, draft_model, algorithm, num_steps, topk, draft tokens, batch, tok/s, accept length): the walk's runs
WALK = (
    (1, None, None, None, None, None, 1, 45.6, None),
    (2, DRAFT, "EAGLE3", 2, 1, 3, 64, 1280.0, 2.5),
    (3, DRAFT, "EAGLE3", 2, 1, 3, 1, 93.4, 2.5),
    (4, TARGET, "EAGLE", 3, 1, 4, 1, 135.8, 3.45),
    (5, DRAFT, "EAGLE3", 2, 1, 3, 8, 748.2, 2.5),
    (6, DRAFT, "EAGLE3", 4, 1, 5, 1, 112.1, 3.45),
    (7, None, None, None, None, None, 64, 1468.5, None),
    (8, None, None, None, None, None, 8, 332.9, None),
    (9, DRAFT, "EAGLE3", 4, 4, 8, 1, 121.8, 4.0),
    (10, TARGET, "EAGLE", 3, 1, 4, 8, 423.5, 3.45),
)
TREE_ONLY = tuple(row for row in WALK if row[0] in (1, 9))
CONFIG = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "num_hidden_layers": 1,
    "vocab_size": 248320,
    "draft_vocab_size": 32000,
    "max_position_embeddings": 262144,
    "rms_norm_eps": 1e-6,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "target_hidden_size": 4096,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 29, 56], "use_aux_norm": False},
}
CARD = f"---\nlicense: apache-2.0\nbase_model: {TARGET}\n---\n# qwen35-397b-eagle3\nEAGLE-3 draft.\n"


def _records(rows=WALK):  # noqa: ANN001, ANN202
    return [
        stored_run(i, steps, tok, al, algo=algo, draft=d, model=TARGET, topk=k, ndt=ndt, concurrency=b)
        for i, d, algo, steps, k, ndt, b, tok, al in rows
    ]


def _store(rows=WALK) -> None:  # noqa: ANN001
    store = bench_store()
    for _, d, algo, steps, k, ndt, b, tok, al in rows:
        cfg = bench_config("sglang", TARGET, steps, draft=d, topk=k, ndt=ndt)
        cfg["speculative_algorithm"] = algo
        summary = {"requests": 32, "errors": 0, "output_tokens_per_s": tok, "accept_length": al}
        store_run(store, cfg, summary, group=GROUP, concurrency=b)


def _headline(out: str) -> str:
    """The CLI's headline: the paragraph after the header block."""
    return out.split("\n\n")[1].split("\n")[0]


def test_a_tree_does_not_draft_a_published_chain() -> None:
    tree = "steps=4,topk=4,draft=8,bs=1,tree,sglang"
    assert not overview._same_chain(tree, "steps=4")  # a published num_steps with no tree stated: a chain
    assert not overview._same_chain("steps=4,topk=1,draft=5,bs=1,sglang", "steps=4,topk=4,draft=8")
    assert overview._same_chain("steps=4,topk=1,draft=5,bs=1,sglang", "steps=4")
    assert overview._same_chain(tree, "steps=4,topk=4,draft=8")


def test_your_acceptance_against_a_chain_figure_is_your_best_chain_at_its_batch() -> None:
    mine = overview.own_acceptance(_records(), overview.reference_settings(REF), draft=DRAFT)
    assert mine is not None and mine.run.id == 6, mine
    assert mine.value == 3.45 and mine.unlike == ""
    assert "chain" in mine.why and "batch 1" in mine.why, mine.why
    # the tree is named as a tree, apart
    assert "tree run #9 (num_steps 4, topk 4, 8 draft tokens, batch 1) measured 4.00" in mine.why, mine.why


def test_a_tree_alone_is_said_not_like_for_like() -> None:
    mine = overview.own_acceptance(_records(TREE_ONLY), overview.reference_settings(REF), draft=DRAFT)
    assert mine is not None and mine.run.id == 9
    assert "tree" in mine.unlike and "chain" in mine.unlike, mine.unlike
    _, sentence = overview.largest_gap(
        data_ratio=None,
        size_ratio=None,
        accept_ratio=3.53 / 4.0,
        accept_detail="our 4.00 is 1.13 times the reference's highest, MATH500 3.53",
        accept_shape=mine.unlike,
        missing=["your training volume is missing"],
    )
    assert "ahead" not in sentence and "No real gap" not in sentence, sentence
    assert "not like for like" in sentence and "our 4.00 is 1.13 times" in sentence, sentence


def test_the_cli_headline_sets_the_best_chain_against_the_published_chain(hub: HubEmulator) -> None:
    hub.add_model(DRAFT, CONFIG, card=CARD)
    _store()
    proc = run_cli("overview", DRAFT, "--group", GROUP, env={"HF_ENDPOINT": hub.url})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    head = _headline(out)
    assert "ahead in a higher measured acceptance" not in out and "4.00 is 1.13" not in out, out
    assert "our 3.45" in head and "run #6" in head, head
    assert "ours 3.45 (measured, run #6" in out, out


def test_the_cli_headline_of_a_tree_alone_keeps_not_like_for_like(hub: HubEmulator) -> None:
    hub.add_model(DRAFT, CONFIG, card=CARD)
    _store(TREE_ONLY)
    proc = run_cli("overview", DRAFT, "--group", GROUP, env={"HF_ENDPOINT": hub.url})
    assert proc.returncode == 0, proc.stderr
    head = _headline(proc.stdout)
    assert "ahead" not in head and "No real gap" not in head, head
    assert "not like for like" in head and "tree" in head, head


def test_the_overview_page_agrees(hub: HubEmulator) -> None:
    hub.add_model(DRAFT, CONFIG, card=CARD)
    _store()
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "ahead in a higher measured acceptance" not in text and "4.00 is 1.13" not in text, text
    assert "(measured, run #6, the chain run with the highest measured acceptance at batch 1" in text, text
    assert "Your acceptance is your best chain's, 3.45 (run #6: num_steps 4, batch 1)" in text, text


def test_a_chain_alone_against_a_published_tree_is_said_not_like_for_like() -> None:
    """The rule both ways: a published tree (EAGLE-2's dynamic tree states no num_steps) against chains only."""
    chains = tuple(row for row in WALK if row[0] in (1, 3, 6))
    mine = overview.own_acceptance(_records(chains), ("bs=1,T=0,dynamic tree (EAGLE-2),eagle",), draft=DRAFT)
    assert mine is not None and mine.run.id == 6
    assert mine.unlike.startswith("ours is a chain's (run #6: num_steps 4) and the published figures are a tree's")
    # with a tree measured too (the best pair's run), that tree is taken: like for like
    both = overview.own_acceptance(_records(), ("bs=1,T=0,dynamic tree (EAGLE-2),eagle",), draft=DRAFT)
    assert both is not None and both.run.id == 9 and both.unlike == ""
