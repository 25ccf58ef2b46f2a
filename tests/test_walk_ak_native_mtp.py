"""Walk AK: a target whose config counts MTP layers drafts with them, whether or not the registry lists them.

`params deepseek-ai/DeepSeek-V3-0324` counted mtp 13,463,426,304 yet said only "Published drafts for it:
nebius/MTP-DeepSeek-V3-0324": the "own MTP layers" sentence matched the registry's deepseek-ai/DeepSeek-V3 entry by id.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.models import comparison, draft
from tests.hub_emulator import HubEmulator

TARGETS = Path(comparison.__file__).parent.parent / "builtin" / "targets"
OWN_MTP = "It drafts with its own MTP layers (native)"


def _config(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((TARGETS / f"{name}.json").read_text())


def test_deepseek_v3_0324_from_the_hub_says_it_drafts_with_its_own_mtp_layers(hub: HubEmulator) -> None:
    hub.add_model("deepseek-ai/DeepSeek-V3-0324", _config("deepseek-ai--DeepSeek-V3"))
    entry = comparison.load_entry("deepseek-ai/DeepSeek-V3-0324", with_header=False, with_card=False)
    assert entry.spec.role == "target" and entry.count.mtp > 0
    notice = draft.target_notice(entry)
    assert notice is not None
    assert "Published drafts for it: nebius/MTP-DeepSeek-V3-0324." in notice.sentence, notice.sentence
    assert OWN_MTP in notice.sentence, notice.sentence
    assert OWN_MTP in (comparison.role_note(entry) or "")


@pytest.mark.parametrize(
    ("name", "own"),
    [
        ("deepseek-ai--DeepSeek-V3", True),  # num_nextn_predict_layers 1
        ("moonshotai--Kimi-K2-Instruct", False),  # the same architecture, no MTP layers shipped
        ("meta-llama--Llama-3.1-8B-Instruct", False),
    ],
)
def test_a_local_target_says_own_mtp_layers_only_where_its_config_counts_them(
    tmp_path: Path, name: str, own: bool
) -> None:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(_config(name)))
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    notice = draft.target_notice(entry)
    assert notice is not None
    assert (OWN_MTP in notice.sentence) is own, notice.sentence
