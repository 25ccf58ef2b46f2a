#!/usr/bin/env python3
"""Engine oracle (maintainer script): run the engines' OWN id-handling code (pulled out of the released wheels
with ``ast``) on a case table, and record per engine version / runner what happens.

Wheels (pip download --no-deps, unzipped .py files) are expected under WHEELS:
  sglang-0.5.23/ sglang-0.5.1/ sglang-0.5.14/ (SpecForge 0.2.0's pin) vllm-0.34.0/ vllm-0.33.0/ specforge-0.2.0/
  speculators-0.9.0/

What is executed from the wheels (verbatim source, compiled here against stand-in objects):
  vLLM 0.34.0   the same as 0.33.0's V2 (0.34.0 removed Model Runner V1)
  vLLM 0.33.0   get_eagle3_aux_layers_from_config (V2), GPUModelRunner._get_eagle3_aux_layers_from_config (V1),
                SupportsEagle3.get_eagle3_default_aux_hidden_state_layers,
                EagleModelMixin._set_aux_hidden_state_layers,
                DeepseekV2ForCausalLM.set_aux_hidden_state_layers, speculators algos.update_eagle3,
                the fc-sizing statements of llama_eagle3.LlamaModel.__init__ and qwen3_eagle3.Qwen3Eagle3Model.__init__
  SGLang        set_eagle3_layers_to_capture of every target class (and the inner Model's, for qwen2_moe/qwen3_next),
                the id lookup (0.5.23 _resolve_eagle_aux_hidden_state's eagle3 block; 0.5.1 ModelRunner's try block),
                the fc-sizing statements of llama_eagle3.LlamaModel.__init__
  SpecForge     resolve_eagle_capture_layers (validation + default)
  speculators   resolve_target_layer_ids (validation + default) ; fc count (core.py) is a one-liner, mirrored
What is modelled (one small table per forward loop, each row cited and line-checked by verify_cites()):
  which boundaries the target's forward loop reaches, whether boundary 0 adds a None residual, whether a
  capture-count mismatch raises in the target (SGLang's AuxHiddenStatePacker) or later in the draft's fc.

Usage (from the repository root):
  python tools/engine_oracle.py --download DIR    pip download --no-deps the six wheels into DIR and unzip them
  python tools/engine_oracle.py --wheels DIR [--out tests/data/engine_cases.json] [--verify]
--verify only checks the citations: this script's and every one in comparelib/models/serving.py (CITES).
The recording is what tests/test_engine_oracle.py holds the project's verdicts to; that test's live mode runs
this script when ENGINE_WHEELS names the unzipped wheels.
"""

from __future__ import annotations

import ast
import copy
import glob
import json
import os
import subprocess
import sys
import types
import zipfile
from typing import Any, Optional


def _arg(name: str) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else None


WHEELS = _arg("--wheels") or os.environ.get("ENGINE_WHEELS", "/tmp/wheels")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHEEL_PINS = (
    "sglang==0.5.23",
    "sglang==0.5.1",
    "sglang==0.5.14",
    "vllm==0.34.0",
    "vllm==0.33.0",
    "specforge==0.2.0",
    "speculators==0.9.0",
)
NS = types.SimpleNamespace

SG23 = f"{WHEELS}/sglang-0.5.23/sglang/srt"
SG51 = f"{WHEELS}/sglang-0.5.1/sglang/srt"
SG514 = f"{WHEELS}/sglang-0.5.14/sglang/srt"
VL = f"{WHEELS}/vllm-0.33.0/vllm"
VL34 = f"{WHEELS}/vllm-0.34.0/vllm"
SF = f"{WHEELS}/specforge-0.2.0/specforge"
SP = f"{WHEELS}/speculators-0.9.0/speculators"

# --------------------------------------------------------------------------------------------------
# Citations: key -> (root, relative path, line, text that must be on that line). verify_cites() checks them.
# --------------------------------------------------------------------------------------------------
CITES: dict[str, tuple[str, str, int, str]] = {
    # vLLM runner choice
    "vl.v2_default": (VL, "config/vllm.py", 731, "def use_v2_model_runner(self) -> bool:"),
    "vl.v2_env": (VL, "config/vllm.py", 748, "use_v2_model_runner = envs.VLLM_USE_V2_MODEL_RUNNER"),
    "vl.v2_true": (VL, "config/vllm.py", 767, "return True"),
    "vl.v2_notriton": (VL, "config/vllm.py", 752, "if not HAS_TRITON and not current_platform.is_unspecified():"),
    "vl.v2_unsupported": (VL, "config/vllm.py", 758, "unsupported = self._get_v2_model_runner_unsupported_features()"),
    "vl.env": (VL, "envs.py", 2150, 'os.getenv("VLLM_USE_V2_MODEL_RUNNER", None)'),
    # vLLM V2 lookup
    "vl.v2_call": (VL, "v1/worker/gpu/model_runner.py", 414, "set_eagle3_aux_hidden_state_layers("),
    "vl.v2_nosupport": (
        VL,
        "v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        29,
        'raise RuntimeError("Model does not support EAGLE3 interface")',
    ),
    "vl.v2_lookup": (
        VL,
        "v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        113,
        "def get_eagle3_aux_layers_from_config(",
    ),
    "vl.v2_top": (
        VL,
        "v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        119,
        'layer_ids = getattr(hf_config, "eagle_aux_hidden_state_layer_ids", None)',
    ),
    "vl.v2_layer_ids": (
        VL,
        "v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        145,
        'layer_ids = drafter_config.get("layer_ids")',
    ),
    "vl.v2_default_call": (
        VL,
        "v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        38,
        "aux_layers = eagle3_model.get_eagle3_default_aux_hidden_state_layers()",
    ),
    # vLLM V1 lookup
    "vl.v1_nosupport": (VL, "v1/worker/gpu_model_runner.py", 5173, "if not supports_eagle3(self.get_model()):"),
    "vl.v1_lookup": (
        VL,
        "v1/worker/gpu_model_runner.py",
        5190,
        "def _get_eagle3_aux_layers_from_config(self) -> tuple[int, ...] | None:",
    ),
    "vl.v1_top": (
        VL,
        "v1/worker/gpu_model_runner.py",
        5207,
        'layer_ids = getattr(hf_config, "eagle_aux_hidden_state_layer_ids", None)',
    ),
    "vl.v1_eagle_config": (
        VL,
        "v1/worker/gpu_model_runner.py",
        5219,
        'layer_ids = eagle_config.get("eagle_aux_hidden_state_layer_ids")',
    ),
    "vl.v1_default_call": (
        VL,
        "v1/worker/gpu_model_runner.py",
        5186,
        "aux_layers = self.model.get_eagle3_default_aux_hidden_state_layers()",
    ),
    # vLLM interfaces
    "vl.mixin_sort": (
        VL,
        "model_executor/models/interfaces.py",
        1617,
        "self.aux_hidden_state_layers = tuple(sorted(set(layers)))",
    ),
    "vl.mixin_guard": (
        VL,
        "model_executor/models/interfaces.py",
        1648,
        "value = hidden_states + residual if residual is not None else hidden_states",
    ),
    "vl.default": (VL, "model_executor/models/interfaces.py", 1772, "return (2, num_layers // 2, num_layers - 3)"),
    # vLLM draft config / fc
    "vl.eagleconfig_wrap": (VL, "config/speculative.py", 1526, "eagle_config = EAGLEConfig("),
    "vl.eagleconfig_copy": (
        VL,
        "transformers_utils/configs/eagle.py",
        86,
        "for k, v in self.model.to_dict().items():",
    ),
    "vl.spec_model_type": (VL, "transformers_utils/config.py", 364, '"speculators"'),
    "vl.algos_arch": (
        VL,
        "transformers_utils/configs/speculators/algos.py",
        45,
        'raise ValueError(f"Unsupported model_type {model_type} for Eagle3 speculator")',
    ),
    "vl.algos_ids": (
        VL,
        "transformers_utils/configs/speculators/algos.py",
        48,
        'pre_trained_config["eagle_aux_hidden_state_layer_ids"] = config_dict[',
    ),
    "vl.fc_llama": (
        VL,
        "model_executor/models/llama_eagle3.py",
        215,
        'layer_ids = eagle_config.get("eagle_aux_hidden_state_layer_ids")',
    ),
    "vl.fc_llama_n": (
        VL,
        "model_executor/models/llama_eagle3.py",
        221,
        "self.fc_input_size = target_hidden_size * self.num_aux_hidden_states",
    ),
    "vl.fc_qwen3": (
        VL,
        "model_executor/models/qwen3_eagle3.py",
        207,
        'self.config, "eagle_aux_hidden_state_layer_ids", None',
    ),
    "vl.fc_qwen3_n": (
        VL,
        "model_executor/models/qwen3_eagle3.py",
        214,
        "self.fc_input_size = target_hidden_size * num_aux_features",
    ),
    "vl.fc_load": (VL, "model_executor/layers/linear.py", 408, "assert param.size() == loaded_weight.size(), ("),
    # vLLM target forwards
    "vl.llama_b0": (VL, "model_executor/models/llama.py", 429, "self._maybe_add_hidden_state("),
    "vl.llama_bi": (VL, "model_executor/models/llama.py", 440, "aux_hidden_states, idx + 1, hidden_states, residual"),
    "vl.qwen2_bi": (VL, "model_executor/models/qwen2.py", 433, "aux_hidden_states, idx + 1, hidden_states, residual"),
    "vl.qwen3_model": (VL, "model_executor/models/qwen3.py", 269, "class Qwen3Model(Qwen2Model):"),
    "vl.qwen3moe_bi": (
        VL,
        "model_executor/models/qwen3_moe.py",
        514,
        "aux_hidden_states, layer_idx + 1, hidden_states, residual",
    ),
    "vl.qwen3next_b0": (
        VL,
        "model_executor/models/qwen3_next.py",
        721,
        "aux_hidden_states = self._maybe_add_hidden_state([], 0, hidden_states, residual)",
    ),
    "vl.gptoss_bi": (
        VL,
        "model_executor/models/gpt_oss.py",
        532,
        "self._maybe_add_hidden_state(aux_hidden_states, i + 1, x, residual)",
    ),
    "vl.minimax_b0": (
        VL,
        "model_executor/models/minimax_m2.py",
        403,
        "aux_hidden_states = self._maybe_add_hidden_state([], 0, hidden_states, residual)",
    ),
    "vl.llama4_cls": (
        VL,
        "model_executor/models/llama4.py",
        708,
        "class Llama4ForCausalLM(LlamaForCausalLM, MixtureOfExperts):",
    ),
    "vl.mllama4_set": (
        VL,
        "model_executor/models/mllama4.py",
        806,
        "self.language_model.set_aux_hidden_state_layers(layers)",
    ),
    "vl.phi3_cls": (VL, "model_executor/models/phi3.py", 10, "class Phi3ForCausalLM(LlamaForCausalLM):"),
    "vl.ds_set": (VL, "model_executor/models/deepseek_v2.py", 1956, "self.model.aux_hidden_state_layers = layers"),
    "vl.ds_res_none": (VL, "model_executor/models/deepseek_v2.py", 1525, "residual = None"),
    "vl.ds_bi": (VL, "model_executor/models/deepseek_v2.py", 1562, "aux_hidden_state = hidden_states + residual"),
    "vl.ds_bN": (
        VL,
        "model_executor/models/deepseek_v2.py",
        1586,
        "if self.end_layer in self.aux_hidden_state_layers:",
    ),
    "vl.ds_v3": (
        VL,
        "model_executor/models/deepseek_v2.py",
        2005,
        "class DeepseekV3ForCausalLM(DeepseekV2ForCausalLM):",
    ),
    "vl.kimi_set": (
        VL,
        "model_executor/models/kimi_k25.py",
        471,
        "self.language_model.set_aux_hidden_state_layers(layers)",
    ),
    "vl.dsa_route": (
        VL,
        "models/deepseek_v32/__init__.py",
        21,
        "from .nvidia.model import DeepseekV32ForCausalLM as GlmMoeDsaForCausalLM",
    ),
    "vl.dsa_bi": (
        VL,
        "models/deepseek_v32/nvidia/model.py",
        291,
        "hidden_states if residual is None else hidden_states + residual",
    ),
    "vl.registry_dsa": (
        VL,
        "model_executor/models/registry.py",
        126,
        '"GlmMoeDsaForCausalLM": ("vllm.models.deepseek_v32", "GlmMoeDsaForCausalLM"),',
    ),
    "vl.mixtral_cls": (
        VL,
        "model_executor/models/mixtral.py",
        375,
        "class MixtralForCausalLM(nn.Module, SupportsLoRA, SupportsPP, MixtureOfExperts):",
    ),
    "vl.glm4moe_cls": (
        VL,
        "model_executor/models/glm4_moe.py",
        534,
        "class Glm4MoeForCausalLM(nn.Module, SupportsPP, SupportsLoRA, Glm4MixtureOfExperts):",
    ),
    "vl.gemma3_cls": (
        VL,
        "model_executor/models/gemma3.py",
        367,
        "class Gemma3ForCausalLM(nn.Module, SupportsLoRA, SupportsPP):",
    ),
    "vl.qwen2moe_cls": (
        VL,
        "model_executor/models/qwen2_moe.py",
        423,
        "class Qwen2MoeForCausalLM(nn.Module, SupportsPP, SupportsLoRA):",
    ),
    "vl.bailing_cls": (
        VL,
        "model_executor/models/bailing_moe.py",
        486,
        "class BailingMoeForCausalLM(nn.Module, SupportsPP, SupportsLoRA):",
    ),
    "vl.bailingv2_cls": (
        VL,
        "model_executor/models/bailing_moe.py",
        568,
        "class BailingMoeV2ForCausalLM(BailingMoeForCausalLM):",
    ),
    # SGLang 0.5.23
    "sg23.lookup": (
        SG23,
        "model_executor/model_runner_components/spec_aux_hidden_state.py",
        192,
        "config.eagle_aux_hidden_state_layer_ids = eagle_config[",
    ),
    "sg23.lookup_none": (
        SG23,
        "model_executor/model_runner_components/spec_aux_hidden_state.py",
        196,
        "config.eagle_aux_hidden_state_layer_ids = None",
    ),
    "sg23.nohook": (
        SG23,
        "model_executor/model_runner_components/attention_backend_setup.py",
        55,
        'if not hasattr(model, "set_eagle3_layers_to_capture"):',
    ),
    "sg23.registry": (
        SG23,
        "models/registry.py",
        64,
        'f"Model architectures {architectures} are not supported for now. "',
    ),
    "sg23.fc_count": (
        SG23,
        "models/llama_eagle3.py",
        160,
        'layer_ids = eagle_config.get("eagle_aux_hidden_state_layer_ids")',
    ),
    "sg23.fc": (SG23, "models/llama_eagle3.py", 164, "self.hidden_size_in * self.num_aux_hidden_states,"),
    "sg23.fc_load": (SG23, "model_loader/weight_utils.py", 1582, "assert param.size() == loaded_weight.size(), ("),
    "sg23.stage_b0": (
        SG23,
        "layers/layer_boundary/stage.py",
        422,
        "(stream.residual is None and stream.pending is None)",
    ),
    "sg23.llama_hook": (SG23, "models/llama.py", 941, "self.model.layers_to_capture = [val + 1 for val in layer_ids]"),
    "sg23.llama_default": (
        SG23,
        "models/llama.py",
        936,
        "self.model.layers_to_capture = [2, num_layers // 2, num_layers - 3]",
    ),
    "sg23.llama_loop": (SG23, "models/llama.py", 486, "for i in range(self.start_layer, self.end_layer):"),
    "sg23.llama_cap": (SG23, "models/llama.py", 492, "if i in self.layers_to_capture"),
    "sg23.phi3": (SG23, "models/llama.py", 956, "class Phi3ForCausalLM(LlamaForCausalLM):"),
    "sg23.mistral": (SG23, "models/mistral.py", 33, "class MistralForCausalLM(LlamaForCausalLM):"),
    "sg23.qwen2_hook": (SG23, "models/qwen2.py", 794, "self.model.layers_to_capture = [val + 1 for val in layer_ids]"),
    "sg23.qwen2_cap": (SG23, "models/qwen2.py", 462, "if i in self.layers_to_capture"),
    "sg23.qwen3_hook": (SG23, "models/qwen3.py", 791, "self.model.layers_to_capture = [val + 1 for val in layer_ids]"),
    "sg23.qwen3_cap": (SG23, "models/qwen3.py", 530, "if i in self.layers_to_capture"),
    "sg23.qwen2moe_hook": (
        SG23,
        "models/qwen2_moe.py",
        1433,
        "self.model.set_eagle3_layers_to_capture([val + 1 for val in layer_ids])",
    ),
    "sg23.qwen2moe_index": (
        SG23,
        "models/qwen2_moe.py",
        1156,
        'setattr(self.layers[layer_id], "_is_layer_to_capture", True)',
    ),
    "sg23.qwen2moe_cap": (SG23, "models/qwen2_moe.py", 1201, 'if getattr(layer, "_is_layer_to_capture", False)'),
    "sg23.qwen3moe_hook": (
        SG23,
        "models/qwen3_moe.py",
        1143,
        "self.model.set_eagle3_layers_to_capture([val + 1 for val in layer_ids])",
    ),
    "sg23.qwen3moe_model": (SG23, "models/qwen3_moe.py", 970, "class Qwen3MoeModel(Qwen2MoeModel):"),
    "sg23.qwen3next_hook": (
        SG23,
        "models/qwen3_next.py",
        1301,
        "self.model.set_eagle3_layers_to_capture([val + 1 for val in layer_ids])",
    ),
    "sg23.qwen3next_index": (
        SG23,
        "models/qwen3_next.py",
        957,
        'setattr(self.layers[layer_id], "_is_layer_to_capture", True)',
    ),
    "sg23.ds_hook": (SG23, "models/deepseek_v2.py", 3470, "if layer_ids and layer_ids[0] == 1:"),
    "sg23.ds_packer": (
        SG23,
        "models/deepseek_v2.py",
        3175,
        "aux_hidden_states = AuxHiddenStatePacker(len(self.layers_to_capture))",
    ),
    "sg23.ds_cap": (SG23, "models/deepseek_v2.py", 3194, "if i in self.layers_to_capture"),
    "sg23.ds_finalize": (SG23, "models/deepseek_v2.py", 3245, "return hidden_states, aux_hidden_states.finalize()"),
    "sg23.packer_raise": (
        SG23,
        "layers/aux_hidden_states.py",
        88,
        'f"captured {self._idx} of {self._num_captures} aux hidden states"',
    ),
    "sg23.kimi": (SG23, "models/kimi_k25.py", 939, "self.language_model.set_eagle3_layers_to_capture(layer_ids)"),
    "sg23.glm5": (SG23, "models/glm4_moe.py", 1284, "class GlmMoeDsaForCausalLM(DeepseekV2ForCausalLM):"),
    "sg23.gptoss_hook": (SG23, "models/gpt_oss.py", 1349, "if layer_ids and max(layer_ids) == num_layers:"),
    "sg23.gptoss_cap": (SG23, "models/gpt_oss.py", 719, "if i in self.layers_to_capture"),
    "sg23.gptoss_bN": (SG23, "models/gpt_oss.py", 732, "if self.end_layer in self.layers_to_capture"),
    "sg23.glm4moe_hook": (
        SG23,
        "models/glm4_moe.py",
        1281,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.glm4moe_cap": (SG23, "models/glm4_moe.py", 957, "if i in self.layers_to_capture"),
    "sg23.gemma3_hook": (
        SG23,
        "models/gemma3_causal.py",
        926,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.gemma3_cap": (SG23, "models/gemma3_causal.py", 657, "aux_hidden_states.append(hidden_states)"),
    "sg23.gemma3_bN": (SG23, "models/gemma3_causal.py", 671, "if num_layers in self.layers_to_capture:"),
    "sg23.gemma3_unsummed": (SG23, "models/gemma3_causal.py", 410, "outputs = (hidden_states, residual)"),
    "sg23.gemma3mm": (SG23, "models/gemma3_mm.py", 545, "self.language_model.set_eagle3_layers_to_capture(layer_ids)"),
    "sg23.llama4_cap": (SG23, "models/llama4.py", 530, "if i in self.layers_to_capture"),
    "sg23.llama4_cls": (SG23, "models/llama4.py", 546, "class Llama4ForCausalLM(LlamaForCausalLM):"),
    "sg23.mllama4": (SG23, "models/mllama4.py", 973, "self.language_model.set_eagle3_layers_to_capture(layer_ids)"),
    "sg23.minimax_hook": (
        SG23,
        "models/minimax_m2.py",
        1080,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.minimax_cap": (SG23, "models/minimax_m2.py", 1003, "if i in self.layers_to_capture"),
    "sg23.bailing_hook": (
        SG23,
        "models/bailing_moe.py",
        1109,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.bailing_cap": (SG23, "models/bailing_moe.py", 840, "if i in self.layers_to_capture"),
    "sg23.bailing_cls": (SG23, "models/bailing_moe.py", 1112, "class BailingMoeForCausalLM(BailingMoEForCausalLM):"),
    "sg23.bailingv2_cls": (
        SG23,
        "models/bailing_moe.py",
        1116,
        "class BailingMoeV2ForCausalLM(BailingMoEForCausalLM):",
    ),
    # SGLang 0.5.1
    "sg51.lookup": (SG51, "model_executor/model_runner.py", 373, "eagle_aux_hidden_state_layer_ids = eagle_config["),
    "sg51.nohook": (
        SG51,
        "model_executor/model_runner.py",
        380,
        "self.model.set_eagle3_layers_to_capture(eagle_aux_hidden_state_layer_ids)",
    ),
    "sg51.registry": (
        SG51,
        "models/registry.py",
        33,
        'f"Model architectures {architectures} are not supported for now. "',
    ),
    "sg51.fc": (SG51, "models/llama_eagle3.py", 125, "self.hidden_size_in * 3,"),
    "sg51.llama_hook": (SG51, "models/llama.py", 738, "self.model.layers_to_capture = [val + 1 for val in layer_ids]"),
    "sg51.llama_cap": (SG51, "models/llama.py", 340, "aux_hidden_states.append(hidden_states + residual)"),
    "sg51.llama_res_none": (SG51, "models/llama.py", 329, "residual = None"),
    "sg51.qwen3_hook": (SG51, "models/qwen3.py", 514, "self.model.layers_to_capture = [val + 1 for val in layer_ids]"),
    "sg51.qwen2_cap": (
        SG51,
        "models/qwen2.py",
        337,
        "hidden_states + residual if residual is not None else hidden_states",
    ),
    "sg51.qwen3moe_hook": (
        SG51,
        "models/qwen3_moe.py",
        740,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg51.qwen2moe_cap": (SG51, "models/qwen2_moe.py", 486, "hidden_states + residual"),
    "sg51.gptoss_hook": (
        SG51,
        "models/gpt_oss.py",
        1147,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg51.gptoss_cap": (SG51, "models/gpt_oss.py", 570, "aux_hidden_states.append(hidden_states + residual)"),
    "sg51.llama4_cap": (SG51, "models/llama4.py", 509, "aux_hidden_states.append(hidden_states + residual)"),
    "sg51.mllama4": (SG51, "models/mllama4.py", 937, "self.language_model.set_eagle3_layers_to_capture(layer_ids)"),
    # trainers
    "sf.resolve": (SF, "algorithms/model_providers.py", 204, "layers = [1, num_layers // 2 - 1, num_layers - 4]"),
    "sf.refuse": (
        SF,
        "algorithms/model_providers.py",
        206,
        "if len(layers) != 3 or any(not isinstance(i, int) or i < 0 for i in layers):",
    ),
    "sf.offline": (SF, "application/composition.py", 111, "if isinstance(target_layers, int) and any("),
    "sf.fc": (SF, "modeling/draft/llama3_eagle.py", 1675, "self.target_hidden_size * 3,"),
    "sf.via_sglang": (
        SF,
        "offline_capture/sglang_backend/capture.py",
        87,
        "self.model_runner.model.set_eagle3_layers_to_capture(layer_ids)",
    ),
    "sp.resolve": (SP, "models/utils.py", 111, "target_layer_ids = [2, num_layers // 2, num_layers - 3]"),
    "sp.refuse": (SP, "models/utils.py", 121, "or len(set(target_layer_ids)) != len(target_layer_ids)"),
    "sp.fc": (SP, "models/eagle3/core.py", 72, "len(config.eagle_aux_hidden_state_layer_ids)"),
    "sp.default_layer_cfg": (SP, "models/eagle3/config.py", 34, "default_factory=Qwen3Config,"),
}


# vLLM 0.34.0: the 0.33.0 code at its 0.34.0 line ("vl34.x" is "vl.x"), and what replaced the runner choice
_VL34_LINES = {
    "vl.v2_call": 427,
    "vl.v2_nosupport": 19,
    "vl.v2_lookup": 103,
    "vl.v2_top": 109,
    "vl.v2_layer_ids": 135,
    "vl.v2_default_call": 28,
    "vl.mixin_sort": 1630,
    "vl.mixin_guard": 1661,
    "vl.default": 1785,
    "vl.eagleconfig_copy": 86,
    "vl.spec_model_type": 369,
    "vl.algos_arch": 45,
    "vl.algos_ids": 48,
    "vl.fc_llama": 215,
    "vl.fc_llama_n": 221,
    "vl.fc_qwen3": 207,
    "vl.fc_qwen3_n": 214,
    "vl.fc_load": 411,
    "vl.llama_b0": 429,
    "vl.llama_bi": 440,
    "vl.qwen2_bi": 430,
    "vl.qwen3_model": 269,
    "vl.qwen3moe_bi": 514,
    "vl.qwen3next_b0": 746,
    "vl.gptoss_bi": 532,
    "vl.minimax_b0": 403,
    "vl.llama4_cls": 708,
    "vl.mllama4_set": 791,
    "vl.phi3_cls": 10,
    "vl.ds_set": 1956,
    "vl.ds_res_none": 1525,
    "vl.ds_bi": 1562,
    "vl.ds_bN": 1586,
    "vl.ds_v3": 2005,
    "vl.kimi_set": 471,
    "vl.dsa_route": 21,
    "vl.dsa_bi": 296,
    "vl.registry_dsa": 125,
    "vl.mixtral_cls": 375,
    "vl.glm4moe_cls": 534,
    "vl.gemma3_cls": 367,
    "vl.qwen2moe_cls": 424,
    "vl.bailing_cls": 486,
    "vl.bailingv2_cls": 568,
}
CITES.update({"vl34." + k[3:]: (VL34, CITES[k][1], line, CITES[k][3]) for k, line in _VL34_LINES.items()})
CITES.update(
    {
        "vl34.runner": (VL34, "v1/worker/gpu_worker.py", 587, "return GPUModelRunner(self.vllm_config, self.device)"),
        "vl34.v1_removed": (
            VL34,
            "platforms/interface.py",
            1484,
            'f"VLLM_USE_V2_MODEL_RUNNER={value} is no longer supported: "',
        ),
        "vl34.peagle_removed": (
            VL34,
            "transformers_utils/configs/speculators/algos.py",
            55,
            'raise ValueError("P-EAGLE (parallel drafting EAGLE-3) is not supported.")',
        ),
    }
)


def cite(key: str) -> str:
    root, rel, line, _ = CITES[key]
    pkg = {
        SG23: "sglang 0.5.23 sglang/srt/",
        SG51: "sglang 0.5.1 sglang/srt/",
        SG514: "sglang 0.5.14 sglang/srt/",
        VL: "vllm 0.33.0 vllm/",
        VL34: "vllm 0.34.0 vllm/",
        SF: "specforge 0.2.0 specforge/",
        SP: "speculators 0.9.0 speculators/",
    }[root]
    return f"{pkg}{rel}:{line}"


def verify_cites() -> list[str]:
    bad = []
    for key, (root, rel, line, needle) in CITES.items():
        path = f"{root}/{rel}"
        try:
            lines = open(path).read().splitlines()
        except OSError as exc:
            bad.append(f"{key}: {exc}")
            continue
        if not (1 <= line <= len(lines)) or needle not in lines[line - 1]:
            got = lines[line - 1].strip() if 1 <= line <= len(lines) else "<eof>"
            bad.append(f"{key}: {rel}:{line} expected {needle!r}, found {got!r}")
    return bad


# --------------------------------------------------------------------------------------------------
# ast extraction
# --------------------------------------------------------------------------------------------------
_TREES: dict[str, tuple[str, ast.Module]] = {}


def _tree(path: str) -> tuple[str, ast.Module]:
    if path not in _TREES:
        src = open(path).read()
        _TREES[path] = (src, ast.parse(src))
    return _TREES[path]


def _find_def(path: str, qualname: str) -> ast.FunctionDef:
    """'Class.method' or 'function' at module level."""
    _, tree = _tree(path)
    parts = qualname.split(".")
    body = tree.body
    node = None
    for i, part in enumerate(parts):
        want = ast.ClassDef if i < len(parts) - 1 else (ast.FunctionDef,)
        node = next((n for n in body if isinstance(n, want) and n.name == part), None)
        if node is None:
            raise LookupError(f"{qualname} not in {path}")
        body = node.body
    return node  # type: ignore[return-value]


def extract_function(path: str, qualname: str, env: dict[str, Any] | None = None):
    """Compile the engine's own function (decorators dropped) against ``env``; returns (function, first line)."""
    src, _ = _tree(path)
    node = _find_def(path, qualname)
    node = copy.deepcopy(node)
    node.decorator_list = []
    mod = ast.Module(body=[node], type_ignores=[])
    ast.fix_missing_locations(mod)
    glb: dict[str, Any] = {
        "Optional": Optional,
        "List": list,
        "Any": Any,
        "list": list,
        "tuple": tuple,
        "logger": NS(info=lambda *a, **k: None, warning=lambda *a, **k: None),
    }
    glb.update(env or {})
    exec(compile(mod, path, "exec"), glb)
    return glb[node.name], node.lineno


def extract_statements(path: str, qualname: str, first_pred, last_pred, env: dict[str, Any]) -> dict[str, Any]:
    """Exec the statements of a function body (searched recursively in If bodies) from the first statement
    matching first_pred to the one matching last_pred, in ``env``; returns env."""
    node = _find_def(path, qualname)
    src, _ = _tree(path)

    def flat(stmts):
        for s in stmts:
            yield s
            if isinstance(s, ast.If):
                yield from flat(s.body)

    stmts = list(flat(node.body))
    start = next(i for i, s in enumerate(stmts) if first_pred(ast.get_source_segment(src, s)))
    # keep only statements at the same nesting as the start (siblings)
    parent_body = None
    for s in [node] + [x for x in ast.walk(node) if hasattr(x, "body")]:
        if stmts[start] in getattr(s, "body", []):
            parent_body = s.body
            break
    assert parent_body is not None
    i0 = parent_body.index(stmts[start])
    i1 = next(i for i in range(i0, len(parent_body)) if last_pred(ast.get_source_segment(src, parent_body[i])))
    mod = ast.Module(body=copy.deepcopy(parent_body[i0 : i1 + 1]), type_ignores=[])
    ast.fix_missing_locations(mod)
    exec(compile(mod, path, "exec"), env)
    return env


# --------------------------------------------------------------------------------------------------
# vLLM 0.33.0
# --------------------------------------------------------------------------------------------------
class VllmCode:
    def __init__(self, version: str = "0.33.0") -> None:
        self.version = version
        self.root = VL34 if version == "0.34.0" else VL
        self.prefix = "vl34" if version == "0.34.0" else "vl"
        VL_ = self.root
        self.v2_lookup, _ = extract_function(
            f"{VL_}/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
            "get_eagle3_aux_layers_from_config",
            {"SpeculativeConfig": object},
        )
        if version != "0.34.0":  # 0.34.0 removed Model Runner V1
            self.v1_lookup, _ = extract_function(
                f"{VL_}/v1/worker/gpu_model_runner.py", "GPUModelRunner._get_eagle3_aux_layers_from_config"
            )
        self.default, _ = extract_function(
            f"{VL_}/model_executor/models/interfaces.py", "SupportsEagle3.get_eagle3_default_aux_hidden_state_layers"
        )
        self.mixin_set, _ = extract_function(
            f"{VL_}/model_executor/models/interfaces.py", "EagleModelMixin._set_aux_hidden_state_layers"
        )
        self.ds_set, _ = extract_function(
            f"{VL_}/model_executor/models/deepseek_v2.py", "DeepseekV2ForCausalLM.set_aux_hidden_state_layers"
        )
        self.update_eagle3, _ = extract_function(
            f"{VL_}/transformers_utils/configs/speculators/algos.py", "update_eagle3"
        )

    def cite(self, key: str) -> str:
        """The citation of a 'vl.x' key in this version's wheel."""
        return cite(self.prefix + key[2:])

    def hf_config(self, draft: dict) -> NS:
        """The draft hf_config as vLLM holds it. Eagle-format: EAGLEConfig copies every key of the draft's
        config (eagle.py:86); speculators-format: SpeculatorsConfig built by algos.update_eagle3."""
        if draft.get("speculators_model_type") is not None:
            pre = copy.deepcopy(draft.get("transformer_layer_config", {}))
            self.update_eagle3(config_dict=draft, pre_trained_config=pre)  # may raise ValueError (algos.py:45)
            return NS(**pre)
        return NS(**copy.deepcopy(draft))

    def fc_count(self, hf: NS) -> tuple[int, int, str]:
        """(num aux states, fc_in, cite) as the draft class vLLM picks builds them."""
        arch = (getattr(hf, "architectures", None) or ["LlamaForCausalLMEagle3"])[0]
        eagle_config = getattr(hf, "eagle_config", None) or {}
        hf.__dict__.setdefault("hidden_size", 0)
        if arch in ("Eagle3Qwen3ForCausalLM", "PeagleQwen3ForCausalLM"):
            env = {"self": NS(config=hf), "eagle_config": eagle_config, "getattr": getattr, "len": len}
            extract_statements(
                f"{self.root}/model_executor/models/qwen3_eagle3.py",
                "Qwen3Eagle3Model.__init__",
                lambda s: s.startswith('num_aux_features = getattr(self.config, "num_aux_layers"'),
                lambda s: s.startswith("self.fc_input_size = target_hidden_size"),
                env,
            )
            return env["num_aux_features"], env["self"].fc_input_size, self.cite("vl.fc_qwen3")
        env = {"self": NS(config=hf), "getattr": getattr, "len": len}
        extract_statements(
            f"{self.root}/model_executor/models/llama_eagle3.py",
            "LlamaModel.__init__",
            lambda s: s.startswith("self.num_aux_hidden_states = getattr("),
            lambda s: s.startswith("self.fc_input_size = target_hidden_size"),
            env,
        )
        return env["self"].num_aux_hidden_states, env["self"].fc_input_size, self.cite("vl.fc_llama")


# vLLM target classes: arch -> (supports EAGLE-3, capture kind, cites)
VLLM_TARGETS: dict[str, tuple[bool, str, list[str]]] = {
    "LlamaForCausalLM": (True, "mixin", ["vl.mixin_sort", "vl.llama_b0", "vl.llama_bi", "vl.mixin_guard"]),
    "MistralForCausalLM": (True, "mixin", ["vl.llama_bi"]),
    "Phi3ForCausalLM": (True, "mixin", ["vl.phi3_cls", "vl.llama_bi"]),
    "Qwen2ForCausalLM": (True, "mixin", ["vl.qwen2_bi", "vl.mixin_sort"]),
    "Qwen3ForCausalLM": (True, "mixin", ["vl.qwen3_model", "vl.qwen2_bi", "vl.mixin_sort"]),
    "Qwen3MoeForCausalLM": (True, "mixin", ["vl.qwen3moe_bi", "vl.mixin_sort"]),
    "Qwen3NextForCausalLM": (True, "mixin", ["vl.qwen3next_b0", "vl.mixin_sort"]),
    "GptOssForCausalLM": (True, "mixin", ["vl.gptoss_bi", "vl.mixin_sort"]),
    "MiniMaxM2ForCausalLM": (True, "mixin", ["vl.minimax_b0", "vl.mixin_sort"]),
    "Llama4ForConditionalGeneration": (True, "mixin", ["vl.mllama4_set", "vl.llama4_cls", "vl.llama_bi"]),
    "DeepseekV3ForCausalLM": (True, "deepseek", ["vl.ds_v3", "vl.ds_set", "vl.ds_res_none", "vl.ds_bi", "vl.ds_bN"]),
    "KimiK25ForConditionalGeneration": (True, "deepseek", ["vl.kimi_set", "vl.ds_set", "vl.ds_bi", "vl.ds_bN"]),
    "GlmMoeDsaForCausalLM": (True, "dsa-cuda", ["vl.registry_dsa", "vl.dsa_route", "vl.dsa_bi", "vl.ds_set"]),
    "MixtralForCausalLM": (False, "", ["vl.mixtral_cls"]),
    "Glm4MoeForCausalLM": (False, "", ["vl.glm4moe_cls"]),
    "Gemma3ForConditionalGeneration": (False, "", ["vl.gemma3_cls"]),
    "Qwen2MoeForCausalLM": (False, "", ["vl.qwen2moe_cls"]),
    "BailingMoeV2ForCausalLM": (False, "", ["vl.bailingv2_cls", "vl.bailing_cls"]),
    "BailingMoeForCausalLM": (False, "", ["vl.bailing_cls"]),
}


def vllm_capture(kind: str, layers: tuple[int, ...], n: int, cite=cite) -> tuple[list[int] | None, str]:
    """Boundaries the target's forward appends, in order; (None, crash reason) when the forward raises."""
    if kind == "mixin":  # boundary 0 before the loop (guarded), idx+1 after each block; set membership
        return [b for b in range(0, n + 1) if b in layers], ""
    if kind == "deepseek":  # idx in loop before block idx, unguarded add; end_layer after the loop
        if 0 in layers:
            return None, (
                "boundary 0 adds residual=None to the embedding (TypeError in the first forward: "
                f"{cite('vl.ds_res_none')}, {cite('vl.ds_bi')})"
            )
        return [b for b in range(0, n) if b in layers] + ([n] if n in layers else []), ""
    if kind == "dsa-cuda":  # before each block only, guarded; no capture after the last block
        return [b for b in range(0, n) if b in layers], ""
    raise ValueError(kind)


def vllm_row(code: VllmCode, runner: str, case: dict) -> dict:
    arch, n, h = case["target_arch"], case["n"], case["target_hidden"]
    cite = code.cite
    row = {"engine": "vLLM", "version": code.version, "runner": runner, "cite": []}
    cites = row["cite"]
    if code.version == "0.34.0":
        cites.append(cite("vl.runner"))  # Model Runner V2 is the only runner
    else:
        cites.append(cite("vl.v2_env" if runner == "v2" else "vl.env"))
    try:
        hf = code.hf_config(case["draft"])
    except ValueError as exc:
        return {
            **row,
            "status": "fails",
            "reason": f"draft config rejected: {exc}",
            "ids_read": None,
            "ids_from": None,
            "captured": None,
            "would_capture": None,
            "fc_in": None,
            "fc_in_checkpoint": case.get("fc_in_checkpoint"),
            "cite": cites + [cite("vl.algos_arch")],
        }
    supported, kind, tcites = VLLM_TARGETS[arch]
    if not supported:
        key = "vl.v2_nosupport" if runner == "v2" else "vl.v1_nosupport"
        return {
            **row,
            "status": "unsupported",
            "reason": f"{arch} does not implement SupportsEagle3: 'Model does not support EAGLE3 interface'",
            "ids_read": None,
            "ids_from": None,
            "captured": None,
            "would_capture": None,
            "fc_in": None,
            "fc_in_checkpoint": case.get("fc_in_checkpoint"),
            "cite": cites + [cite(key)] + [cite(k) for k in tcites],
        }
    spec_config = NS(draft_model_config=NS(hf_config=hf))
    if runner == "v2":
        ids = code.v2_lookup(spec_config)
        cites.append(cite("vl.v2_lookup"))
    else:
        ids = code.v1_lookup(NS(speculative_config=spec_config))
        cites.append(cite("vl.v1_lookup"))
    if ids:
        top = getattr(hf, "eagle_aux_hidden_state_layer_ids", None)
        ids_from = "top-level" if top else ("eagle_config.layer_ids" if runner == "v2" else "eagle_config")
    else:
        holder = NS(model=NS(layers=[None] * n))
        ids = code.default(holder)
        ids_from = "default"
        cites += [cite("vl.v2_default_call" if runner == "v2" else "vl.v1_default_call"), cite("vl.default")]
    ids = tuple(ids)
    if kind == "mixin":
        holder = NS(_cache_aux_pp_layout=lambda: None)
        code.mixin_set(holder, ids)
        layers = holder.aux_hidden_state_layers
    else:
        model = NS(model=NS())
        code.ds_set(model, ids)
        layers = tuple(model.model.aux_hidden_state_layers)
    cites += [cite(k) for k in tcites]
    captured, crash = vllm_capture(kind, layers, n, cite)
    k, fc_in, fc_cite = code.fc_count(hf)
    cites.append(fc_cite)
    out = {
        **row,
        "ids_read": list(ids),
        "ids_from": ids_from,
        "captured": captured,
        "would_capture": captured,
        "fc_in": fc_in,
        "fc_in_checkpoint": case.get("fc_in_checkpoint"),
    }
    return _finish(out, crash, k, fc_in, captured, h, cite("vl.fc_load"))


def _finish(out: dict, crash: str, k: int, fc_in: int, captured, h: int, load_cite: str) -> dict:
    ck = out["fc_in_checkpoint"]
    if crash:
        out.update(status="fails", reason=crash, captured=None)
        return out
    if ck is not None and ck != fc_in:
        out.update(
            status="fails",
            captured=None,
            reason=f"checkpoint fc takes {ck} inputs but the engine builds fc with {fc_in} "
            f"({k} states x {fc_in // max(k, 1)}): weight load asserts on the shape",
        )
        out["cite"].append(load_cite)
        return out
    width = len(captured) * h
    if width != fc_in:
        out.update(
            status="fails",
            reason=f"{len(captured)} captured states x target hidden {h} = {width} features reach an fc built "
            f"for {fc_in} ({k} x {fc_in // max(k, 1)}): shape error in the first draft forward",
        )
        return out
    out.update(status="ok", reason="")
    return out


# --------------------------------------------------------------------------------------------------
# SGLang
# --------------------------------------------------------------------------------------------------
class SgTarget:
    def __init__(self, kind, hook, cites, model_hook=None, delegate=None, end=False, guarded=True, registered=True):
        self.kind, self.hook, self.cites = kind, hook, cites
        self.model_hook, self.delegate, self.end, self.guarded, self.registered = (
            model_hook,
            delegate,
            end,
            guarded,
            registered,
        )


SG23_TARGETS: dict[str, SgTarget] = {
    "LlamaForCausalLM": SgTarget(
        "list",
        ("models/llama.py", "LlamaForCausalLM"),
        ["sg23.llama_hook", "sg23.llama_loop", "sg23.llama_cap", "sg23.stage_b0"],
    ),
    "MistralForCausalLM": SgTarget(
        "list", ("models/llama.py", "LlamaForCausalLM"), ["sg23.mistral", "sg23.llama_hook", "sg23.llama_cap"]
    ),
    "Phi3ForCausalLM": SgTarget(
        "list", ("models/llama.py", "LlamaForCausalLM"), ["sg23.phi3", "sg23.llama_hook", "sg23.llama_cap"]
    ),
    "Qwen2ForCausalLM": SgTarget(
        "list", ("models/qwen2.py", "Qwen2ForCausalLM"), ["sg23.qwen2_hook", "sg23.qwen2_cap"]
    ),
    "Qwen3ForCausalLM": SgTarget(
        "list", ("models/qwen3.py", "Qwen3ForCausalLM"), ["sg23.qwen3_hook", "sg23.qwen3_cap"]
    ),
    "Qwen2MoeForCausalLM": SgTarget(
        "flag",
        ("models/qwen2_moe.py", "Qwen2MoeForCausalLM"),
        ["sg23.qwen2moe_hook", "sg23.qwen2moe_index", "sg23.qwen2moe_cap"],
        model_hook=("models/qwen2_moe.py", "Qwen2MoeModel"),
    ),
    "Qwen3MoeForCausalLM": SgTarget(
        "flag",
        ("models/qwen3_moe.py", "Qwen3MoeForCausalLM"),
        ["sg23.qwen3moe_hook", "sg23.qwen3moe_model", "sg23.qwen2moe_index", "sg23.qwen2moe_cap"],
        model_hook=("models/qwen2_moe.py", "Qwen2MoeModel"),
    ),
    "Qwen3NextForCausalLM": SgTarget(
        "flag",
        ("models/qwen3_next.py", "Qwen3NextForCausalLM"),
        ["sg23.qwen3next_hook", "sg23.qwen3next_index"],
        model_hook=("models/qwen3_next.py", "Qwen3NextModel"),
    ),
    "DeepseekV3ForCausalLM": SgTarget(
        "packer",
        ("models/deepseek_v2.py", "DeepseekV2ForCausalLM"),
        ["sg23.ds_hook", "sg23.ds_packer", "sg23.ds_cap", "sg23.ds_finalize", "sg23.packer_raise"],
    ),
    "KimiK25ForConditionalGeneration": SgTarget(
        "packer",
        ("models/kimi_k25.py", "KimiK25ForConditionalGeneration"),
        ["sg23.kimi", "sg23.ds_hook", "sg23.ds_packer", "sg23.ds_cap", "sg23.packer_raise"],
        delegate=("models/deepseek_v2.py", "DeepseekV2ForCausalLM"),
    ),
    "GlmMoeDsaForCausalLM": SgTarget(
        "packer",
        ("models/deepseek_v2.py", "DeepseekV2ForCausalLM"),
        ["sg23.glm5", "sg23.ds_hook", "sg23.ds_packer", "sg23.packer_raise"],
    ),
    "GptOssForCausalLM": SgTarget(
        "list",
        ("models/gpt_oss.py", "GptOssForCausalLM"),
        ["sg23.gptoss_hook", "sg23.gptoss_cap", "sg23.gptoss_bN"],
        end=True,
    ),
    "Glm4MoeForCausalLM": SgTarget(
        "list", ("models/glm4_moe.py", "Glm4MoeForCausalLM"), ["sg23.glm4moe_hook", "sg23.glm4moe_cap"]
    ),
    "Gemma3ForConditionalGeneration": SgTarget(
        "list",
        ("models/gemma3_mm.py", "Gemma3ForConditionalGeneration"),
        ["sg23.gemma3mm", "sg23.gemma3_hook", "sg23.gemma3_cap", "sg23.gemma3_bN", "sg23.gemma3_unsummed"],
        delegate=("models/gemma3_causal.py", "Gemma3ForCausalLM"),
        end=True,
    ),
    "Llama4ForConditionalGeneration": SgTarget(
        "list",
        ("models/mllama4.py", "Llama4ForConditionalGeneration"),
        ["sg23.mllama4", "sg23.llama4_cls", "sg23.llama_hook", "sg23.llama4_cap"],
        delegate=("models/llama.py", "LlamaForCausalLM"),
    ),
    "MiniMaxM2ForCausalLM": SgTarget(
        "list", ("models/minimax_m2.py", "MiniMaxM2ForCausalLM"), ["sg23.minimax_hook", "sg23.minimax_cap"]
    ),
    "MixtralForCausalLM": SgTarget("none", None, ["sg23.nohook"]),
    "BailingMoeV2ForCausalLM": SgTarget(
        "list",
        ("models/bailing_moe.py", "BailingMoEForCausalLM"),
        ["sg23.bailingv2_cls", "sg23.bailing_hook", "sg23.bailing_cap", "sg23.stage_b0"],
    ),
    "BailingMoeForCausalLM": SgTarget(
        "list",
        ("models/bailing_moe.py", "BailingMoEForCausalLM"),
        ["sg23.bailing_cls", "sg23.bailing_hook", "sg23.bailing_cap", "sg23.stage_b0"],
    ),
}

SG51_TARGETS: dict[str, SgTarget] = {
    "LlamaForCausalLM": SgTarget(
        "list",
        ("models/llama.py", "LlamaForCausalLM"),
        ["sg51.llama_hook", "sg51.llama_res_none", "sg51.llama_cap"],
        guarded=False,
    ),
    "MistralForCausalLM": SgTarget(
        "list", ("models/llama.py", "LlamaForCausalLM"), ["sg51.llama_hook", "sg51.llama_cap"], guarded=False
    ),
    "Phi3ForCausalLM": SgTarget(
        "list", ("models/llama.py", "LlamaForCausalLM"), ["sg51.llama_hook", "sg51.llama_cap"], guarded=False
    ),
    "Qwen3ForCausalLM": SgTarget(
        "list", ("models/qwen3.py", "Qwen3ForCausalLM"), ["sg51.qwen3_hook", "sg51.qwen2_cap"]
    ),
    "Qwen3MoeForCausalLM": SgTarget(
        "list", ("models/qwen3_moe.py", "Qwen3MoeForCausalLM"), ["sg51.qwen3moe_hook", "sg51.qwen2moe_cap"]
    ),
    "GptOssForCausalLM": SgTarget(
        "list", ("models/gpt_oss.py", "GptOssForCausalLM"), ["sg51.gptoss_hook", "sg51.gptoss_cap"], guarded=False
    ),
    "Llama4ForConditionalGeneration": SgTarget(
        "list",
        ("models/mllama4.py", "Llama4ForConditionalGeneration"),
        ["sg51.mllama4", "sg51.llama_hook", "sg51.llama4_cap"],
        delegate=("models/llama.py", "LlamaForCausalLM"),
        guarded=False,
    ),
    "Qwen2ForCausalLM": SgTarget("none", None, ["sg51.nohook"]),
    "Qwen2MoeForCausalLM": SgTarget("none", None, ["sg51.nohook"]),
    "DeepseekV3ForCausalLM": SgTarget("none", None, ["sg51.nohook"]),
    "Glm4MoeForCausalLM": SgTarget("none", None, ["sg51.nohook"]),
    "Gemma3ForConditionalGeneration": SgTarget("none", None, ["sg51.nohook"]),
    "MixtralForCausalLM": SgTarget("none", None, ["sg51.nohook"]),
    "KimiK25ForConditionalGeneration": SgTarget("none", None, ["sg51.registry"], registered=False),
    "GlmMoeDsaForCausalLM": SgTarget("none", None, ["sg51.registry"], registered=False),
    "Qwen3NextForCausalLM": SgTarget("none", None, ["sg51.registry"], registered=False),
    "MiniMaxM2ForCausalLM": SgTarget("none", None, ["sg51.registry"], registered=False),
    "BailingMoeV2ForCausalLM": SgTarget("none", None, ["sg51.registry"], registered=False),
    "BailingMoeForCausalLM": SgTarget("none", None, ["sg51.nohook"]),
}


class SgCode:
    def __init__(self, root: str, version: str) -> None:
        self.root, self.version = root, version
        self._fn: dict[tuple[str, str], Any] = {}
        env = {
            "get_parallel": lambda: NS(pp_group=NS(is_last_rank=True)),
            "get_pp_group": lambda: NS(is_last_rank=True),
        }
        for table in (SG23_TARGETS if version == "0.5.23" else SG51_TARGETS).values():
            for ref in (table.hook, table.delegate):
                if ref and ref not in self._fn:
                    self._fn[ref], _ = extract_function(
                        f"{root}/{ref[0]}", f"{ref[1]}.set_eagle3_layers_to_capture", env
                    )
            if table.model_hook and table.model_hook not in self._fn:
                self._fn[table.model_hook], _ = extract_function(
                    f"{root}/{table.model_hook[0]}", f"{table.model_hook[1]}.set_eagle3_layers_to_capture"
                )

    def lookup(self, raw: dict) -> list[int] | None:
        """The engine's own id lookup, run on the draft config as HF loads it (every key an attribute)."""
        hf = NS(**copy.deepcopy(raw))
        if self.version == "0.5.23":
            env = {"config": NS(), "draft_model_config": NS(hf_config=hf), "getattr": getattr, "Exception": Exception}
            extract_statements(
                f"{self.root}/model_executor/model_runner_components/spec_aux_hidden_state.py",
                "_resolve_eagle_aux_hidden_state",
                lambda s: s.startswith("config.eagle_use_aux_hidden_state = True"),
                lambda s: s.startswith("try:"),
                env,
            )
            return env["config"].eagle_aux_hidden_state_layer_ids
        # 0.5.1: the try block inside ModelRunner.initialize
        path = f"{self.root}/model_executor/model_runner.py"
        src, tree = _tree(path)
        node = next(
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Try)
            and "eagle_aux_hidden_state_layer_ids = eagle_config[" in ast.get_source_segment(src, n)
        )
        env = {"draft_model_config": NS(hf_config=hf), "getattr": getattr}
        mod = ast.Module(body=[copy.deepcopy(node)], type_ignores=[])
        ast.fix_missing_locations(mod)
        exec(compile(mod, path, "exec"), env)
        return env["eagle_aux_hidden_state_layer_ids"]

    def fc(self, raw: dict) -> tuple[int, int]:
        config = NS(**copy.deepcopy(raw))
        config.__dict__.setdefault("hidden_size", 0)
        if self.version == "0.5.1":
            hin = getattr(config, "target_hidden_size", None) or config.hidden_size
            return 3, hin * 3  # llama_eagle3.py:124-125 (fc = Linear(hidden_size_in * 3, ...))
        env = {"self": NS(), "config": config, "getattr": getattr, "hasattr": hasattr, "len": len}
        extract_statements(
            f"{self.root}/models/llama_eagle3.py",
            "LlamaModel.__init__",
            lambda s: s.startswith('if hasattr(config, "target_hidden_size"):'),
            lambda s: s.startswith("if self.num_aux_hidden_states is None:"),
            env,
        )
        s = env["self"]
        return s.num_aux_hidden_states, s.hidden_size_in * s.num_aux_hidden_states

    def set_layers(self, t: SgTarget, ids, n: int):
        """Run the class's own set_eagle3_layers_to_capture; returns (layers_to_capture, flagged layer indices)."""
        layers = [NS() for _ in range(n)]
        model = NS(layers=layers, layers_to_capture=[])
        if t.model_hook:
            fn = self._fn[t.model_hook]
            model.set_eagle3_layers_to_capture = types.MethodType(fn, model)
        target = NS(
            config=NS(num_hidden_layers=n, text_config=NS(num_hidden_layers=n)),
            pp_group=NS(is_last_rank=True),
            model=model,
            capture_aux_hidden_states=False,
        )
        if t.delegate:
            inner = NS(config=target.config, pp_group=target.pp_group, model=model, capture_aux_hidden_states=False)
            inner.set_eagle3_layers_to_capture = types.MethodType(self._fn[t.delegate], inner)
            target.language_model = inner
        self._fn[t.hook](target, None if ids is None else list(ids))
        flagged = [i for i, lay in enumerate(layers) if getattr(lay, "_is_layer_to_capture", False)]
        return list(model.layers_to_capture), flagged


def sglang_row(code: SgCode, case: dict) -> dict:
    ver = code.version
    table = SG23_TARGETS if ver == "0.5.23" else SG51_TARGETS
    key = "sg23" if ver == "0.5.23" else "sg51"
    arch, n, h, raw = case["target_arch"], case["n"], case["target_hidden"], case["draft"]
    row = {
        "engine": "SGLang",
        "version": ver,
        "runner": None,
        "cite": [],
        "fc_in_checkpoint": case.get("fc_in_checkpoint"),
    }
    blank = {"ids_read": None, "ids_from": None, "captured": None, "would_capture": None, "fc_in": None}
    if raw.get("speculators_model_type") is not None:
        return {
            **row,
            **blank,
            "status": "unsupported",
            "reason": "speculators-format draft (architecture Eagle3Speculator): SGLang has no such model class",
            "cite": [cite(f"{key}.registry")],
        }
    t = table[arch]
    if not t.registered:
        return {
            **row,
            **blank,
            "status": "unsupported",
            "reason": f"SGLang {ver} does not register {arch}",
            "cite": [cite(k) for k in t.cites],
        }
    if t.kind == "none":
        msg = (
            "ValueError: does not implement set_eagle3_layers_to_capture"
            if ver == "0.5.23"
            else "AttributeError: no attribute 'set_eagle3_layers_to_capture'"
        )
        return {
            **row,
            **blank,
            "status": "unsupported",
            "reason": f"{arch} has no EAGLE-3 hook ({msg})",
            "cite": [cite(k) for k in t.cites],
        }
    ids = code.lookup(raw)
    cites = row["cite"]
    cites.append(cite(f"{key}.lookup"))
    ids_from = "eagle_config" if ids is not None else "default"
    try:
        ltc, flagged = code.set_layers(t, ids, n)
    except IndexError as exc:
        return {
            **row,
            **blank,
            "ids_read": ids,
            "ids_from": ids_from,
            "status": "fails",
            "reason": f"IndexError while marking layers at start-up ({exc})",
            "cite": cites + [cite(k) for k in t.cites],
        }
    cites += [cite(k) for k in t.cites]
    crash = ""
    if t.kind == "flag":
        captured = flagged
    else:
        captured = [b for b in range(n) if b in ltc] + ([n] if t.end and n in ltc else [])
    if t.kind == "packer" and len(captured) != len(ltc):
        crash = f"AuxHiddenStatePacker.finalize: 'captured {len(captured)} of {len(ltc)} aux hidden states'"
    if not t.guarded and 0 in captured:
        crash = "boundary 0 adds residual=None to the embedding (TypeError in the first forward)"
    k, fc_in = code.fc(raw)
    cites.append(cite(f"{key}.fc_count" if ver == "0.5.23" else "sg51.fc"))
    out = {
        **row,
        "ids_read": ids if ids is None else list(ids),
        "ids_from": ids_from,
        "asked": ltc,
        "captured": captured,
        "would_capture": captured,
        "fc_in": fc_in,
    }
    if ids is None:
        out["ids_read"] = None
    res = _finish(out, crash, k, fc_in, captured, h, cite("sg23.fc_load"))
    if arch == "Gemma3ForConditionalGeneration" and res["status"] == "ok":
        res["note"] = (
            "captures `hidden_states` before the residual add (gemma3_causal.py:657 with the layer "
            "returning (hidden_states, residual) unsummed, :410): for b>=1 this is block b-1's branch "
            "output, not the residual stream HF reports"
        )
    return res


# --------------------------------------------------------------------------------------------------
# Trainers
# --------------------------------------------------------------------------------------------------
def specforge_check(draft: dict, n: int) -> dict:
    fn, _ = extract_function(f"{SF}/algorithms/model_providers.py", "resolve_eagle_capture_layers")
    cfg = NS(model=NS(aux_hidden_state_layer_ids=None))
    try:
        layers = fn(cfg, draft, NS(num_hidden_layers=n))
    except ValueError as exc:
        return {"status": "refused", "reason": str(exc), "cite": [cite("sf.refuse")]}
    if len(set(layers)) != len(layers) or any(i >= n for i in layers):
        return {
            "status": "refused-offline",
            "ids": layers,
            "reason": "offline capture refuses repeats / ids >= N",
            "cite": [cite("sf.offline")],
        }
    return {"status": "ok", "ids": layers, "cite": [cite("sf.resolve"), cite("sf.via_sglang")]}


def speculators_check(ids, n: int) -> dict:
    fn, _ = extract_function(
        f"{SP}/models/utils.py",
        "resolve_target_layer_ids",
        {
            "get_verifier_config": lambda *a, **k: NS(num_hidden_layers=n),
            "warnings": NS(warn=lambda *a, **k: None),
            "DEFAULT_TARGET_LAYER_IDS_WARNING": "{target_layer_ids}",
        },
    )
    try:
        got = fn(None if ids is None else list(ids), "verifier")
    except ValueError as exc:
        return {"status": "refused", "reason": str(exc), "cite": [cite("sp.refuse")]}
    return {"status": "ok", "ids": got, "fc_states": len(got), "cite": [cite("sp.resolve"), cite("sp.fc")]}


# --------------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------------
FAMILIES = {  # family -> (architecture, N, hidden) ; N/hidden from the public configs (GLM-5 illustrative)
    "llama": ("LlamaForCausalLM", 32, 4096),  # Llama-3.1-8B
    "mistral": ("MistralForCausalLM", 32, 4096),
    "phi3": ("Phi3ForCausalLM", 32, 3072),  # Phi-3-mini
    "qwen2": ("Qwen2ForCausalLM", 28, 3584),  # Qwen2.5-7B
    "qwen3": ("Qwen3ForCausalLM", 36, 4096),  # Qwen3-8B
    "qwen2_moe": ("Qwen2MoeForCausalLM", 24, 2048),  # Qwen1.5-MoE-A2.7B
    "qwen3_moe": ("Qwen3MoeForCausalLM", 48, 2048),  # Qwen3-30B-A3B
    "qwen3_next": ("Qwen3NextForCausalLM", 48, 2048),  # Qwen3-Next-80B-A3B
    "deepseek_v3": ("DeepseekV3ForCausalLM", 61, 7168),
    "kimi_k25": ("KimiK25ForConditionalGeneration", 61, 7168),
    "gpt_oss": ("GptOssForCausalLM", 36, 2880),  # gpt-oss-120b
    "mixtral": ("MixtralForCausalLM", 32, 4096),
    "glm4_moe": ("Glm4MoeForCausalLM", 92, 5120),  # GLM-4.5 / 4.6
    "glm5_dsa": ("GlmMoeDsaForCausalLM", 78, 6144),  # GLM-5 (N, hidden illustrative)
    "gemma3": ("Gemma3ForConditionalGeneration", 62, 5376),  # Gemma-3-27B
    "llama4": ("Llama4ForConditionalGeneration", 48, 5120),  # Llama-4 Scout/Maverick
    "minimax_m2": ("MiniMaxM2ForCausalLM", 62, 3072),
    "bailing_moe_v2": ("BailingMoeV2ForCausalLM", 32, 4096),  # Ling-flash-2.0
    "bailing_moe": ("BailingMoeForCausalLM", 28, 2048),  # Ling-lite (v1)
}


def specforge_draft(ids, hidden, *, top_level=None, num_aux=None, target_hidden=None):
    d = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": hidden,
        "num_hidden_layers": 1,
        "eagle_config": {"use_aux_hidden_state": True},
    }
    if ids is not None:
        d["eagle_config"]["eagle_aux_hidden_state_layer_ids"] = list(ids)
    if top_level is not None:
        d["eagle_aux_hidden_state_layer_ids"] = list(top_level)
    if num_aux is not None:
        d["num_aux_hidden_states"] = num_aux
    if target_hidden is not None:
        d["target_hidden_size"] = target_hidden
    return d


def speculators_draft(ids, hidden, layer_type="llama"):
    d = {
        "architectures": ["Eagle3Speculator"],
        "speculators_model_type": "eagle3",
        "speculators_config": {"proposal_methods": [{"speculative_tokens": 3}], "verifier": {"name_or_path": "v"}},
        "transformer_layer_config": {
            "model_type": layer_type,
            "hidden_size": hidden,
            "num_hidden_layers": 1,
            "architectures": ["LlamaForCausalLM"],
        },
        "draft_vocab_size": 32000,
    }
    if ids is not None:
        d["eagle_aux_hidden_state_layer_ids"] = list(ids)
    return d


def build_cases() -> list[dict]:
    cases: list[dict] = []

    def add(name, family, draft, *, n=None, fc_states=None, fc_hidden=None, target_hidden=None, note=""):
        arch, n0, h0 = FAMILIES[family]
        n = n or n0
        h = target_hidden or h0
        fch = fc_hidden or h0
        if fc_states is None:
            ids = (
                (draft.get("eagle_config") or {}).get("eagle_aux_hidden_state_layer_ids")
                if "eagle_config" in draft
                else draft.get("eagle_aux_hidden_state_layer_ids")
            )
            fc_states = len(ids) if ids else 3
        cases.append(
            {
                "name": name,
                "family": family,
                "target_arch": arch,
                "n": n,
                "target_hidden": h,
                "draft": draft,
                "fc_in_checkpoint": fc_states * fch,
                "note": note,
            }
        )

    K = 7168
    add("kimi draft [2,30,58] (SpecForge format)", "kimi_k25", specforge_draft([2, 30, 58], K))
    add("kimi own draft, first id 1: [1,29,57]", "kimi_k25", specforge_draft([1, 29, 57], K))
    add("seed [-1,29,57] on Kimi", "kimi_k25", specforge_draft([-1, 29, 57], K))
    add("id 0 on Kimi [0,30,58]", "kimi_k25", specforge_draft([0, 30, 58], K))
    add("Kimi N-1 [2,30,60]", "kimi_k25", specforge_draft([2, 30, 60], K))
    add("Kimi out of range [2,30,99]", "kimi_k25", specforge_draft([2, 30, 99], K))
    add("Kimi default ids (none), N=61", "kimi_k25", specforge_draft(None, K))
    add("Kimi top-level ids [2,30,58] only", "kimi_k25", specforge_draft(None, K, top_level=[2, 30, 58]), fc_states=3)
    add(
        "Kimi top-level [3,31,59] + eagle_config [2,30,58]",
        "kimi_k25",
        specforge_draft([2, 30, 58], K, top_level=[3, 31, 59]),
    )
    add("Qwen3-8B default ids (none), N=36", "qwen3", specforge_draft(None, 4096))
    add("Llama first id 1 [1,15,28]", "llama", specforge_draft([1, 15, 28], 4096))
    add("Llama N-1 [1,15,31]", "llama", specforge_draft([1, 15, 31], 4096))
    add("Llama out of range [1,15,40]", "llama", specforge_draft([1, 15, 40], 4096))
    add("Llama -1 [-1,15,28]", "llama", specforge_draft([-1, 15, 28], 4096))
    add("Llama 2 ids, SpecForge format [15,28] (fc 2H)", "llama", specforge_draft([15, 28], 4096))
    add("Llama 4 ids, SpecForge format [1,10,20,28] (fc 4H)", "llama", specforge_draft([1, 10, 20, 28], 4096))
    add("Llama 2 ids, SpecForge format + top-level fix", "llama", specforge_draft([15, 28], 4096, top_level=[16, 29]))
    add("Llama 2 ids, speculators format (llama layer) [16,29]", "llama", speculators_draft([16, 29], 4096))
    add(
        "Llama 4 ids, speculators format (llama layer) [2,10,20,29]", "llama", speculators_draft([2, 10, 20, 29], 4096)
    )
    add("Qwen3 2 ids, speculators format (qwen3 layer) [16,29]", "qwen3", speculators_draft([16, 29], 4096, "qwen3"))
    add(
        "Qwen3 4 ids, speculators format (qwen3 layer) [2,10,20,33]",
        "qwen3",
        speculators_draft([2, 10, 20, 33], 4096, "qwen3"),
    )
    fixed = speculators_draft([16, 29], 4096)
    fixed["transformer_layer_config"]["num_aux_hidden_states"] = 2
    add(
        "Llama 2 ids, speculators format + transformer_layer_config.num_aux_hidden_states=2",
        "llama",
        fixed,
        fc_states=2,
    )
    add("Llama 3 ids, speculators format [2,16,29]", "llama", speculators_draft([2, 16, 29], 4096))
    add("Llama speculators format, no ids", "llama", speculators_draft(None, 4096))
    add(
        "8B draft (hidden 4096) on 70B target (8192), ids [1,39,76]",
        "llama",
        specforge_draft([1, 39, 76], 4096),
        n=80,
        target_hidden=8192,
        fc_hidden=4096,
    )
    add("gpt-oss-120b ids with N [2,18,36]", "gpt_oss", specforge_draft([2, 18, 36], 2880))
    add("gpt-oss-120b SpecForge [1,17,33]", "gpt_oss", specforge_draft([1, 17, 33], 2880))
    add("gpt-oss -1 [-1,17,33]", "gpt_oss", specforge_draft([-1, 17, 33], 2880))
    add("Qwen3-MoE -2 [-2,23,44]", "qwen3_moe", specforge_draft([-2, 23, 44], 2048))
    add("Qwen3-MoE N-1 [1,23,47]", "qwen3_moe", specforge_draft([1, 23, 47], 2048))
    add(
        "Qwen3-MoE-235B registry [1,46,90]",
        "qwen3_moe",
        specforge_draft([1, 46, 90], 4096),
        n=94,
        target_hidden=4096,
        fc_hidden=4096,
    )
    add("Qwen3-Next N-1 [1,23,47]", "qwen3_next", specforge_draft([1, 23, 47], 2048))
    add("repeat ids [1,15,15] on Llama", "llama", specforge_draft([1, 15, 15], 4096))
    for fam, (_arch, n, h) in FAMILIES.items():
        add(f"{fam}: SpecForge default-style ids [1,N//2-1,N-4]", fam, specforge_draft([1, n // 2 - 1, n - 4], h))
        add(f"{fam}: no ids", fam, specforge_draft(None, h))
    return cases


def trained(case: dict) -> dict:
    """Boundaries the draft was trained on, if it came from the trainer its format implies."""
    d, n = case["draft"], case["n"]
    if d.get("speculators_model_type") is not None:
        sp = speculators_check(d.get("eagle_aux_hidden_state_layer_ids"), n)
        if sp["status"] != "ok":
            return {"trainer": "speculators 0.9.0", **sp}
        return {"trainer": "speculators 0.9.0 (captures through vLLM: boundary = id)", "boundaries": sp["ids"], **sp}
    sf = specforge_check(d, n)
    return {"trainer": "SpecForge 0.2.0 (captures through SGLang 0.5.14 set_eagle3_layers_to_capture)", **sf}


# --------------------------------------------------------------------------------------------------
# Automatic hook resolution (EntryClass -> MRO -> set_eagle3_layers_to_capture), used for SpecForge's
# SGLang 0.5.14 and to cross-check the hand tables above.
# --------------------------------------------------------------------------------------------------
# ---- static class resolution in an SGLang wheel: arch -> EntryClass -> MRO -> set_eagle3_layers_to_capture


class Pkg:
    def __init__(self, root, top):
        self.root, self.top = root, top
        self._cache = {}

    def parse(self, mod):
        if mod in self._cache:
            return self._cache[mod]
        rel = mod.replace(".", "/")
        res = (None, None)
        for cand in (f"{self.root}/{rel}.py", f"{self.root}/{rel}/__init__.py"):
            if os.path.exists(cand):
                res = (cand, ast.parse(open(cand).read()))
                break
        self._cache[mod] = res
        return res

    def symbols(self, mod):
        path, tree = self.parse(mod)
        if tree is None:
            return {}, {}, {}
        is_pkg = path.endswith("__init__.py")
        imports, classes, assigns = {}, {}, {}

        def rel(level, name):
            if level == 0:
                return name
            parts = mod.split(".")
            base = parts if is_pkg else parts[:-1]
            base = base[: len(base) - (level - 1)]
            return ".".join(base + ([name] if name else []))

        for n in ast.walk(tree):  # walk: includes conditional imports
            if isinstance(n, ast.ImportFrom):
                src = rel(n.level, n.module)
                for a in n.names:
                    imports.setdefault(a.asname or a.name, (src, a.name))
        for n in tree.body:
            if isinstance(n, ast.ClassDef):
                classes[n.name] = n
            elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                assigns[n.targets[0].id] = n.value
        return imports, classes, assigns

    def find_class(self, mod, name, depth=0):
        if depth > 10:
            return None
        imports, classes, assigns = self.symbols(mod)
        if name in classes:
            return mod, classes[name]
        if name in assigns and isinstance(assigns[name], ast.Name):
            return self.find_class(mod, assigns[name].id, depth + 1)
        if name in imports:
            src, real = imports[name]
            return self.find_class(src, real, depth + 1)
        return None

    def mro(self, mod, name):
        """Linearised ancestry (DFS, left-to-right; good enough when no diamond overrides)."""
        out, seen = [], set()

        def rec(m, n):
            r = self.find_class(m, n)
            if not r:
                return
            mm, node = r
            if (mm, node.name) in seen:
                return
            seen.add((mm, node.name))
            out.append((mm, node))
            for b in node.bases:
                rec(mm, ast.unparse(b).split("[")[0].split(".")[-1])

        rec(mod, name)
        return out

    def find_method(self, mod, name, meth):
        for mm, node in self.mro(mod, name):
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and f.name == meth:
                    return mm, node, f
        return None

    def path_of(self, mod):
        return self.parse(mod)[0]


def entry_classes(pkg, models_mod):
    """arch name -> (module, class name), from each model file's EntryClass."""
    out = {}
    d = pkg.root + "/" + models_mod.replace(".", "/")
    for f in sorted(glob.glob(d + "/*.py")):
        mod = models_mod + "." + os.path.basename(f)[:-3]
        try:
            tree = ast.parse(open(f).read())
        except SyntaxError:
            continue
        for n in tree.body:
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "EntryClass" for t in n.targets):
                vals = n.value.elts if isinstance(n.value, (ast.List, ast.Tuple)) else [n.value]
                for v in vals:
                    if isinstance(v, ast.Name):
                        r = pkg.find_class(mod, v.id)
                        if r:
                            out.setdefault(r[1].name, (r[0], r[1].name, mod))
                        out.setdefault(v.id, (r[0] if r else mod, r[1].name if r else v.id, mod))
    return out


_PKG_EC: dict[str, Any] = {}


def _pkg_ec(root_wheel: str):
    if root_wheel not in _PKG_EC:
        pkg = Pkg(root_wheel, "sglang")
        _PKG_EC[root_wheel] = (pkg, entry_classes(pkg, "sglang.srt.models"))
    return _PKG_EC[root_wheel]


DELEGATE = {
    "KimiK25ForConditionalGeneration": "DeepseekV3ForCausalLM",
    "Llama4ForConditionalGeneration": "Llama4ForCausalLM",
    "Gemma3ForConditionalGeneration": "Gemma3ForCausalLM",
}


def auto_target(root_wheel: str, arch: str) -> SgTarget | None:
    """Build an SgTarget for ``arch`` from the wheel's own registry and class hierarchy (None: not registered)."""
    pkg, ec = _pkg_ec(root_wheel)
    if arch not in ec:
        return None

    def hook_of(a):
        mod, cls, _ = ec[a]
        r = pkg.find_method(mod, cls, "set_eagle3_layers_to_capture")
        if not r:
            return None, None
        rel = pkg.path_of(r[0]).split("/sglang/srt/")[1]
        return (rel, r[1].name), ast.get_source_segment(open(pkg.path_of(r[0])).read(), r[2])

    hook, body = hook_of(arch)
    if hook is None:
        return SgTarget("none", None, [])
    delegate = None
    if "self.language_model.set_eagle3_layers_to_capture" in body:
        delegate, body = hook_of(DELEGATE[arch])
    model_hook = None
    kind = "list"
    if "self.model.set_eagle3_layers_to_capture(" in body:
        # the inner Model class marks self.layers[id]
        for cand in ("Qwen2MoeModel", "Qwen3NextModel"):
            for f in ("models/qwen2_moe.py", "models/qwen3_next.py"):
                try:
                    _find_def(f"{root_wheel}/sglang/srt/{f}", f"{cand}.set_eagle3_layers_to_capture")
                except LookupError:
                    continue
                if (arch.startswith("Qwen3Next")) == (cand == "Qwen3NextModel"):
                    model_hook = (f, cand)
        kind = "flag"
    return SgTarget(kind, hook, [], model_hook=model_hook, delegate=delegate, end=arch.startswith("Gemma3"))


class Sg514(SgCode):
    """SGLang 0.5.14 hooks, resolved automatically (SpecForge 0.2.0 pins sglang==0.5.14)."""

    def __init__(self) -> None:
        self.root, self.version = SG514, "0.5.14"
        self._fn = {}
        self.targets: dict[str, SgTarget | None] = {}
        env = {
            "get_parallel": lambda: NS(pp_group=NS(is_last_rank=True)),
            "get_pp_group": lambda: NS(is_last_rank=True),
        }
        for arch, *_ in FAMILIES.values():
            t = auto_target(f"{WHEELS}/sglang-0.5.14", arch)
            self.targets[arch] = t
            if t is None or t.kind == "none":
                continue
            for ref in (t.hook, t.delegate):
                if ref and ref not in self._fn:
                    self._fn[ref], _ = extract_function(
                        f"{SG514}/{ref[0]}", f"{ref[1]}.set_eagle3_layers_to_capture", env
                    )
            if t.model_hook and t.model_hook not in self._fn:
                self._fn[t.model_hook], _ = extract_function(
                    f"{SG514}/{t.model_hook[0]}", f"{t.model_hook[1]}.set_eagle3_layers_to_capture"
                )

    def trained_boundaries(self, arch: str, ids, n: int):
        t = self.targets.get(arch)
        if t is None or t.kind == "none":
            return None, f"SGLang 0.5.14 (SpecForge's pin) cannot capture for {arch}"
        try:
            ltc, flagged = self.set_layers(t, ids, n)
        except IndexError as exc:
            return None, f"SGLang 0.5.14 IndexError: {exc}"
        cap = flagged if t.kind == "flag" else [b for b in range(n) if b in ltc] + ([n] if t.end and n in ltc else [])
        if len(cap) != len(ltc):
            return None, (
                f"SGLang 0.5.14 captures only {cap} for layers_to_capture {ltc}: SpecForge's capture "
                "would be short, so no SpecForge run trained this draft"
            )
        return cap, ""


def hand_vs_auto() -> list[str]:
    """Differences between the hand tables (SG23_TARGETS / SG51_TARGETS) and the wheels' own registry + MRO."""
    diffs = []
    for ver, table in (("0.5.23", SG23_TARGETS), ("0.5.1", SG51_TARGETS)):
        for arch, t in table.items():
            a = auto_target(f"{WHEELS}/sglang-{ver}", arch)
            if a is None:
                if t.registered:
                    diffs.append(f"{ver} {arch}: table says registered, wheel does not register it")
                continue
            if not t.registered:
                diffs.append(f"{ver} {arch}: table says unregistered, wheel registers it")
            elif (a.kind == "none") != (t.kind == "none"):
                diffs.append(f"{ver} {arch}: hook presence differs (auto {a.kind}, table {t.kind})")
            elif t.kind != "none" and (
                a.hook != t.hook or a.delegate != t.delegate or (a.kind == "flag") != (t.kind == "flag")
            ):
                diffs.append(
                    f"{ver} {arch}: auto {a.hook}/{a.delegate}/{a.kind} vs table {t.hook}/{t.delegate}/{t.kind}"
                )
    return diffs


VLLM_REACH = {
    "mixin": lambda n: set(range(0, n + 1)),
    "deepseek": lambda n: set(range(1, n + 1)),
    "dsa-cuda": lambda n: set(range(0, n)),
}


def advice(case: dict, boundaries: list[int] | None, sg: SgCode) -> dict:
    """The config keys that make SGLang 0.5.23 and both vLLM runners capture ``boundaries`` (sorted), or why not."""
    arch, n = case["target_arch"], case["n"]
    unsupported = []
    if not VLLM_TARGETS[arch][0]:
        unsupported.append(f"vLLM 0.33.0 has no EAGLE-3 support for {arch} (no SupportsEagle3)")
    if SG23_TARGETS[arch].kind == "none":
        unsupported.append(f"SGLang 0.5.23 has no EAGLE-3 hook for {arch}")
    if len(unsupported) == 2:
        return {"possible": False, "why": unsupported}
    if not boundaries:
        return {"possible": False, "why": ["trained boundaries unknown (no trainer in the set produced this config)"]}
    B = sorted(boundaries)
    why = []
    ck = case.get("fc_in_checkpoint")
    if ck is not None and ck != len(B) * case["target_hidden"]:
        return {
            "possible": False,
            "why": [
                f"the checkpoint's fc takes {ck} features but {len(B)} states of this target give "
                f"{len(B) * case['target_hidden']}: the draft was built for a target of another width; "
                "no config fixes it"
            ],
        }
    if case["draft"].get("speculators_model_type") is not None:
        ok, kind, _ = VLLM_TARGETS[arch]
        if not ok or not set(B) <= VLLM_REACH[kind](n):
            return {
                "possible": False,
                "why": [f"vLLM 0.33.0 cannot capture {B} on {arch}", "SGLang does not read speculators-format drafts"],
            }
        cfg = {"eagle_aux_hidden_state_layer_ids": B}
        layer_type = case["draft"].get("transformer_layer_config", {}).get("model_type", "llama")
        if layer_type == "llama" and len(B) != 3:
            cfg["transformer_layer_config"] = {"num_aux_hidden_states": len(B)}
        return {
            "possible": True,
            "config": cfg,
            "engines": ["vLLM 0.33.0 v2", "vLLM 0.33.0 v1"],
            "not_possible": [
                "SGLang reads no speculators-format draft: convert it to an eagle_config-style "
                "config (LlamaForCausalLMEagle3) to serve it there"
            ],
            "note": "vLLM builds Eagle3LlamaForCausalLM for a llama layer config and sizes its fc from "
            "num_aux_hidden_states, else 3 (llama_eagle3.py:210-216); SpeculatorsConfig keeps every "
            "transformer_layer_config key as an attribute (speculators/base.py:21-29)",
        }
    ok, kind, _ = VLLM_TARGETS[arch]
    if not ok:
        why.append(f"vLLM 0.33.0 has no EAGLE-3 support for {arch}")
    elif not set(B) <= VLLM_REACH[kind](n):
        why.append(
            f"vLLM 0.33.0 cannot capture {sorted(set(B) - VLLM_REACH[kind](n))} on {arch} "
            "(boundary 0 crashes on the DeepSeek path; N is unreachable on the DSA path)"
        )
    sg_ids = None
    t = SG23_TARGETS[arch]
    if t.kind == "none":
        why.append(f"SGLang 0.5.23 has no EAGLE-3 hook for {arch}")
    else:
        for cand in ([b - 1 for b in B], list(B)):
            try:
                ltc, flagged = sg.set_layers(t, cand, n)
            except IndexError:
                continue
            cap = (
                flagged
                if t.kind == "flag"
                else [b for b in range(n) if b in ltc] + ([n] if t.end and n in ltc else [])
            )
            if cap == B and (t.kind != "packer" or len(ltc) == len(cap)):
                sg_ids = cand
                break
        if sg_ids is None:
            why.append(f"no eagle_config ids make SGLang 0.5.23 capture exactly {B} on {arch}")
    if why:
        return {"possible": False, "why": why}
    return {
        "possible": True,
        "config": {
            "eagle_aux_hidden_state_layer_ids": B,
            "eagle_config": {"eagle_aux_hidden_state_layer_ids": sg_ids},
        },
        "note": "top-level is read first by both vLLM runners; SGLang reads only eagle_config; both size fc "
        "from the eagle_config count (num_aux_hidden_states overrides it if present)",
    }


def run_all() -> dict:
    vl = VllmCode()
    vl34 = VllmCode("0.34.0")
    sg = {"0.5.23": SgCode(SG23, "0.5.23"), "0.5.1": SgCode(SG51, "0.5.1")}
    sg514 = Sg514()
    out = []
    for case in build_cases():
        rows = [
            sglang_row(sg["0.5.23"], case),
            sglang_row(sg["0.5.1"], case),
            vllm_row(vl34, "v2", case),
            vllm_row(vl, "v2", case),
            vllm_row(vl, "v1", case),
        ]
        tr = trained(case)
        if tr["status"] == "ok" and "boundaries" not in tr:  # SpecForge: ids go through SGLang 0.5.14's hook
            tr["boundaries"], err = sg514.trained_boundaries(case["target_arch"], tr["ids"], case["n"])
            if err:
                tr["boundaries_error"] = err
        b = tr.get("boundaries")
        ec_ids = (case["draft"].get("eagle_config") or {}).get("eagle_aux_hidden_state_layer_ids") or []
        negative = any(isinstance(i, int) and i < 0 for i in ec_ids)  # walk BC2: a typo, not the trained blocks
        if (
            b is None
            and not case["draft"].get("speculators_model_type")
            and not negative
            and rows[0]["status"] == "ok"
        ):
            # no trainer in the project's set produced it: assume its ids were written for SGLang (the format's
            # home engine), i.e. trained on what SGLang 0.5.23 captures; not for a negative id, which both trainers
            # refuse and SGLang reads as the embedding output or wraps (serving.assumes_sglang)
            b = rows[0]["captured"]
            tr["boundaries_assumed"] = b
            tr["assumption"] = (
                "not a SpecForge 0.2.0 run; assumed trained on what SGLang 0.5.23 captures from eagle_config"
            )
        for r in rows:
            r["same_as_trained"] = None if (b is None or r["captured"] is None) else sorted(r["captured"]) == sorted(b)
        out.append(
            {
                **{k: case[k] for k in ("name", "family", "target_arch", "n", "target_hidden", "fc_in_checkpoint")},
                "draft": case["draft"],
                "trainer": tr,
                "serving": rows,
                "advice": advice(case, b, sg["0.5.23"]),
            }
        )
    return {"wheels": "pip download --no-deps " + " ".join(WHEEL_PINS), "hand_vs_auto": hand_vs_auto(), "cases": out}


def verify_project_cites() -> list[str]:
    """Every citation in comparelib/models/serving.py still holds its named code in the wheel."""
    sys.path.insert(0, ROOT)
    from comparelib.models import serving

    bad = []
    for key, c in serving.CITES.items():
        path = f"{WHEELS}/{c.package}-{c.version}/{c.path}"
        try:
            lines = open(path).read().splitlines()
        except OSError as exc:
            bad.append(f"serving {key}: {exc}")
            continue
        if not (1 <= c.line <= len(lines)) or c.needle not in lines[c.line - 1]:
            bad.append(f"serving {key}: {c.path}:{c.line} no longer holds {c.needle!r}")
    return bad


def download(dest: str) -> None:
    """pip download --no-deps each pinned wheel into dest and unzip its .py files into dest/<name>-<version>/."""
    os.makedirs(dest, exist_ok=True)
    for pin in WHEEL_PINS:
        name, ver = pin.split("==")
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", dest, pin], check=True
        )
        whl = sorted(glob.glob(f"{dest}/{name}-{ver}-*.whl"))[-1]
        with zipfile.ZipFile(whl) as z:
            for member in z.namelist():
                if member.endswith(".py"):
                    z.extract(member, f"{dest}/{name}-{ver}")


def main(argv: list[str]) -> int:
    if "--download" in argv:
        download(argv[argv.index("--download") + 1])
        return 0
    bad = verify_cites() + verify_project_cites()
    if "--verify" in argv:
        print("\n".join(bad) if bad else f"all {len(CITES)} citations hold")
        return 1 if bad else 0
    if bad:
        print("citation drift:\n" + "\n".join(bad), file=sys.stderr)
    data = run_all()
    data["citation_drift"] = bad
    if data["hand_vs_auto"]:
        print("hand table vs wheel registry:\n" + "\n".join(data["hand_vs_auto"]), file=sys.stderr)
    dest = (
        argv[argv.index("--out") + 1] if "--out" in argv else os.path.join(ROOT, "tests", "data", "engine_cases.json")
    )
    with open(dest, "w") as fh:
        json.dump(data, fh, indent=1)
    for c in data["cases"]:
        print(f"\n## {c['name']}  ({c['target_arch']}, N={c['n']})")
        for r in c["serving"]:
            label = f"{r['engine']} {r['version']}" + (f" {r['runner']}" if r["runner"] else "")
            print(
                f"  {label:18s} {r['status']:11s} ids={r['ids_read']} from={r['ids_from']} "
                f"captured={r['captured']} trained={r['same_as_trained']} fc={r['fc_in']}/{r['fc_in_checkpoint']} "
                f"{r['reason'][:100]}"
            )
        tr = c["trainer"]
        adv = c["advice"]
        adv_s = json.dumps(adv["config"]) if adv.get("possible") else f"IMPOSSIBLE {adv.get('why')}"
        print(
            f"  trainer: {tr.get('status')} boundaries={tr.get('boundaries')} assumed={tr.get('boundaries_assumed')}"
            f"  advice: {adv_s}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
