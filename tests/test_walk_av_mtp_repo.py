"""Walk AV1: a published MTP draft repo (a copy of the target's DeepseekV3ForCausalLM config, with
num_nextn_predict_layers 1, and a checkpoint holding only the MTP layer ``model.layers.{num_hidden_layers}.*``) was
counted as the whole target: nebius/MTP-DeepSeek-V3-0324 showed "is a target model (DeepseekV3ForCausalLM, 61
layers, 684 billion parameters), not a draft", and Overview called size "the largest gap" against 684B. It is the
MTP module: count that."""

from __future__ import annotations

from typing import Any

from comparelib.models import architectures, comparison, params, registry
from tests.fixtures import TINY_DEEPSEEK
from tests.hub_emulator import HubEmulator

NEBIUS = "nebius/MTP-DeepSeek-V3-0324"
OTHER = "mtplab/tiny-dsv3-mtp"  # in no registry: only its checkpoint says it is an MTP module


def _mtp_only_tensors() -> dict[str, tuple[tuple[int, ...], str]]:
    """The checkpoint of the MTP layer alone, as the target's spec lists it (model.layers.3.*)."""
    target = architectures.parse_config(TINY_DEEPSEEK, source="t")
    layer = f"model.layers.{TINY_DEEPSEEK['num_hidden_layers']}."
    out = {t.name: (tuple(t.shape), "BF16") for t in target.tensors if t.name.startswith(layer)}
    assert out and len(out) < len(target.tensors)
    return out


def _prod(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _check_mtp(entry: Any) -> None:
    elements = sum(_prod(s) for s, _ in _mtp_only_tensors().values())
    target_total = params.count(architectures.parse_config(TINY_DEEPSEEK, source="t")).total
    assert entry.spec.role == "draft", entry.spec.role
    assert entry.spec.dialect == "mtp"
    assert entry.count.total == elements < target_total  # the MTP layer (with its embedding and head), not the target
    assert comparison.role_note(entry) is None  # never "is a target model ..., not a draft"


def test_registry_mtp_draft_repo_is_the_mtp_module(hub: HubEmulator) -> None:
    assert registry.get_draft(NEBIUS).target_model == "deepseek-ai/DeepSeek-V3-0324"
    hub.add_model(NEBIUS, TINY_DEEPSEEK, tensors=_mtp_only_tensors(), card="---\nbase_model: x/y\n---\n")
    for with_header in (False, True):  # Overview reads no header
        entry = comparison.load_entry(NEBIUS, with_header=with_header, with_card=False)
        _check_mtp(entry)
        assert entry.target_label == "deepseek-ai/DeepSeek-V3-0324"
    entry = comparison.load_entry(NEBIUS, with_card=False)
    assert entry.checkpoint is not None and not entry.checkpoint.missing


def test_mtp_only_checkpoint_is_the_mtp_module(hub: HubEmulator) -> None:
    hub.add_model(OTHER, TINY_DEEPSEEK, tensors=_mtp_only_tensors())
    entry = comparison.load_entry(OTHER, with_card=False)
    _check_mtp(entry)
    assert entry.checkpoint is not None and not entry.checkpoint.missing


def test_full_checkpoint_stays_a_target(hub: HubEmulator) -> None:
    target = architectures.parse_config(TINY_DEEPSEEK, source="t")
    hub.add_model(
        "deepseek-ai/tiny-dsv3", TINY_DEEPSEEK, tensors={t.name: (tuple(t.shape), "BF16") for t in target.tensors}
    )
    entry = comparison.load_entry("deepseek-ai/tiny-dsv3", with_card=False)
    assert entry.spec.role == "target"
    assert comparison.role_note(entry) is not None


def test_registry_mtp_module_is_never_the_target(hub: HubEmulator) -> None:
    import pytest

    from comparelib.errors import InputError

    hub.add_model(NEBIUS, TINY_DEEPSEEK, tensors=_mtp_only_tensors())
    hub.add_model(OTHER, TINY_DEEPSEEK, tensors=_mtp_only_tensors())
    with pytest.raises(InputError, match="published MTP module .* not a target: give deepseek-ai/DeepSeek-V3-0324"):
        comparison.load_entry(OTHER, target=NEBIUS, with_card=False)


def test_overview_size_uses_the_mtp_module(hub: HubEmulator) -> None:
    """Overview reads the reference without its header: the registry's word makes it the MTP module, so the size
    comparison is against the MTP layer, not the target (walk AV1: "your draft is 0% the size of the reference")."""
    from comparelib.analysis import overview

    hub.add_model(NEBIUS, TINY_DEEPSEEK, tensors=_mtp_only_tensors())
    hub.add_model(OTHER, TINY_DEEPSEEK, tensors=_mtp_only_tensors())
    ref = comparison.load_entry(NEBIUS, with_header=False, with_card=False)
    own = comparison.load_entry(OTHER, with_card=False)
    facts = overview.size_facts(own, ref)
    elements = sum(_prod(s) for s, _ in _mtp_only_tensors().values())
    assert facts.ref_total == facts.own_total == elements
    assert facts.ref_excluding_embedding == facts.own_excluding_embedding
