"""comparelib.models.hub against the local Hub emulator: parsing, fetching, errors, offline, token hygiene."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from comparelib.audit import hubdata
from comparelib.errors import (
    ConfigError,
    EntryNotFoundError,
    GatedRepoError,
    HostNotAllowedError,
    HubError,
    InputError,
    OfflineError,
    RepoNotFoundError,
    RevisionNotFoundError,
)
from comparelib.models import hub as hublib
from tests.hub_emulator import (  # the `hub` fixture comes from the plugin registered in conftest.py
    DEFAULT_TOKEN,
    UNGRANTED_TOKEN,
    HubEmulator,
    safetensors_file,
    start_emulator,
    write_safetensors_bytes,
)

SHA = "0123456789abcdef0123456789abcdef01234567"
MIRROR = "http://hub.mirror.test:8080"

# (pasted text, (repo_id, revision, filename, subfolder, repo_type))
PARSE_CASES = [
    ("https://huggingface.co/org/name", ("org/name", None, None, None, "model")),
    ("https://huggingface.co/org/name/", ("org/name", None, None, None, "model")),
    ("  https://huggingface.co/org/name  ", ("org/name", None, None, None, "model")),
    ("https://huggingface.co/org/name/tree/main", ("org/name", "main", None, None, "model")),
    ("https://huggingface.co/org/name/tree/v1.0", ("org/name", "v1.0", None, None, "model")),
    ("https://huggingface.co/org/name/blob/main/config.json", ("org/name", "main", "config.json", None, "model")),
    (f"https://huggingface.co/org/name/resolve/{SHA}/config.json", ("org/name", SHA, "config.json", None, "model")),
    ("https://huggingface.co/org/name/raw/dev/config.json", ("org/name", "dev", "config.json", None, "model")),
    (
        "https://huggingface.co/org/name/resolve/main/config.json?download=true",
        ("org/name", "main", "config.json", None, "model"),
    ),
    (
        "https://huggingface.co/org/name/blob/main/draft/config.json",
        ("org/name", "main", "draft/config.json", None, "model"),
    ),
    ("https://huggingface.co/org/name/tree/main/draft", ("org/name", "main", None, "draft", "model")),
    ("https://huggingface.co/org/name/tree/refs%2Fpr%2F1", ("org/name", "refs/pr/1", None, None, "model")),
    ("https://huggingface.co/org/name/tree/refs/pr/1", ("org/name", "refs/pr/1", None, None, "model")),
    (
        "https://huggingface.co/org/name/blob/refs%2Fpr%2F3/config.json",
        ("org/name", "refs/pr/3", "config.json", None, "model"),
    ),
    (
        "https://huggingface.co/org/name/blob/refs/pr/3/config.json",
        ("org/name", "refs/pr/3", "config.json", None, "model"),
    ),
    ("https://huggingface.co/org/name?library=transformers#model-card", ("org/name", None, None, None, "model")),
    ("https://hf.co/org/name", ("org/name", None, None, None, "model")),
    ("https://www.huggingface.co/org/name/tree/dev", ("org/name", "dev", None, None, "model")),
    ("HTTPS://HuggingFace.co/Org/Name", ("Org/Name", None, None, None, "model")),
    ("huggingface.co/org/name", ("org/name", None, None, None, "model")),
    ("hf.co/org/name/tree/dev", ("org/name", "dev", None, None, "model")),
    ("huggingface.co/org/name/blob/main/config.json", ("org/name", "main", "config.json", None, "model")),
    (f"https://huggingface.co/org/name/commit/{SHA}", ("org/name", SHA, None, None, "model")),
    ("https://huggingface.co/org/name/discussions/4", ("org/name", None, None, None, "model")),
    ("org/name", ("org/name", None, None, None, "model")),
    ("org/name@dev", ("org/name", "dev", None, None, "model")),
    (f"org/name@{SHA}", ("org/name", SHA, None, None, "model")),
    ("org/name@refs/pr/2", ("org/name", "refs/pr/2", None, None, "model")),
    ("org/name/blob/main/config.json", ("org/name", "main", "config.json", None, "model")),
    ("gpt2", ("gpt2", None, None, None, "model")),
    ("AQ-MedAI/Kimi-K2-Instruct-eagle3", ("AQ-MedAI/Kimi-K2-Instruct-eagle3", None, None, None, "model")),
    (
        "https://huggingface.co/yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        ("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", None, None, None, "model"),
    ),
    ("hf://org/name", ("org/name", None, None, None, "model")),
    ("hf://org/name@rev1/config.json", ("org/name", "rev1", "config.json", None, "model")),
    ("hf://org/name@refs/pr/7/config.json", ("org/name", "refs/pr/7", "config.json", None, "model")),
    ("hf://datasets/org/ds@main", ("org/ds", "main", None, None, "dataset")),
    ("https://huggingface.co/datasets/org/ds", ("org/ds", None, None, None, "dataset")),
    (
        "https://huggingface.co/datasets/org/ds/blob/main/data/train.jsonl",
        ("org/ds", "main", "data/train.jsonl", None, "dataset"),
    ),
    ("datasets/org/ds", ("org/ds", None, None, None, "dataset")),
    ("https://huggingface.co/models/org/name", ("org/name", None, None, None, "model")),
    (f"{MIRROR}/org/name/tree/main", ("org/name", "main", None, None, "model")),
    ("hub.mirror.test:8080/org/name", ("org/name", None, None, None, "model")),
]

# (pasted text, exception class, fragment of the message)
PARSE_ERRORS = [
    ("https://github.com/org/name", HostNotAllowedError, "github.com is not one"),
    ("github.com/org/name/blob/main/config.json", HostNotAllowedError, "github.com is not one"),
    ("https://huggingface.co.evil.com/org/name", HostNotAllowedError, "huggingface.co.evil.com is not one"),
    ("https://hf.co@evil.example/org/name", HostNotAllowedError, "evil.example is not one"),
    ("http://127.0.0.1:9/org/name", HostNotAllowedError, "127.0.0.1 is not one"),
    ("http://hub.mirror.test:9999/org/name", HostNotAllowedError, "hub.mirror.test is not one"),
    ("https://modelscope.cn/models/org/name", HostNotAllowedError, "only Hugging Face Hub URLs are fetched"),
    ("ftp://huggingface.co/org/name", InputError, "unsupported address"),
    ("", InputError, "nothing to look up"),
    ("   ", InputError, "nothing to look up"),
    ("org--bad/name", InputError, "not a valid Hub repo id"),
    ("org/na..me", InputError, "not a valid Hub repo id"),
    ("-org/name", InputError, "not a valid Hub repo id"),
    ("org/name.", InputError, "not a valid Hub repo id"),
    ("a/b/c", InputError, "not a Hub repo id or URL"),
    ("org/name@", InputError, "nothing after '@'"),
    ("https://huggingface.co/spaces/org/app", InputError, "space"),
    ("https://huggingface.co/", InputError, "names no repository"),
    ("./no-such-folder-here", InputError, "no such file or folder"),
    ("/definitely/not/a/real/folder", InputError, "no such file or folder"),
    # dot segments anywhere a URL is built from, however encoded: an HTTP client resolves them
    ("https://huggingface.co/evil/ok/tree/main/..%2F..%2F..", InputError, "'../../..' is not a path inside the"),
    (
        "https://huggingface.co/evil/ok/tree/main/..%2F..%2Fevil%2Fpickle%2Fresolve%2Fmain",
        InputError,
        "'../../evil/pickle/resolve/main' is not a path inside the repository",
    ),
    ("https://huggingface.co/evil/ok/blob/main/%2E%2E/config.json", InputError, "not a path inside the repository"),
    ("https://huggingface.co/evil/ok/tree/main/a%5C..%5Cb", InputError, "not a path inside the repository"),
    ("https://huggingface.co/evil/ok/commit/..", InputError, "'..' is not a valid revision"),
    ("https://huggingface.co/evil/ok/tree/.%2Fx", InputError, "'./x' is not a valid revision"),
    ("evil/ok/blob/main/../../config.json", InputError, "not a path inside the repository"),
    ("evil/ok@..", InputError, "'..' is not a valid revision"),
    ("evil/ok@%2E%2E", InputError, "'..' is not a valid revision"),
    ("evil/ok@main/../x", InputError, "'../x' is not a path inside the repository"),
    ("hf://evil/ok@../x", InputError, "'..' is not a valid revision"),
    ("hf://evil/ok@main/../../config.json", InputError, "not a path inside the repository"),
    ("hf://datasets/evil/ok@main/../..", InputError, "not a path inside the repository"),
]


@pytest.fixture
def mirror_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", MIRROR)


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES)
def test_parse_ref(text: str, expected: tuple, mirror_endpoint: None) -> None:
    ref = hublib.parse_ref(text)
    assert (ref.repo_id, ref.revision, ref.filename, ref.subfolder, ref.repo_type) == expected
    assert ref.local_path is None


@pytest.mark.parametrize(("text", "exc", "fragment"), PARSE_ERRORS)
def test_parse_ref_rejects(text: str, exc: type[Exception], fragment: str, mirror_endpoint: None) -> None:
    with pytest.raises(exc) as info:
        hublib.parse_ref(text)
    assert fragment in str(info.value)


def test_parse_ref_endpoint_with_path_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://localhost:8080/hf")
    ref = hublib.parse_ref("http://localhost:8080/hf/org/name/tree/dev")
    assert (ref.repo_id, ref.revision) == ("org/name", "dev")


def test_parse_ref_local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "my-draft"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    assert hublib.parse_ref(str(folder)) == hublib.ModelRef(local_path=folder.resolve())
    as_file = hublib.parse_ref(str(folder / "config.json"))
    assert (as_file.local_path, as_file.filename) == (folder.resolve(), "config.json")
    monkeypatch.chdir(tmp_path)
    assert hublib.parse_ref("./my-draft").local_path == folder.resolve()
    assert hublib.parse_ref("my-draft").local_path == folder.resolve()  # an existing folder wins over a repo name
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="has no config.json"):
        hublib.parse_ref(str(empty))
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(InputError, match="not a config file"):
        hublib.parse_ref(str(tmp_path / "weights.bin"))


# --------------------------------------------------------------------------------------------------
# fetching from the emulator

DRAFT_CONFIG = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "num_attention_heads": 64,
    "num_key_value_heads": 64,
    "num_hidden_layers": 1,
    "vocab_size": 163840,
    "draft_vocab_size": 32000,
    "torch_dtype": "bfloat16",
}
# Real-sized shapes of a Kimi-K2 EAGLE-3 draft: ~3 GB of bf16 if it were materialised.
KIMI_TENSORS = {
    "fc.weight": ((7168, 21504), "BF16"),
    "midlayer.self_attn.q_proj.weight": ((8192, 14336), "BF16"),
    "midlayer.self_attn.k_proj.weight": ((8192, 14336), "BF16"),
    "midlayer.self_attn.v_proj.weight": ((8192, 14336), "BF16"),
    "midlayer.self_attn.o_proj.weight": ((7168, 8192), "BF16"),
    "midlayer.mlp.gate_proj.weight": ((18432, 7168), "BF16"),
    "midlayer.mlp.up_proj.weight": ((18432, 7168), "BF16"),
    "midlayer.mlp.down_proj.weight": ((7168, 18432), "BF16"),
    "midlayer.input_layernorm.weight": ((7168,), "BF16"),
    "midlayer.hidden_norm.weight": ((7168,), "BF16"),
    "norm.weight": ((7168,), "BF16"),
    "lm_head.weight": ((32000, 7168), "BF16"),
    "d2t": ((32000,), "I64"),
    "t2d": ((163840,), "BOOL"),
}
CARD = "---\nlicense: mit\nbase_model: moonshotai/Kimi-K2-Instruct\n---\n# Kimi draft\nTrained on 1.4M samples.\n"


def _safetensors_gets(em: HubEmulator) -> list:
    return [r for r in em.requests if r.url_path.endswith(".safetensors") and r.method == "GET"]


def test_fetch_unsharded_reads_only_the_header(hub: HubEmulator) -> None:
    commit = hub.add_model("AQ-MedAI/Kimi-K2-Instruct-eagle3", DRAFT_CONFIG, tensors=KIMI_TENSORS, card=CARD)
    model = hublib.fetch_model("https://huggingface.co/AQ-MedAI/Kimi-K2-Instruct-eagle3")
    assert model.config == DRAFT_CONFIG
    assert model.card == CARD
    assert model.commit_sha == commit
    assert model.source_label == f"AQ-MedAI/Kimi-K2-Instruct-eagle3@{commit[:7]}"
    assert model.revision is None
    assert model.files == ["README.md", "config.json", "model.safetensors"]
    assert model.safetensors_header == {name: (shape, dtype) for name, (shape, dtype) in KIMI_TENSORS.items()}
    gets = _safetensors_gets(hub)
    assert gets and all(r.range is not None and r.status == 206 for r in gets)
    file_size = sum(b.size for b in [safetensors_file(KIMI_TENSORS, metadata={"format": "pt"})])
    assert file_size > 2_000_000_000
    assert hub.bytes_served(".safetensors") <= 100_001 * len(gets) < file_size // 10_000
    assert model.page_url == f"{hub.url}/AQ-MedAI/Kimi-K2-Instruct-eagle3/tree/{commit}"


def test_fetch_sharded_header(hub: HubEmulator) -> None:
    hub.add_model("org/sharded", DRAFT_CONFIG, tensors=KIMI_TENSORS, shards=3)
    model = hublib.fetch_model("org/sharded")
    assert model.safetensors_header is not None
    assert set(model.safetensors_header) == set(KIMI_TENSORS)
    assert model.safetensors_header["lm_head.weight"] == ((32000, 7168), "BF16")
    assert model.card is None  # no README in the repo: fine, not an error
    shard_gets = _safetensors_gets(hub)
    assert {r.url_path.rsplit("/", 1)[-1] for r in shard_gets} == {
        f"model-0000{i}-of-00003.safetensors" for i in (1, 2, 3)
    }
    assert all(r.status == 206 for r in shard_gets)
    assert hub.bytes_served(".safetensors") <= 3 * 100_001


def test_fetch_header_from_many_shards_with_big_header(hub: HubEmulator) -> None:
    # 3000 tensors make a header bigger than the first 100 kB range: the client asks for the rest.
    tensors = {f"layers.{i}.weight": ((1024, 1024), "F16") for i in range(3000)}
    hub.add_model("org/big-header", {"hidden_size": 1024}, tensors=tensors)
    model = hublib.fetch_model("org/big-header")
    assert model.safetensors_header is not None and len(model.safetensors_header) == 3000
    assert len(_safetensors_gets(hub)) == 2
    assert hub.bytes_served(".safetensors") < 400_000


def test_fetch_without_safetensors_has_no_header(hub: HubEmulator) -> None:
    hub.add_repo(
        "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        {"config.json": json.dumps({"hidden_size": 4096}).encode(), "pytorch_model.bin": b"\0" * 64},
    )
    model = hublib.fetch_model("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B")
    assert model.safetensors_header is None
    assert model.config == {"hidden_size": 4096}
    assert not any(r.url_path.endswith(".bin") for r in hub.requests)  # weights never touched


def test_fetch_without_header_or_card_skips_those_requests(hub: HubEmulator) -> None:
    hub.add_model("org/m", DRAFT_CONFIG, tensors=KIMI_TENSORS, card=CARD)
    model = hublib.fetch_model("org/m", with_card=False, with_header=False)
    assert model.card is None and model.safetensors_header is None
    assert not any(r.url_path.endswith((".safetensors", "README.md")) for r in hub.requests)


CONFIG_ONLY = {"with_card": False, "with_header": False, "with_files": False}


def test_config_only_fetch_asks_for_config_json_alone(hub: HubEmulator) -> None:
    """What Overview fetches of a draft: no repo listing (no /api/models, so no HfApi), no card, no header."""
    sha = hub.add_model("org/m", DRAFT_CONFIG, tensors=KIMI_TENSORS, card=CARD)
    hub.clear_requests()
    model = hublib.fetch_model("org/m", **CONFIG_ONLY)
    assert model.config == DRAFT_CONFIG and model.commit_sha == sha and model.source_label == f"org/m@{sha[:7]}"
    assert model.card is None and model.safetensors_header is None
    assert {r.url_path for r in hub.requests} == {"/org/m/resolve/main/config.json"}


def _failure(fetch: object) -> tuple[type, str]:
    with pytest.raises(HubError) as info:
        fetch()  # type: ignore[operator]
    return type(info.value), str(info.value)


@pytest.mark.parametrize("case", ["missing", "private", "gated", "ungranted", "revision", "no-config", "bad-token"])
def test_config_only_fetch_fails_like_the_full_one(
    hub: HubEmulator, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """Without the listing, the config's own HEAD meets each Hub error: same type, same words."""
    hub.add_model("org/m", {"a": 1})
    hub.add_model("meta-llama/Gated", {"hidden_size": 8}, gated=True)
    hub.add_model("me/secret", {"hidden_size": 16}, private=True)
    hub.add_repo("org/weights-only", {"README.md": b"# nothing"})
    text = {
        "missing": "org/nope",
        "private": "me/secret",
        "gated": "meta-llama/Gated",
        "ungranted": "meta-llama/Gated",
        "revision": "org/m@nobranch",
        "no-config": "org/weights-only",
        "bad-token": "org/m",
    }[case]
    if case == "ungranted":
        monkeypatch.setenv("HF_TOKEN", UNGRANTED_TOKEN)
    if case == "bad-token":
        monkeypatch.setenv("HF_TOKEN", "hf_thisTokenIsWrong1234567890")
    full = _failure(lambda: hublib.fetch_model(text))
    alone = _failure(lambda: hublib.fetch_model(text, **CONFIG_ONLY))
    assert alone == full
    assert "hf_thisTokenIsWrong" not in alone[1] and UNGRANTED_TOKEN not in alone[1]


def test_fetch_subfolder(hub: HubEmulator) -> None:
    hub.add_repo(
        "org/multi",
        {
            "config.json": b'{"which": "root"}',
            "draft/config.json": b'{"which": "draft"}',
            "draft/model.safetensors": write_safetensors_bytes({"fc.weight": ((8, 24), "F16")}),
        },
    )
    by_tree = hublib.fetch_model("https://huggingface.co/org/multi/tree/main/draft")
    assert by_tree.config == {"which": "draft"}
    assert by_tree.safetensors_header == {"fc.weight": ((8, 24), "F16")}
    by_blob = hublib.fetch_model("https://huggingface.co/org/multi/blob/main/draft/config.json")
    assert by_blob.config == {"which": "draft"}
    root = hublib.fetch_model("org/multi")
    assert root.config == {"which": "root"} and root.safetensors_header is None


def test_revision_by_branch_sha_and_pr(hub: HubEmulator) -> None:
    main = hub.add_model("org/rev", {"v": "main"})
    dev = hub.add_model("org/rev", {"v": "dev"}, revision="dev")
    pr = hub.add_model("org/rev", {"v": "pr"}, revision="refs/pr/1")
    assert hublib.fetch_model("org/rev").config == {"v": "main"}
    by_branch = hublib.fetch_model("org/rev@dev")
    assert (by_branch.config, by_branch.commit_sha, by_branch.revision) == ({"v": "dev"}, dev, "dev")
    assert by_branch.source_label == f"org/rev@{dev[:7]}"
    by_sha = hublib.fetch_model(f"https://huggingface.co/org/rev/tree/{main}")
    assert (by_sha.config, by_sha.commit_sha) == ({"v": "main"}, main)
    by_pr = hublib.fetch_model("https://huggingface.co/org/rev/tree/refs%2Fpr%2F1")
    assert (by_pr.config, by_pr.commit_sha) == ({"v": "pr"}, pr)


def test_missing_repo(hub: HubEmulator) -> None:
    with pytest.raises(RepoNotFoundError) as info:
        hublib.fetch_model("org/nope")
    message = str(info.value)
    assert "org/nope not found on 127.0.0.1:" in message and "set HF_TOKEN if it is private" in message


def test_bad_revision(hub: HubEmulator) -> None:
    hub.add_model("org/m", {"a": 1})
    with pytest.raises(RevisionNotFoundError, match="'nobranch' not found in model org/m"):
        hublib.fetch_model("org/m@nobranch")


def test_no_config_json(hub: HubEmulator) -> None:
    hub.add_repo("org/weights-only", {"README.md": b"# nothing"})
    with pytest.raises(EntryNotFoundError, match="has no config.json"):
        hublib.fetch_model("org/weights-only")


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b'{"hidden_size": 4096,', "not valid JSON (line 1"),
        (b"[1, 2]", "JSON list, not an object"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
    ],
)
def test_malformed_config(hub: HubEmulator, raw: bytes, fragment: str) -> None:
    hub.add_model("org/broken", raw)
    with pytest.raises(ConfigError) as info:
        hublib.fetch_model("org/broken")
    assert "config.json of org/broken@" in str(info.value) and fragment in str(info.value)


def test_gated_repo_needs_token(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    hub.add_model("meta-llama/Gated", {"hidden_size": 8}, gated=True, card=CARD)
    with pytest.raises(GatedRepoError) as info:
        hublib.fetch_model("meta-llama/Gated")
    assert "is gated: accept its terms on the Hub" in str(info.value) and "set HF_TOKEN" in str(info.value)

    monkeypatch.setenv("HF_TOKEN", UNGRANTED_TOKEN)
    with pytest.raises(GatedRepoError) as info:
        hublib.fetch_model("meta-llama/Gated")
    assert "not been granted access" in str(info.value) and UNGRANTED_TOKEN not in str(info.value)

    monkeypatch.setenv("HF_TOKEN", DEFAULT_TOKEN)
    hub.clear_requests()
    model = hublib.fetch_model("meta-llama/Gated")
    assert model.config == {"hidden_size": 8} and model.card == CARD
    assert hub.requests and all(r.authorized for r in hub.requests)


def test_private_repo(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    hub.add_model("me/secret", {"hidden_size": 16}, private=True)
    with pytest.raises(RepoNotFoundError, match="or set HF_TOKEN if it is private"):
        hublib.fetch_model("me/secret")
    monkeypatch.setenv("HF_TOKEN", DEFAULT_TOKEN)
    assert hublib.fetch_model("me/secret").config == {"hidden_size": 16}


def test_invalid_token_is_reported_without_the_token(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = "hf_thisTokenIsWrong1234567890"
    monkeypatch.setenv("HF_TOKEN", bad)
    hub.add_model("org/m", {"a": 1})
    with pytest.raises(HubError) as info:
        hublib.fetch_model("org/m")
    assert "rejected HF_TOKEN" in str(info.value) and bad not in str(info.value)


@pytest.mark.parametrize("case", ["missing", "gated", "revision", "entry", "offline", "host"])
def test_token_never_in_messages_or_urls(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    monkeypatch.setenv("HF_TOKEN", UNGRANTED_TOKEN)
    hub.add_model("org/gated", {"a": 1}, gated=True)
    hub.add_repo("org/noconfig", {"README.md": b"x"})
    hub.add_model("org/ok", {"a": 1})
    text = {
        "missing": "org/nope",
        "gated": "org/gated",
        "revision": "org/ok@nope",
        "entry": "org/noconfig",
        "offline": "org/ok",
        "host": f"https://evil.example/org/ok?token={UNGRANTED_TOKEN}",
    }[case]
    if case == "offline":
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubError) as info:
        hublib.fetch_model(text)
    assert UNGRANTED_TOKEN not in str(info.value)
    for record in hub.requests:
        assert UNGRANTED_TOKEN not in record.path + record.query
        assert UNGRANTED_TOKEN not in json.dumps(record.headers)
        assert record.authorized  # sent, as a header


def test_non_hub_host_refused_before_any_request(hub: HubEmulator) -> None:
    hub.add_model("org/m", {"a": 1})
    for text in ("https://evil.example/org/m", "http://127.0.0.2:1/org/m", "https://hf.co.evil.example/org/m"):
        with pytest.raises(HostNotAllowedError, match="only Hugging Face Hub URLs are fetched"):
            hublib.fetch_model(text)
    assert hub.requests == []


@pytest.mark.parametrize(
    "path",
    ["/evil/ok/tree/main/..%2F..%2F..", "/evil/ok/tree/main/..%2F..%2Fevil%2Fpickle%2Fresolve%2Fmain", "@.."],
)
def test_dot_segments_send_nothing_with_the_token(
    hub: HubEmulator, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """Refused at parsing, not by huggingface_hub after a HEAD that went elsewhere on the Hub with the token."""
    hub.add_model("evil/ok", {"a": 1})
    monkeypatch.setenv("HF_TOKEN", DEFAULT_TOKEN)
    text = f"evil/ok{path}" if path.startswith("@") else f"{hub.url}{path}"
    with pytest.raises(InputError, match="is not a (valid revision|path inside the repository)"):
        hublib.fetch_model(text, with_card=False, with_header=False, with_files=False)
    with pytest.raises(InputError, match="is not a path inside"):
        hublib.download_file("evil/ok", "../../config.json")
    assert hub.requests == []


def test_emulator_host_is_allowed(hub: HubEmulator) -> None:
    hub.add_model("org/m", {"a": 1})
    assert hublib.fetch_model(f"{hub.url}/org/m/blob/main/config.json").config == {"a": 1}


def test_offline_without_cache(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    hub.add_model("org/m", {"a": 1})
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OfflineError) as info:
        hublib.fetch_model("org/m")
    assert "HF_HUB_OFFLINE is set" in str(info.value) and "not in the local cache" in str(info.value)
    assert hub.requests == []


def test_offline_with_cache(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    commit = hub.add_model("org/m", DRAFT_CONFIG, tensors=KIMI_TENSORS, card=CARD)
    online = hublib.fetch_model("org/m")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub.clear_requests()
    offline = hublib.fetch_model("org/m")
    assert hub.requests == []
    assert (offline.config, offline.card, offline.commit_sha) == (online.config, CARD, commit)
    assert offline.source_label == online.source_label
    assert "config.json" in offline.files
    assert offline.safetensors_header is None  # shapes need the Hub; the config is enough offline
    by_sha = hublib.fetch_model(f"org/m@{commit}")
    assert by_sha.config == DRAFT_CONFIG


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_hub_falls_back_to_cache(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    hub.add_model("org/m", {"a": 1}, card=CARD)
    hublib.fetch_model("org/m")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    cached = hublib.fetch_model("org/m")
    assert cached.config == {"a": 1} and cached.card == CARD
    with pytest.raises(OfflineError, match="could not reach 127.0.0.1:.* not in the local cache"):
        hublib.fetch_model("org/other")


CONFIG_ONLY = {"with_card": False, "with_header": False, "with_files": False}  # as the sidebar's draft reads it


@pytest.mark.parametrize("down", ["unreachable", "HF_HUB_OFFLINE"])
def test_shared_cache_serves_gated_repos_offline_only_to_the_token_that_read_them(
    hub: HubEmulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, down: str
) -> None:
    """A shared server (SPECDRAFT_DATA_ROOT) keeps one Hub cache for every session: while the Hub cannot check a
    token, a repo is served from it only if it was read without a token (public) or with this session's token."""
    from comparelib import settings

    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    hub.add_model("gated/g", {"secret_size": 1234}, gated=True, card=CARD)
    hub.add_model("me/private", {"secret_size": 99}, private=True)
    hub.add_model("org/pub", {"a": 1}, card=CARD)
    with settings.session_token(DEFAULT_TOKEN):  # session A
        hublib.fetch_model("gated/g", **CONFIG_ONLY)
        hublib.fetch_model("me/private")
    hublib.fetch_model("org/pub", **CONFIG_ONLY)  # no token: public
    if down == "unreachable":
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    else:
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    refused = "serves from its cache only repos it read without a token or with this session's Hub token"
    for token in (None, UNGRANTED_TOKEN, "hf_someoneElse123"):  # a new session, without A's token
        with settings.session_token(token):
            for name in ("gated/g", "me/private", "org/never-fetched"):  # worded alike: cached or not
                for kwargs in (CONFIG_ONLY, {}):
                    with pytest.raises(OfflineError, match=refused) as info:
                        hublib.fetch_model(name, **kwargs)
                    assert "secret_size" not in str(info.value)
            with pytest.raises(OfflineError, match=refused):
                hublib.download_file("gated/g", "README.md")
            assert hublib.fetch_model("org/pub").config == {"a": 1}  # public: still served offline
    with settings.session_token(DEFAULT_TOKEN):  # session A again (or another session with that token)
        assert hublib.fetch_model("gated/g", **CONFIG_ONLY).config == {"secret_size": 1234}
        assert hublib.fetch_model("me/private").config == {"secret_size": 99}
    monkeypatch.delenv("SPECDRAFT_DATA_ROOT")  # a single user's own cache: served as before
    assert hublib.fetch_model("gated/g", **CONFIG_ONLY).config == {"secret_size": 1234}


def test_public_offline_is_the_hubs_word(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Model info (not private, not gated) marks a repo public whatever token read it; a repo that went gated
    since is no longer served offline to sessions without the token."""
    from comparelib import settings

    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    hub.add_model("org/pub", {"a": 1})
    hub.add_model("org/later-gated", {"b": 2})
    with settings.session_token(DEFAULT_TOKEN):
        hublib.fetch_model("org/pub")
    hublib.fetch_model("org/later-gated")  # public, read without a token
    hub.add_model("org/later-gated", {"b": 3}, gated=True)
    with settings.session_token(DEFAULT_TOKEN):
        assert hublib.fetch_model("org/later-gated").config == {"b": 3}
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hublib.fetch_model("org/pub").config == {"a": 1}
    with pytest.raises(OfflineError, match="serves from its cache only"):
        hublib.fetch_model("org/later-gated")
    with settings.session_token(DEFAULT_TOKEN):
        assert hublib.fetch_model("org/later-gated").config == {"b": 3}


def test_shared_cache_keeps_private_dataset_cards_for_their_token(
    hub: HubEmulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from comparelib import settings

    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    readme = b"---\ndataset_info:\n  splits:\n  - name: train\n    num_examples: 532000\n---\n"
    hub.add_repo("me/private-ds", {"README.md": readme}, repo_type="dataset", private=True)
    with settings.session_token(DEFAULT_TOKEN):
        hublib.download_file("me/private-ds", "README.md", repo_type="dataset")
        assert hubdata.dataset_info_rows("me/private-ds") == {"default": {"train": 532000}}
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hubdata.dataset_info_rows("me/private-ds") is None  # the cached card is not read for this session
    with settings.session_token(DEFAULT_TOKEN):
        assert hubdata.dataset_info_rows("me/private-ds") == {"default": {"train": 532000}}


def test_dataset_ref_is_refused_by_fetch_model(hub: HubEmulator) -> None:
    with pytest.raises(InputError, match="dataset repo"):
        hublib.fetch_model("https://huggingface.co/datasets/org/ds")
    assert hub.requests == []


def test_download_file(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    hub.add_model("org/m", {"a": 1}, extra_files={"tokenizer_config.json": b'{"chat_template": "x"}'})
    hub.add_repo("org/ds", {"data/train.jsonl": b'{"text": "hi"}\n'}, repo_type="dataset")
    path = hublib.download_file("org/m", "tokenizer_config.json")
    assert json.loads(path.read_text()) == {"chat_template": "x"}
    assert str(path).startswith(str(hublib.hub_cache_dir()))
    assert hublib.download_file("org/ds", "data/train.jsonl", repo_type="dataset").read_text() == '{"text": "hi"}\n'
    with pytest.raises(EntryNotFoundError, match="org/m has no tokenizer.json"):
        hublib.download_file("org/m", "tokenizer.json")
    with pytest.raises(RepoNotFoundError, match="dataset org/missing not found"):
        hublib.download_file("org/missing", "x.jsonl", repo_type="dataset")
    with pytest.raises(InputError):
        hublib.download_file("bad--id/x", "a")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub.clear_requests()
    assert hublib.download_file("org/m", "tokenizer_config.json") == path
    assert hub.requests == []
    with pytest.raises(OfflineError, match="HF_HUB_OFFLINE"):
        hublib.download_file("org/m", "config.json")


DATASET_INFO = {
    "dataset_info": [
        {
            "config_name": "default",
            "splits": [
                {"name": "train", "num_examples": 68000, "num_bytes": 1},
                {"name": "test", "num_examples": 100},
            ],
        },
        {"config_name": "ultrachat", "splits": [{"name": "train_sft", "num_examples": 207865}]},
    ]
}


def test_dataset_info_rows(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    hub.add_repo("org/from-card-data", {"README.md": b"# x"}, repo_type="dataset", card_data=DATASET_INFO)
    assert hubdata.dataset_info_rows("org/from-card-data") == {
        "default": {"train": 68000, "test": 100},
        "ultrachat": {"train_sft": 207865},
    }
    readme = b"---\ndataset_info:\n  features: []\n  splits:\n  - name: train\n    num_examples: 532000\n---\n# d\n"
    hub.add_repo("org/from-readme", {"README.md": readme}, repo_type="dataset")
    assert hubdata.dataset_info_rows("org/from-readme") == {"default": {"train": 532000}}
    hub.add_repo("org/silent", {"README.md": b"---\nlicense: mit\n---\n"}, repo_type="dataset")
    assert hubdata.dataset_info_rows("org/silent") is None
    hub.add_repo("org/no-card", {"data.jsonl": b"{}\n"}, repo_type="dataset")
    assert hubdata.dataset_info_rows("org/no-card") is None
    with pytest.raises(RepoNotFoundError):
        hubdata.dataset_info_rows("org/absent")
    # offline: the cached README answers
    hublib.download_file("org/from-readme", "README.md", repo_type="dataset")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hubdata.dataset_info_rows("org/from-readme") == {"default": {"train": 532000}}
    assert hubdata.dataset_info_rows("org/silent") is None


# --------------------------------------------------------------------------------------------------
# local folders


def test_fetch_local_folder(tmp_path: Path) -> None:
    folder = tmp_path / "local-draft"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(DRAFT_CONFIG))
    (folder / "README.md").write_text(CARD)
    tensors = {"fc.weight": ((16, 48), "BF16"), "norm.weight": ((16,), "F32")}
    (folder / "model.safetensors").write_bytes(write_safetensors_bytes(tensors))
    model = hublib.fetch_model(str(folder))
    assert model.config == DRAFT_CONFIG and model.card == CARD
    assert model.safetensors_header == tensors
    assert model.source_label == "local-draft" and model.commit_sha is None and model.repo_id is None
    assert model.files == ["README.md", "config.json", "model.safetensors"]
    assert hublib.fetch_model(str(folder / "config.json")).config == DRAFT_CONFIG


def test_fetch_local_sharded_and_broken(tmp_path: Path) -> None:
    folder = tmp_path / "sharded"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model-00001-of-00002.safetensors").write_bytes(write_safetensors_bytes({"a": ((2, 3), "F16")}))
    (folder / "model-00002-of-00002.safetensors").write_bytes(write_safetensors_bytes({"b": ((4,), "I64")}))
    index = {"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    assert hublib.fetch_model(str(folder)).safetensors_header == {"a": ((2, 3), "F16"), "b": ((4,), "I64")}
    (folder / "model-00002-of-00002.safetensors").write_bytes(b"\xff" * 8 + b"{}")
    with pytest.raises(ConfigError, match="impossible safetensors header length"):
        hublib.fetch_model(str(folder))
    (folder / "config.json").write_text("{oops")
    with pytest.raises(ConfigError, match="config.json is not valid JSON"):
        hublib.fetch_model(str(folder))


# --------------------------------------------------------------------------------------------------
# the emulator itself


def test_write_safetensors_bytes_is_a_valid_file(tmp_path: Path) -> None:
    from safetensors import safe_open

    path = tmp_path / "t.safetensors"
    path.write_bytes(write_safetensors_bytes({"w": ((3, 5), "F32"), "b": ((5,), "BF16"), "i": ((2,), "I64")}))
    with safe_open(str(path), framework="numpy") as fh:
        assert fh.get_tensor("w").shape == (3, 5) and not fh.get_tensor("w").any()
        assert fh.get_slice("b").get_shape() == [5]
    header_only = write_safetensors_bytes({"w": ((3, 5), "F32")}, fill=False)
    assert hublib.read_safetensors_header(path) == {"w": ((3, 5), "F32"), "b": ((5,), "BF16"), "i": ((2,), "I64")}
    assert len(header_only) < 200 and len(header_only) % 8 == 0
    big = safetensors_file({"lm_head.weight": ((163840, 7168), "BF16")})
    assert big.size == len(big.prefix) + 163840 * 7168 * 2
    assert big.read(big.size - 4, big.size + 10) == b"\0" * 4


def test_emulator_range_and_error_headers(hub: HubEmulator) -> None:
    import httpx

    commit = hub.add_repo("org/m", {"config.json": b"0123456789"})
    with httpx.Client(base_url=hub.url) as client:
        head = client.head("/org/m/resolve/main/config.json")
        assert head.headers["X-Repo-Commit"] == commit and head.headers["Content-Length"] == "10"
        assert head.headers["Accept-Ranges"] == "bytes" and head.headers["ETag"].startswith('"')
        part = client.get("/org/m/resolve/main/config.json", headers={"Range": "bytes=2-4"})
        assert (part.status_code, part.content, part.headers["Content-Range"]) == (206, b"234", "bytes 2-4/10")
        suffix = client.get("/org/m/resolve/main/config.json", headers={"Range": "bytes=-3"})
        assert suffix.content == b"789"
        assert client.get("/org/m/resolve/main/config.json", headers={"Range": "bytes=20-"}).status_code == 416
        missing = client.get("/org/m/resolve/main/nope.json")
        assert (missing.status_code, missing.headers["X-Error-Code"]) == (404, "EntryNotFound")
        assert missing.headers["X-Repo-Commit"] == commit
        assert client.get("/api/models/org/m/revision/zzz").headers["X-Error-Code"] == "RevisionNotFound"
        anonymous = client.get("/api/models/org/none")
        assert (anonymous.status_code, anonymous.headers["X-Error-Code"]) == (401, "RepoNotFound")
        authed = client.get("/api/models/org/none", headers={"Authorization": f"Bearer {DEFAULT_TOKEN}"})
        assert authed.status_code == 404
    assert hub.requests[-1].authorized and hub.requests[-1].headers["Authorization"] == "<present>"


def test_start_emulator_function(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    repo = tmp_path / "repos" / "org" / "folder-model"
    repo.mkdir(parents=True)
    (repo / "config.json").write_text('{"from": "dir"}')
    url, stop = start_emulator(tmp_path / "repos")
    try:
        monkeypatch.setenv("HF_ENDPOINT", url)
        assert hublib.fetch_model("org/folder-model").config == {"from": "dir"}
    finally:
        stop()


def test_standalone_emulator_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repos" / "datasets" / "org" / "ds"
    repo.mkdir(parents=True)
    (repo / "README.md").write_text("---\ndataset_info:\n  splits:\n  - name: train\n    num_examples: 7\n---\n")
    model = tmp_path / "repos" / "org" / "draft"
    model.mkdir(parents=True)
    (model / "config.json").write_text('{"hidden_size": 32}')
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.hub_emulator", "--port", "0", "--repo-dir", str(tmp_path / "repos")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()  # printed once the socket is listening
        assert first.startswith("HUB_EMULATOR_URL=http://127.0.0.1:")
        monkeypatch.setenv("HF_ENDPOINT", first.split("=", 1)[1])
        assert hublib.fetch_model("org/draft").config == {"hidden_size": 32}
        assert hubdata.dataset_info_rows("org/ds") == {"default": {"train": 7}}
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_mirror_without_api(hub: HubEmulator) -> None:
    commit = hub.add_model("org/m", {"a": 1}, tensors={"w": ((4, 4), "F16")}, card=CARD)
    hub.api_enabled = False
    model = hublib.fetch_model("org/m")
    assert (model.config, model.commit_sha, model.card) == ({"a": 1}, commit, CARD)
    assert model.safetensors_header == {"w": ((4, 4), "F16")}
    sharded = hub.add_model("org/s", {"a": 2}, tensors={"x": ((2,), "F32"), "y": ((3,), "F32")}, shards=2)
    model = hublib.fetch_model("org/s")
    assert model.commit_sha == sharded and model.safetensors_header == {"x": ((2,), "F32"), "y": ((3,), "F32")}


def test_endpoint_that_is_not_a_hub(httpserver, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    httpserver.expect_request("/api/models/org/m").respond_with_data("not here", status=404)
    httpserver.expect_request("/org/m/resolve/main/config.json", method="HEAD").respond_with_data("")
    monkeypatch.setenv("HF_ENDPOINT", httpserver.url_for("").rstrip("/"))
    with pytest.raises(HubError, match="does not look like a Hugging Face Hub"):
        hublib.fetch_model("org/m")


# --- emulator listing routes: what HfFileSystem and `datasets` streaming call ----------------------

LISTING_FILES = {
    "README.md": b"# d\n",
    "data/train.jsonl": b'{"a": 1}\n',
    "data/sub/x.parquet": b"PAR1" + b"\0" * 60,
    "top.txt": b"t",
}

# (path_in_repo, recursive, paths listed)
TREE_CASES = [
    (None, False, ["data", "README.md", "top.txt"]),
    (None, True, ["data", "data/sub", "README.md", "data/sub/x.parquet", "data/train.jsonl", "top.txt"]),
    ("data", False, ["data/sub", "data/train.jsonl"]),
    ("data", True, ["data/sub", "data/sub/x.parquet", "data/train.jsonl"]),
    ("data/sub", False, ["data/sub/x.parquet"]),
]


@pytest.mark.parametrize(("path", "recursive", "expected"), TREE_CASES)
def test_emulator_tree_listing(hub: HubEmulator, path: str | None, recursive: bool, expected: list[str]) -> None:
    from huggingface_hub import HfApi, RepoFile, RepoFolder

    hub.add_repo("org/listed", LISTING_FILES, repo_type="dataset")
    api = HfApi(endpoint=hub.url)
    entries = list(api.list_repo_tree("org/listed", path, recursive=recursive, repo_type="dataset"))
    assert [e.path for e in entries] == expected
    for e in entries:
        if e.path in LISTING_FILES:
            assert isinstance(e, RepoFile) and e.size == len(LISTING_FILES[e.path])
            assert (e.lfs is not None) == e.path.endswith(".parquet")
        else:
            assert isinstance(e, RepoFolder)


def test_emulator_tree_errors_and_paths_info(hub: HubEmulator) -> None:
    from huggingface_hub import HfApi, HfFileSystem
    from huggingface_hub.errors import EntryNotFoundError, RevisionNotFoundError

    sha = hub.add_repo("org/listed", LISTING_FILES, repo_type="dataset")
    hub.add_repo(
        "org/listed", {"default/train/0000.parquet": b"PAR1"}, repo_type="dataset", revision="refs/convert/parquet"
    )
    api = HfApi(endpoint=hub.url)
    with pytest.raises(EntryNotFoundError):
        list(api.list_repo_tree("org/listed", "nope", repo_type="dataset"))
    with pytest.raises(RevisionNotFoundError):
        list(api.list_repo_tree("org/listed", repo_type="dataset", revision="v9"))
    converted = api.list_repo_tree("org/listed", repo_type="dataset", revision="refs/convert/parquet", recursive=True)
    assert [e.path for e in converted] == ["default", "default/train", "default/train/0000.parquet"]
    info = api.get_paths_info(
        "org/listed", ["data/train.jsonl", "data", "missing"], repo_type="dataset", revision=sha, expand=True
    )
    assert [(type(e).__name__, e.path) for e in info] == [("RepoFile", "data/train.jsonl"), ("RepoFolder", "data")]
    assert info[0].last_commit is not None and info[0].last_commit.oid == sha
    fs = HfFileSystem(endpoint=hub.url, token=False, skip_instance_cache=True)
    assert fs.info("datasets/org/listed/top.txt")["size"] == 1
    assert sorted(fs.glob("datasets/org/listed/data/**/*.parquet")) == ["datasets/org/listed/data/sub/x.parquet"]
    with fs.open("datasets/org/listed/data/sub/x.parquet", "rb", block_size=16) as fh:
        fh.seek(60)
        assert fh.read(4) == b"\0" * 4
    assert any(r.method == "POST" and "/paths-info/" in r.url_path for r in hub.requests)


def test_emulator_post_elsewhere_is_still_read_only(hub: HubEmulator) -> None:
    import httpx

    hub.add_repo("org/listed", LISTING_FILES, repo_type="dataset")
    assert httpx.post(f"{hub.url}/api/datasets/org/listed/commit/main", data={"x": "1"}).status_code == 405
    hub.api_enabled = False
    assert (
        httpx.post(f"{hub.url}/api/datasets/org/listed/paths-info/main", data={"paths": "top.txt"}).status_code == 404
    )
