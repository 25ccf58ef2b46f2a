"""A run naming another Hub repo id is never taken as your draft's (walk AM, finding 3).

The walk's group qwen35-walk: baselines at batch 1, 8 and 64 (#1, #8, #7), runs of qwen35lab/qwen35-397b-eagle3
(#2, #3, #5, #6, #9) and of the target's own MTP layers (#4, #10). With the published
AQ-MedAI/Qwen3.5-397B-A17B-eagle3 as "your draft", ``overview`` said "No run names your draft ...: the runs of
qwen35lab/qwen35-397b-eagle3 (#2, #3, #5, #6, #9) are taken as its" and reported "ours 4.00 (measured, run #9)" and
2.67x (#9/#1) for it: another repo's runs answered for the draft. Two repo ids that differ are two drafts; the
"taken as its" fallback is for a checkpoint served from a folder or path of another name.
"""

from __future__ import annotations

from comparelib.models.draft import runs_of_draft
from tests.fixtures import bench_config, bench_store, page_app, page_text, run_cli, store_run, stored_run
from tests.hub_emulator import HubEmulator

MINE = "AQ-MedAI/Qwen3.5-397B-A17B-eagle3"
OTHER = "qwen35lab/qwen35-397b-eagle3"
TARGET = "Qwen/Qwen3.5-397B-A17B"
GROUP = "qwen35-walk"
# (id, draft_model, algorithm, num_steps, topk, draft tokens, batch, tok/s, accept length): the walk's runs
WALK = (
    (1, None, None, None, None, None, 1, 45.6, None),
    (2, OTHER, "EAGLE3", 2, 1, 3, 64, 1280.0, 2.5),
    (3, OTHER, "EAGLE3", 2, 1, 3, 1, 93.4, 2.5),
    (4, TARGET, "EAGLE", 3, 1, 4, 1, 135.8, 3.45),
    (5, OTHER, "EAGLE3", 2, 1, 3, 8, 748.2, 2.5),
    (6, OTHER, "EAGLE3", 4, 1, 5, 1, 112.1, 3.45),
    (7, None, None, None, None, None, 64, 1468.5, None),
    (8, None, None, None, None, None, 8, 332.9, None),
    (9, OTHER, "EAGLE3", 4, 4, 8, 1, 121.8, 4.0),
    (10, TARGET, "EAGLE", 3, 1, 4, 8, 423.5, 3.45),
)


def _records(rows=WALK, draft_of=lambda d: d):  # noqa: ANN001, ANN202
    return [
        stored_run(i, steps, tok, al, algo=algo, draft=draft_of(d), model=TARGET, topk=k, ndt=ndt, concurrency=b)
        for i, d, algo, steps, k, ndt, b, tok, al in rows
    ]


def _store() -> None:
    store = bench_store()
    for _, d, algo, steps, k, ndt, b, tok, al in WALK:
        cfg = bench_config("sglang", TARGET, steps, draft=d, topk=k, ndt=ndt)
        cfg["speculative_algorithm"] = algo
        summary = {"requests": 32, "errors": 0, "output_tokens_per_s": tok, "accept_length": al}
        store_run(store, cfg, summary, group=GROUP, concurrency=b)


# the walk's config of the draft (the registry holds none): an EAGLE-3 layer of width 4,096 for the Qwen3.5 target
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
CARD = f"---\nlicense: apache-2.0\nbase_model: {TARGET}\n---\n# Qwen3.5-397B-A17B-eagle3\nEAGLE-3 draft.\n"


def _serve_mine(hub: HubEmulator) -> None:
    hub.add_model(MINE, CONFIG, card=CARD)


def test_runs_of_another_repo_id_are_left_out_not_taken_as_yours() -> None:
    split = runs_of_draft(_records(), MINE)
    assert [r.id for r in split.kept] == [1, 7, 8], split.note  # the baselines only
    assert sorted(r.id for r in split.left_out) == [2, 3, 4, 5, 6, 9, 10]
    note = split.note or ""
    assert "taken as its" not in note, note
    assert note.startswith("7 runs of another draft left out: #2 qwen35lab/qwen35-397b-eagle3, "), note
    assert f"(your draft is {MINE})" in note, note


def test_a_checkpoint_served_from_a_folder_of_another_name_is_still_taken_as_yours() -> None:
    """The fallback stays where a name cannot be matched: a path or bare folder name (no repo id to compare)."""
    for served in ("/ckpt/qwen35/epoch_9", "epoch_9", "./outputs/epoch_9"):
        split = runs_of_draft(_records(draft_of=lambda d, s=served: s if d == OTHER else d), MINE)
        assert [r.id for r in split.kept] == [1, 2, 3, 5, 6, 7, 8, 9], (served, split.note)
        assert f"No run names your draft {MINE}: the runs of {served} (#2, #3, #5, #6, #9) are taken as its" in (
            split.note or ""
        )
    # your draft a local folder: it has no repo id to tell a Hub id's runs from, so they may be its (as before)
    split = runs_of_draft(_records(), "/ckpt/qwen35/epoch_9")
    assert [r.id for r in split.kept] == [1, 2, 3, 5, 6, 7, 8, 9]


def test_the_cli_overview_and_its_plan_read_no_run_of_another_repo(hub: HubEmulator) -> None:
    _serve_mine(hub)
    _store()
    proc = run_cli("overview", MINE, "--group", GROUP, env={"HF_ENDPOINT": hub.url})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "taken as its" not in out, out
    assert "runs of another draft left out: #2 qwen35lab/qwen35-397b-eagle3" in out, out
    assert "2.67x" not in out and "run #9" not in out and "ours 4.00" not in out, out


def test_the_plan_reads_only_the_baselines(hub: HubEmulator) -> None:
    from comparelib.analysis import plan
    from comparelib.models import comparison

    _serve_mine(hub)
    entry = comparison.load_entry(MINE, with_header=False, with_card=False)
    inputs = plan.inputs_for(entry, runs=_records(), target=TARGET, draft=MINE)
    assert [r.id for r in inputs.runs] == [1, 7, 8]
    assert "taken as its" not in (inputs.runs_note or "")
    assert "#9 qwen35lab/qwen35-397b-eagle3" in (inputs.runs_note or ""), inputs.runs_note


def test_the_overview_page_agrees(hub: HubEmulator) -> None:
    _serve_mine(hub)
    _store()
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = MINE
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "taken as its" not in text, text
    assert "2.67x" not in text and "ours 4.00" not in text, text
    assert "runs of another draft left out: #2 qwen35lab/qwen35-397b-eagle3" in text, text
