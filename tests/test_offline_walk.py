"""eval-draft on dump files with NaN or inf hidden states: left out, said why, as SpecForge leaves them out.

The draft is tiny and its weights random; what is checked does not depend on them: a run over a folder with
one bad file must give exactly the figures of the same folder without that file.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from comparelib import cli
from tests.dump_fixtures import one_torch_thread  # noqa: F401 - autouse: one torch thread per module

H, V, INTER = 32, 64, 64
SEQS = [
    [1, 2, 3, 5, 5, 5, 7, 5, 5, 8, 5, 9, 5, 5, 5, 5, 4, 4],
    [10, 11, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5],
    [12, 13, 14, 15, 16, 17, 18, 19, 20, 21],
    [1, 2, 3, 4, 5, 5, 9, 9, 9, 1, 1, 20, 21, 5, 5, 5, 5, 9, 3],
]


def _draft(folder: Path) -> Path:
    """A one-layer EAGLE-3 draft in SpecForge's tensor names, random weights, full vocabulary."""
    g = torch.Generator().manual_seed(0)

    def w(*shape: int) -> torch.Tensor:
        return (torch.randn(*shape, generator=g) * 0.2).contiguous()

    state = {
        "fc.weight": w(H, 3 * H),
        "midlayer.hidden_norm.weight": torch.ones(H),
        "midlayer.input_layernorm.weight": torch.ones(H),
        "midlayer.self_attn.q_proj.weight": w(4 * 8, 2 * H),
        "midlayer.self_attn.k_proj.weight": w(2 * 8, 2 * H),
        "midlayer.self_attn.v_proj.weight": w(2 * 8, 2 * H),
        "midlayer.self_attn.o_proj.weight": w(H, 4 * 8),
        "midlayer.post_attention_layernorm.weight": torch.ones(H),
        "midlayer.mlp.gate_proj.weight": w(INTER, H),
        "midlayer.mlp.up_proj.weight": w(INTER, H),
        "midlayer.mlp.down_proj.weight": w(H, INTER),
        "norm.weight": torch.ones(H),
        "lm_head.weight": w(V, H),
        "embed_tokens.weight": w(V, H),
    }
    folder.mkdir(parents=True)
    save_file(state, str(folder / "model.safetensors"))
    config = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "hidden_size": H,
        "intermediate_size": INTER,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 8,
        "num_hidden_layers": 1,
        "vocab_size": V,
        "draft_vocab_size": V,
        "rms_norm_eps": 1e-6,
        "rope_theta": 10000.0,
        "max_position_embeddings": 256,
    }
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def _dumps(root: Path) -> Path:
    """SpecForge files with random states; the second half of each sequence is the supervised answer."""
    g = torch.Generator().manual_seed(1)
    folder = root / "rows_0-2000"
    folder.mkdir(parents=True)
    for i, seq in enumerate(SEQS):
        n = len(seq)
        mask = torch.zeros(n, dtype=torch.long)
        mask[n // 3 :] = 1
        rec = {
            "input_ids": torch.tensor(seq),
            "loss_mask": mask,
            "hidden_state": torch.randn(1, n, H, generator=g),
            "aux_hidden_state": torch.randn(1, n, 3 * H, generator=g),
        }
        torch.save(rec, folder / f"data_{i}.ckpt")
    return root


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("walk")
    clean = _dumps(root / "clean")
    without = root / "without_0"  # the reference: the same folder, file 0 never there
    shutil.copytree(clean, without)
    (without / "rows_0-2000" / "data_0.ckpt").unlink()
    return {"root": root, "draft": _draft(root / "draft"), "clean": clean, "without_0": without}


def _eval(draft: Path, dumps: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    rc = cli.main(["eval-draft", str(draft), "--dumps", str(dumps), "--steps", "3", *extra])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _spoil(folder: Path, index: int, key: str, fill: Callable[[torch.Tensor], None]) -> None:
    path = folder / "rows_0-2000" / f"data_{index}.ckpt"
    rec = torch.load(path, weights_only=True)
    fill(rec[key])
    torch.save(rec, path)


def _all_nan(t: torch.Tensor) -> None:
    t.fill_(float("nan"))


def _one_nan(t: torch.Tensor) -> None:
    t[0, 4, 7] = float("nan")


def _one_inf(t: torch.Tensor) -> None:
    t[0, 2, 0] = float("inf")


# (case, key spoiled in file 0, how, words the skipped reason holds)
BAD_CASES: list[tuple[str, str, Callable[[torch.Tensor], None], tuple[str, ...]]] = [
    ("aux all NaN", "aux_hidden_state", _all_nan, ("NaN", "18 of 18 positions", "aux")),
    ("one NaN in aux", "aux_hidden_state", _one_nan, ("1 NaN", "1 of 18 positions", "aux")),
    ("one inf in the final state", "hidden_state", _one_inf, ("1 inf", "1 of 18 positions", "final")),
]


@pytest.mark.parametrize(("case", "key", "fill", "words"), BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_a_file_with_non_finite_states_is_left_out_and_listed(
    made: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    case: str,
    key: str,
    fill: Callable[[torch.Tensor], None],
    words: tuple[str, ...],
) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(made["clean"], bad)
    _spoil(bad, 0, key, fill)
    rc, out, err = _eval(made["draft"], bad, capsys, "--json")
    assert rc == 0, err
    got = json.loads(out)
    rc, out, err = _eval(made["draft"], made["without_0"], capsys, "--json")
    assert rc == 0, err
    want = json.loads(out)
    assert got["samples"] == want["samples"] == len(SEQS) - 1
    assert got["tokens"] == want["tokens"] and got["rows"] == want["rows"]
    assert got["by_steps"] == want["by_steps"] and got["acc"] == want["acc"]  # nothing of file 0 counted
    (line,) = got["skipped"]
    assert line.startswith("rows_0-2000/data_0.ckpt: non-finite hidden states")
    for word in (*words, "SpecForge"):
        assert word in line, line
    assert want["skipped"] == []
    assert [n for n in got["notes"] if "NaN or inf" in n] and not [n for n in want["notes"] if "NaN or inf" in n]


def test_the_text_output_says_files_were_left_out_and_why(
    made: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(made["clean"], bad)
    _spoil(bad, 2, "aux_hidden_state", _one_nan)
    rc, out, err = _eval(made["draft"], bad, capsys)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("draft on 3 samples")
    assert lines[1] == "1 dump file left out (listed below, with why)"
    skipped = [line for line in lines if line.startswith("skipped ")]
    assert len(skipped) == 1 and "rows_0-2000/data_2.ckpt: non-finite hidden states (1 NaN" in skipped[0]
    rc, out, err = _eval(made["draft"], made["clean"], capsys)
    assert rc == 0 and "left out" not in out and "skipped" not in out  # a clean dump says nothing of it


def test_a_dump_whose_every_file_is_non_finite_is_an_error_that_says_why(
    made: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(made["clean"], bad)
    for i in range(len(SEQS)):
        _spoil(bad, i, "aux_hidden_state", _all_nan)
    rc, out, err = _eval(made["draft"], bad, capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "could be evaluated" in err and "non-finite hidden states" in err


def test_an_empty_file_is_listed_in_words(made: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path):
    folder = tmp_path / "d"
    shutil.copytree(made["clean"], folder)
    (folder / "rows_0-2000" / "data_7.ckpt").write_bytes(b"")
    rc, out, err = _eval(made["draft"], folder, capsys, "--json")
    assert rc == 0, err
    (line,) = json.loads(out)["skipped"]
    assert line == "rows_0-2000/data_7.ckpt: unreadable: empty or truncated (EOFError)"
