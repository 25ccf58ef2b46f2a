"""Will it serve? One verdict per engine version and runner, computed the way each engine's own code does.

The id lookup, the capture hook, the forward loop's reach and the fc sizing of SGLang 0.5.23, SGLang 0.5.1,
vLLM 0.34.0 (Model Runner V2 only: V1 was removed) and vLLM 0.33.0 (V2, its default, and V1 under
``VLLM_USE_V2_MODEL_RUNNER=0``) are re-stated here in a few lines each, and every branch names the wheel line it
was read from (``CITES``). tools/engine_oracle.py runs the engines' own functions, pulled out of the wheels with
``ast``, on a case table and records what they do (tests/data/engine_cases.json); the tests hold this module to
that recording case by case, and the tool checks that each cited line still holds the named code.

Boundary ``b`` is the hidden state entering decoder layer ``b`` (0 = the embedding output, N = after the last
layer). Nothing here imports torch or an engine: inputs are the draft's raw config and three target numbers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

# "unknown": the engine's code path starts with this config, but the draft was trained for another target than the
# one given (``for_other_target``), so whether it serves there, and on which blocks, is not known
Status = Literal["ok", "fails", "unsupported", "unknown"]


@dataclass(frozen=True)
class Cite:
    """One line of a released wheel, and text that must be on it (tools/engine_oracle.py checks)."""

    package: str
    version: str
    path: str
    line: int
    needle: str

    def __str__(self) -> str:
        return f"{self.package} {self.version} {self.path}:{self.line}"


CITES: dict[str, Cite] = {
    "vl.v2_default": Cite("vllm", "0.33.0", "vllm/config/vllm.py", 731, "def use_v2_model_runner(self) -> bool:"),
    "vl.v2_env": Cite(
        "vllm", "0.33.0", "vllm/config/vllm.py", 748, "use_v2_model_runner = envs.VLLM_USE_V2_MODEL_RUNNER"
    ),
    "vl.v2_true": Cite("vllm", "0.33.0", "vllm/config/vllm.py", 767, "return True"),
    "vl.v2_notriton": Cite(
        "vllm", "0.33.0", "vllm/config/vllm.py", 752, "if not HAS_TRITON and not current_platform.is_unspecified():"
    ),
    "vl.v2_unsupported": Cite(
        "vllm", "0.33.0", "vllm/config/vllm.py", 758, "unsupported = self._get_v2_model_runner_unsupported_features()"
    ),
    "vl.env": Cite("vllm", "0.33.0", "vllm/envs.py", 2150, 'os.getenv("VLLM_USE_V2_MODEL_RUNNER", None)'),
    "vl.v2_call": Cite(
        "vllm", "0.33.0", "vllm/v1/worker/gpu/model_runner.py", 414, "set_eagle3_aux_hidden_state_layers("
    ),
    "vl.v2_nosupport": Cite(
        "vllm",
        "0.33.0",
        "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        29,
        'raise RuntimeError("Model does not support EAGLE3 interface")',
    ),
    "vl.v2_lookup": Cite(
        "vllm",
        "0.33.0",
        "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        113,
        "def get_eagle3_aux_layers_from_config(",
    ),
    "vl.v2_top": Cite(
        "vllm",
        "0.33.0",
        "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        119,
        'layer_ids = getattr(hf_config, "eagle_aux_hidden_state_layer_ids", None)',
    ),
    "vl.v2_layer_ids": Cite(
        "vllm",
        "0.33.0",
        "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        145,
        'layer_ids = drafter_config.get("layer_ids")',
    ),
    "vl.v2_default_call": Cite(
        "vllm",
        "0.33.0",
        "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
        38,
        "aux_layers = eagle3_model.get_eagle3_default_aux_hidden_state_layers()",
    ),
    "vl.v1_nosupport": Cite(
        "vllm", "0.33.0", "vllm/v1/worker/gpu_model_runner.py", 5173, "if not supports_eagle3(self.get_model()):"
    ),
    "vl.v1_lookup": Cite(
        "vllm",
        "0.33.0",
        "vllm/v1/worker/gpu_model_runner.py",
        5190,
        "def _get_eagle3_aux_layers_from_config(self) -> tuple[int, ...] | None:",
    ),
    "vl.v1_top": Cite(
        "vllm",
        "0.33.0",
        "vllm/v1/worker/gpu_model_runner.py",
        5207,
        'layer_ids = getattr(hf_config, "eagle_aux_hidden_state_layer_ids", None)',
    ),
    "vl.v1_eagle_config": Cite(
        "vllm",
        "0.33.0",
        "vllm/v1/worker/gpu_model_runner.py",
        5219,
        'layer_ids = eagle_config.get("eagle_aux_hidden_state_layer_ids")',
    ),
    "vl.v1_default_call": Cite(
        "vllm",
        "0.33.0",
        "vllm/v1/worker/gpu_model_runner.py",
        5186,
        "aux_layers = self.model.get_eagle3_default_aux_hidden_state_layers()",
    ),
    "vl.mixin_sort": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/interfaces.py",
        1617,
        "self.aux_hidden_state_layers = tuple(sorted(set(layers)))",
    ),
    "vl.mixin_guard": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/interfaces.py",
        1648,
        "value = hidden_states + residual if residual is not None else hidden_states",
    ),
    "vl.default": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/interfaces.py",
        1772,
        "return (2, num_layers // 2, num_layers - 3)",
    ),
    "vl.eagleconfig_wrap": Cite("vllm", "0.33.0", "vllm/config/speculative.py", 1526, "eagle_config = EAGLEConfig("),
    "vl.eagleconfig_copy": Cite(
        "vllm", "0.33.0", "vllm/transformers_utils/configs/eagle.py", 86, "for k, v in self.model.to_dict().items():"
    ),
    "vl.spec_model_type": Cite("vllm", "0.33.0", "vllm/transformers_utils/config.py", 364, '"speculators"'),
    "vl.algos_arch": Cite(
        "vllm",
        "0.33.0",
        "vllm/transformers_utils/configs/speculators/algos.py",
        45,
        'raise ValueError(f"Unsupported model_type {model_type} for Eagle3 speculator")',
    ),
    "vl.algos_ids": Cite(
        "vllm",
        "0.33.0",
        "vllm/transformers_utils/configs/speculators/algos.py",
        48,
        'pre_trained_config["eagle_aux_hidden_state_layer_ids"] = config_dict[',
    ),
    "vl.fc_llama": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/llama_eagle3.py",
        215,
        'layer_ids = eagle_config.get("eagle_aux_hidden_state_layer_ids")',
    ),
    "vl.fc_llama_n": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/llama_eagle3.py",
        221,
        "self.fc_input_size = target_hidden_size * self.num_aux_hidden_states",
    ),
    "vl.fc_qwen3": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/qwen3_eagle3.py",
        207,
        'self.config, "eagle_aux_hidden_state_layer_ids", None',
    ),
    "vl.fc_qwen3_n": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/qwen3_eagle3.py",
        214,
        "self.fc_input_size = target_hidden_size * num_aux_features",
    ),
    "vl.fc_load": Cite(
        "vllm", "0.33.0", "vllm/model_executor/layers/linear.py", 408, "assert param.size() == loaded_weight.size(), ("
    ),
    "vl.llama_b0": Cite("vllm", "0.33.0", "vllm/model_executor/models/llama.py", 429, "self._maybe_add_hidden_state("),
    "vl.llama_bi": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/llama.py",
        440,
        "aux_hidden_states, idx + 1, hidden_states, residual",
    ),
    "vl.qwen2_bi": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/qwen2.py",
        433,
        "aux_hidden_states, idx + 1, hidden_states, residual",
    ),
    "vl.qwen3_model": Cite(
        "vllm", "0.33.0", "vllm/model_executor/models/qwen3.py", 269, "class Qwen3Model(Qwen2Model):"
    ),
    "vl.qwen3moe_bi": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/qwen3_moe.py",
        514,
        "aux_hidden_states, layer_idx + 1, hidden_states, residual",
    ),
    "vl.qwen3next_b0": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/qwen3_next.py",
        721,
        "aux_hidden_states = self._maybe_add_hidden_state([], 0, hidden_states, residual)",
    ),
    "vl.gptoss_bi": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/gpt_oss.py",
        532,
        "self._maybe_add_hidden_state(aux_hidden_states, i + 1, x, residual)",
    ),
    "vl.minimax_b0": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/minimax_m2.py",
        403,
        "aux_hidden_states = self._maybe_add_hidden_state([], 0, hidden_states, residual)",
    ),
    "vl.llama4_cls": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/llama4.py",
        708,
        "class Llama4ForCausalLM(LlamaForCausalLM, MixtureOfExperts):",
    ),
    "vl.mllama4_set": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/mllama4.py",
        806,
        "self.language_model.set_aux_hidden_state_layers(layers)",
    ),
    "vl.phi3_cls": Cite(
        "vllm", "0.33.0", "vllm/model_executor/models/phi3.py", 10, "class Phi3ForCausalLM(LlamaForCausalLM):"
    ),
    "vl.ds_set": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/deepseek_v2.py",
        1956,
        "self.model.aux_hidden_state_layers = layers",
    ),
    "vl.ds_res_none": Cite("vllm", "0.33.0", "vllm/model_executor/models/deepseek_v2.py", 1525, "residual = None"),
    "vl.ds_bi": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/deepseek_v2.py",
        1562,
        "aux_hidden_state = hidden_states + residual",
    ),
    "vl.ds_bN": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/deepseek_v2.py",
        1586,
        "if self.end_layer in self.aux_hidden_state_layers:",
    ),
    "vl.ds_v3": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/deepseek_v2.py",
        2005,
        "class DeepseekV3ForCausalLM(DeepseekV2ForCausalLM):",
    ),
    "vl.kimi_set": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/kimi_k25.py",
        471,
        "self.language_model.set_aux_hidden_state_layers(layers)",
    ),
    "vl.dsa_route": Cite(
        "vllm",
        "0.33.0",
        "vllm/models/deepseek_v32/__init__.py",
        21,
        "from .nvidia.model import DeepseekV32ForCausalLM as GlmMoeDsaForCausalLM",
    ),
    "vl.dsa_bi": Cite(
        "vllm",
        "0.33.0",
        "vllm/models/deepseek_v32/nvidia/model.py",
        291,
        "hidden_states if residual is None else hidden_states + residual",
    ),
    "vl.registry_dsa": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/registry.py",
        126,
        '"GlmMoeDsaForCausalLM": ("vllm.models.deepseek_v32", "GlmMoeDsaForCausalLM"),',
    ),
    "vl.mixtral_cls": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/mixtral.py",
        375,
        "class MixtralForCausalLM(nn.Module, SupportsLoRA, SupportsPP, MixtureOfExperts):",
    ),
    "vl.glm4moe_cls": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/glm4_moe.py",
        534,
        "class Glm4MoeForCausalLM(nn.Module, SupportsPP, SupportsLoRA, Glm4MixtureOfExperts):",
    ),
    "vl.gemma3_cls": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/gemma3.py",
        367,
        "class Gemma3ForCausalLM(nn.Module, SupportsLoRA, SupportsPP):",
    ),
    "vl.qwen2moe_cls": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/qwen2_moe.py",
        423,
        "class Qwen2MoeForCausalLM(nn.Module, SupportsPP, SupportsLoRA):",
    ),
    "vl.bailing_cls": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/bailing_moe.py",
        486,
        "class BailingMoeForCausalLM(nn.Module, SupportsPP, SupportsLoRA):",
    ),
    "vl.bailingv2_cls": Cite(
        "vllm",
        "0.33.0",
        "vllm/model_executor/models/bailing_moe.py",
        568,
        "class BailingMoeV2ForCausalLM(BailingMoeForCausalLM):",
    ),
    "sg23.lookup": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/model_executor/model_runner_components/spec_aux_hidden_state.py",
        192,
        "config.eagle_aux_hidden_state_layer_ids = eagle_config[",
    ),
    "sg23.lookup_none": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/model_executor/model_runner_components/spec_aux_hidden_state.py",
        196,
        "config.eagle_aux_hidden_state_layer_ids = None",
    ),
    "sg23.nohook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/model_executor/model_runner_components/attention_backend_setup.py",
        55,
        'if not hasattr(model, "set_eagle3_layers_to_capture"):',
    ),
    "sg23.registry": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/registry.py",
        64,
        'f"Model architectures {architectures} are not supported for now. "',
    ),
    "sg23.fc_count": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/llama_eagle3.py",
        160,
        'layer_ids = eagle_config.get("eagle_aux_hidden_state_layer_ids")',
    ),
    "sg23.fc": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/llama_eagle3.py",
        164,
        "self.hidden_size_in * self.num_aux_hidden_states,",
    ),
    "sg23.fc_load": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/model_loader/weight_utils.py",
        1582,
        "assert param.size() == loaded_weight.size(), (",
    ),
    "sg23.stage_b0": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/layers/layer_boundary/stage.py",
        422,
        "(stream.residual is None and stream.pending is None)",
    ),
    "sg23.llama_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/llama.py",
        941,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.llama_default": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/llama.py",
        936,
        "self.model.layers_to_capture = [2, num_layers // 2, num_layers - 3]",
    ),
    "sg23.llama_loop": Cite(
        "sglang", "0.5.23", "sglang/srt/models/llama.py", 486, "for i in range(self.start_layer, self.end_layer):"
    ),
    "sg23.llama_cap": Cite("sglang", "0.5.23", "sglang/srt/models/llama.py", 492, "if i in self.layers_to_capture"),
    "sg23.phi3": Cite(
        "sglang", "0.5.23", "sglang/srt/models/llama.py", 956, "class Phi3ForCausalLM(LlamaForCausalLM):"
    ),
    "sg23.mistral": Cite(
        "sglang", "0.5.23", "sglang/srt/models/mistral.py", 33, "class MistralForCausalLM(LlamaForCausalLM):"
    ),
    "sg23.qwen2_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/qwen2.py",
        794,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.qwen2_cap": Cite("sglang", "0.5.23", "sglang/srt/models/qwen2.py", 462, "if i in self.layers_to_capture"),
    "sg23.qwen3_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/qwen3.py",
        791,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.qwen3_cap": Cite("sglang", "0.5.23", "sglang/srt/models/qwen3.py", 530, "if i in self.layers_to_capture"),
    "sg23.qwen2moe_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/qwen2_moe.py",
        1433,
        "self.model.set_eagle3_layers_to_capture([val + 1 for val in layer_ids])",
    ),
    "sg23.qwen2moe_index": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/qwen2_moe.py",
        1156,
        'setattr(self.layers[layer_id], "_is_layer_to_capture", True)',
    ),
    "sg23.qwen2moe_cap": Cite(
        "sglang", "0.5.23", "sglang/srt/models/qwen2_moe.py", 1201, 'if getattr(layer, "_is_layer_to_capture", False)'
    ),
    "sg23.qwen3moe_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/qwen3_moe.py",
        1143,
        "self.model.set_eagle3_layers_to_capture([val + 1 for val in layer_ids])",
    ),
    "sg23.qwen3moe_model": Cite(
        "sglang", "0.5.23", "sglang/srt/models/qwen3_moe.py", 970, "class Qwen3MoeModel(Qwen2MoeModel):"
    ),
    "sg23.qwen3next_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/qwen3_next.py",
        1301,
        "self.model.set_eagle3_layers_to_capture([val + 1 for val in layer_ids])",
    ),
    "sg23.qwen3next_index": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/qwen3_next.py",
        957,
        'setattr(self.layers[layer_id], "_is_layer_to_capture", True)',
    ),
    "sg23.ds_hook": Cite(
        "sglang", "0.5.23", "sglang/srt/models/deepseek_v2.py", 3470, "if layer_ids and layer_ids[0] == 1:"
    ),
    "sg23.ds_packer": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/deepseek_v2.py",
        3175,
        "aux_hidden_states = AuxHiddenStatePacker(len(self.layers_to_capture))",
    ),
    "sg23.ds_cap": Cite(
        "sglang", "0.5.23", "sglang/srt/models/deepseek_v2.py", 3194, "if i in self.layers_to_capture"
    ),
    "sg23.ds_finalize": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/deepseek_v2.py",
        3245,
        "return hidden_states, aux_hidden_states.finalize()",
    ),
    "sg23.packer_raise": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/layers/aux_hidden_states.py",
        88,
        'f"captured {self._idx} of {self._num_captures} aux hidden states"',
    ),
    "sg23.kimi": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/kimi_k25.py",
        939,
        "self.language_model.set_eagle3_layers_to_capture(layer_ids)",
    ),
    "sg23.glm5": Cite(
        "sglang", "0.5.23", "sglang/srt/models/glm4_moe.py", 1284, "class GlmMoeDsaForCausalLM(DeepseekV2ForCausalLM):"
    ),
    "sg23.gptoss_hook": Cite(
        "sglang", "0.5.23", "sglang/srt/models/gpt_oss.py", 1349, "if layer_ids and max(layer_ids) == num_layers:"
    ),
    "sg23.gptoss_cap": Cite("sglang", "0.5.23", "sglang/srt/models/gpt_oss.py", 719, "if i in self.layers_to_capture"),
    "sg23.gptoss_bN": Cite(
        "sglang", "0.5.23", "sglang/srt/models/gpt_oss.py", 732, "if self.end_layer in self.layers_to_capture"
    ),
    "sg23.glm4moe_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/glm4_moe.py",
        1281,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.glm4moe_cap": Cite(
        "sglang", "0.5.23", "sglang/srt/models/glm4_moe.py", 957, "if i in self.layers_to_capture"
    ),
    "sg23.gemma3_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/gemma3_causal.py",
        926,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.gemma3_cap": Cite(
        "sglang", "0.5.23", "sglang/srt/models/gemma3_causal.py", 657, "aux_hidden_states.append(hidden_states)"
    ),
    "sg23.gemma3_bN": Cite(
        "sglang", "0.5.23", "sglang/srt/models/gemma3_causal.py", 671, "if num_layers in self.layers_to_capture:"
    ),
    "sg23.gemma3_unsummed": Cite(
        "sglang", "0.5.23", "sglang/srt/models/gemma3_causal.py", 410, "outputs = (hidden_states, residual)"
    ),
    "sg23.gemma3mm": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/gemma3_mm.py",
        545,
        "self.language_model.set_eagle3_layers_to_capture(layer_ids)",
    ),
    "sg23.llama4_cap": Cite("sglang", "0.5.23", "sglang/srt/models/llama4.py", 530, "if i in self.layers_to_capture"),
    "sg23.llama4_cls": Cite(
        "sglang", "0.5.23", "sglang/srt/models/llama4.py", 546, "class Llama4ForCausalLM(LlamaForCausalLM):"
    ),
    "sg23.mllama4": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/mllama4.py",
        973,
        "self.language_model.set_eagle3_layers_to_capture(layer_ids)",
    ),
    "sg23.minimax_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/minimax_m2.py",
        1080,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.minimax_cap": Cite(
        "sglang", "0.5.23", "sglang/srt/models/minimax_m2.py", 1003, "if i in self.layers_to_capture"
    ),
    "sg23.bailing_hook": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/bailing_moe.py",
        1109,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg23.bailing_cap": Cite(
        "sglang", "0.5.23", "sglang/srt/models/bailing_moe.py", 840, "if i in self.layers_to_capture"
    ),
    "sg23.bailing_cls": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/bailing_moe.py",
        1112,
        "class BailingMoeForCausalLM(BailingMoEForCausalLM):",
    ),
    "sg23.bailingv2_cls": Cite(
        "sglang",
        "0.5.23",
        "sglang/srt/models/bailing_moe.py",
        1116,
        "class BailingMoeV2ForCausalLM(BailingMoEForCausalLM):",
    ),
    "sg51.lookup": Cite(
        "sglang",
        "0.5.1",
        "sglang/srt/model_executor/model_runner.py",
        373,
        "eagle_aux_hidden_state_layer_ids = eagle_config[",
    ),
    "sg51.nohook": Cite(
        "sglang",
        "0.5.1",
        "sglang/srt/model_executor/model_runner.py",
        380,
        "self.model.set_eagle3_layers_to_capture(eagle_aux_hidden_state_layer_ids)",
    ),
    "sg51.registry": Cite(
        "sglang",
        "0.5.1",
        "sglang/srt/models/registry.py",
        33,
        'f"Model architectures {architectures} are not supported for now. "',
    ),
    "sg51.fc": Cite("sglang", "0.5.1", "sglang/srt/models/llama_eagle3.py", 125, "self.hidden_size_in * 3,"),
    "sg51.llama_hook": Cite(
        "sglang",
        "0.5.1",
        "sglang/srt/models/llama.py",
        738,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg51.llama_cap": Cite(
        "sglang", "0.5.1", "sglang/srt/models/llama.py", 340, "aux_hidden_states.append(hidden_states + residual)"
    ),
    "sg51.llama_res_none": Cite("sglang", "0.5.1", "sglang/srt/models/llama.py", 329, "residual = None"),
    "sg51.qwen3_hook": Cite(
        "sglang",
        "0.5.1",
        "sglang/srt/models/qwen3.py",
        514,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg51.qwen2_cap": Cite(
        "sglang",
        "0.5.1",
        "sglang/srt/models/qwen2.py",
        337,
        "hidden_states + residual if residual is not None else hidden_states",
    ),
    "sg51.qwen3moe_hook": Cite(
        "sglang",
        "0.5.1",
        "sglang/srt/models/qwen3_moe.py",
        740,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg51.qwen2moe_cap": Cite("sglang", "0.5.1", "sglang/srt/models/qwen2_moe.py", 486, "hidden_states + residual"),
    "sg51.gptoss_hook": Cite(
        "sglang",
        "0.5.1",
        "sglang/srt/models/gpt_oss.py",
        1147,
        "self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    "sg51.gptoss_cap": Cite(
        "sglang", "0.5.1", "sglang/srt/models/gpt_oss.py", 570, "aux_hidden_states.append(hidden_states + residual)"
    ),
    "sg51.llama4_cap": Cite(
        "sglang", "0.5.1", "sglang/srt/models/llama4.py", 509, "aux_hidden_states.append(hidden_states + residual)"
    ),
    "sg51.mllama4": Cite(
        "sglang",
        "0.5.1",
        "sglang/srt/models/mllama4.py",
        937,
        "self.language_model.set_eagle3_layers_to_capture(layer_ids)",
    ),
    "sf.resolve": Cite(
        "specforge",
        "0.2.0",
        "specforge/algorithms/model_providers.py",
        204,
        "layers = [1, num_layers // 2 - 1, num_layers - 4]",
    ),
    "sf.refuse": Cite(
        "specforge",
        "0.2.0",
        "specforge/algorithms/model_providers.py",
        206,
        "if len(layers) != 3 or any(not isinstance(i, int) or i < 0 for i in layers):",
    ),
    "sf.offline": Cite(
        "specforge", "0.2.0", "specforge/application/composition.py", 111, "if isinstance(target_layers, int) and any("
    ),
    "sf.fc": Cite(
        "specforge", "0.2.0", "specforge/modeling/draft/llama3_eagle.py", 1675, "self.target_hidden_size * 3,"
    ),
    "sf.via_sglang": Cite(
        "specforge",
        "0.2.0",
        "specforge/offline_capture/sglang_backend/capture.py",
        87,
        "self.model_runner.model.set_eagle3_layers_to_capture(layer_ids)",
    ),
    "sp.resolve": Cite(
        "speculators",
        "0.9.0",
        "speculators/models/utils.py",
        111,
        "target_layer_ids = [2, num_layers // 2, num_layers - 3]",
    ),
    "sp.refuse": Cite(
        "speculators",
        "0.9.0",
        "speculators/models/utils.py",
        121,
        "or len(set(target_layer_ids)) != len(target_layer_ids)",
    ),
    "sp.fc": Cite(
        "speculators", "0.9.0", "speculators/models/eagle3/core.py", 72, "len(config.eagle_aux_hidden_state_layer_ids)"
    ),
    "sp.default_layer_cfg": Cite(
        "speculators", "0.9.0", "speculators/models/eagle3/config.py", 34, "default_factory=Qwen3Config,"
    ),
}

# vLLM 0.34.0 runs the same V2 lookup, default, setters, forward loops and fc sizing as 0.33.0 (the wheels' code
# differs only in the lines below moving): "vl34.x" is "vl.x" on its 0.34.0 line. What changed is the runner:
# Model Runner V1 and P-EAGLE are gone.
_VL34_LINES: dict[str, int] = {
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
CITES.update(
    {
        "vl34." + key[3:]: Cite("vllm", "0.34.0", CITES[key].path, line, CITES[key].needle)
        for key, line in _VL34_LINES.items()
    }
)
CITES.update(
    {
        "vl34.runner": Cite(
            "vllm",
            "0.34.0",
            "vllm/v1/worker/gpu_worker.py",
            587,
            "return GPUModelRunner(self.vllm_config, self.device)",
        ),
        "vl34.v1_removed": Cite(
            "vllm",
            "0.34.0",
            "vllm/platforms/interface.py",
            1484,
            'f"VLLM_USE_V2_MODEL_RUNNER={value} is no longer supported: "',
        ),
        "vl34.eagleconfig_wrap": Cite(
            "vllm",
            "0.34.0",
            "vllm/v1/worker/gpu/spec_decode/eagle/config.py",
            17,
            'draft.hf_config = EAGLEConfig(draft.hf_config, method=method, model_type="eagle")',
        ),
        "vl34.peagle_removed": Cite(
            "vllm",
            "0.34.0",
            "vllm/transformers_utils/configs/speculators/algos.py",
            55,
            'raise ValueError("P-EAGLE (parallel drafting EAGLE-3) is not supported.")',
        ),
    }
)


def cite(key: str) -> str:
    return str(CITES[key])


# The rows every verdict list has, in this order: (engine, version, runner).
ENGINE_ROWS: tuple[tuple[str, str, str | None], ...] = (
    ("SGLang", "0.5.23", None),
    ("SGLang", "0.5.1", None),
    ("vLLM", "0.34.0", "v2"),
    ("vLLM", "0.33.0", "v2"),
    ("vLLM", "0.33.0", "v1"),
)
# vLLM version -> the prefix of its CITES keys. 0.34.0 has no V1 runner: VLLM_USE_V2_MODEL_RUNNER=0 raises.
VLLM_CITES: dict[str, str] = {"0.34.0": "vl34", "0.33.0": "vl"}
VLLM_ONLY_V2: frozenset[str] = frozenset({"0.34.0"})
RUNNER_NOTE: dict[str | None, str] = {
    None: "",
    "v2": "Model Runner V2: vLLM 0.33.0's default, vLLM 0.34.0's only runner",
    "v1": "Model Runner V1 (vLLM 0.33.0), only with VLLM_USE_V2_MODEL_RUNNER=0 (or a feature V2 lacks, e.g. "
    "P-EAGLE); vLLM 0.34.0 removed it and refuses that setting",
}


def row_label(engine: str, version: str, runner: str | None) -> str:
    """'vLLM 0.33.0 (v2, default)', 'vLLM 0.34.0 (v2, only runner)', 'SGLang 0.5.23'."""
    if runner is None:
        return f"{engine} {version}"
    if runner == "v2":
        return f"{engine} {version} (v2, {'only runner' if version in VLLM_ONLY_V2 else 'default'})"
    return f"{engine} {version} ({runner}, VLLM_USE_V2_MODEL_RUNNER=0)"


def _vk(version: str, key: str) -> str:
    """The CITES key of vLLM ``version`` for a 'vl.x' key."""
    return VLLM_CITES[version] + key[2:]


# ---- SGLang ---------------------------------------------------------------------------------------------------
# hook rule: how set_eagle3_layers_to_capture turns configured ids into layers_to_capture
PLUS1 = "plus1"  # [v + 1 for v in ids]
PLUS1_IF_FIRST_1 = "plus1_if_first_1"  # +1 only when ids[0] == 1, else as given (DeepSeek path)
AS_GIVEN_IF_MAX_N = "as_given_if_max_N"  # as given when max(ids) == N, else +1 (gpt-oss, 0.5.23)


@dataclass(frozen=True)
class SgTarget:
    """One SGLang target class: its hook rule and how its forward loop captures."""

    kind: str  # "list" (i in layers_to_capture) | "flag" (self.layers[id] marked) | "packer" | "none" (no hook)
    rule: str = PLUS1
    end: bool = False  # also captures boundary N (after the last layer)
    guarded: bool = True  # boundary 0 is safe (False: adds residual=None)
    registered: bool = True
    cites: tuple[str, ...] = ()


SG23: dict[str, SgTarget] = {
    "LlamaForCausalLM": SgTarget(
        "list", cites=("sg23.llama_hook", "sg23.llama_loop", "sg23.llama_cap", "sg23.stage_b0")
    ),
    "MistralForCausalLM": SgTarget("list", cites=("sg23.mistral", "sg23.llama_hook", "sg23.llama_cap")),
    "Phi3ForCausalLM": SgTarget("list", cites=("sg23.phi3", "sg23.llama_hook", "sg23.llama_cap")),
    "Qwen2ForCausalLM": SgTarget("list", cites=("sg23.qwen2_hook", "sg23.qwen2_cap")),
    "Qwen3ForCausalLM": SgTarget("list", cites=("sg23.qwen3_hook", "sg23.qwen3_cap")),
    "Qwen2MoeForCausalLM": SgTarget("flag", cites=("sg23.qwen2moe_hook", "sg23.qwen2moe_index", "sg23.qwen2moe_cap")),
    "Qwen3MoeForCausalLM": SgTarget(
        "flag", cites=("sg23.qwen3moe_hook", "sg23.qwen3moe_model", "sg23.qwen2moe_index", "sg23.qwen2moe_cap")
    ),
    "Qwen3NextForCausalLM": SgTarget("flag", cites=("sg23.qwen3next_hook", "sg23.qwen3next_index")),
    "DeepseekV3ForCausalLM": SgTarget(
        "packer",
        PLUS1_IF_FIRST_1,
        cites=("sg23.ds_hook", "sg23.ds_packer", "sg23.ds_cap", "sg23.ds_finalize", "sg23.packer_raise"),
    ),
    "KimiK25ForConditionalGeneration": SgTarget(
        "packer",
        PLUS1_IF_FIRST_1,
        cites=("sg23.kimi", "sg23.ds_hook", "sg23.ds_packer", "sg23.ds_cap", "sg23.packer_raise"),
    ),
    "GlmMoeDsaForCausalLM": SgTarget(
        "packer", PLUS1_IF_FIRST_1, cites=("sg23.glm5", "sg23.ds_hook", "sg23.ds_packer", "sg23.packer_raise")
    ),
    "GptOssForCausalLM": SgTarget(
        "list", AS_GIVEN_IF_MAX_N, end=True, cites=("sg23.gptoss_hook", "sg23.gptoss_cap", "sg23.gptoss_bN")
    ),
    "Glm4MoeForCausalLM": SgTarget("list", cites=("sg23.glm4moe_hook", "sg23.glm4moe_cap")),
    "Gemma3ForConditionalGeneration": SgTarget(
        "list",
        end=True,
        cites=("sg23.gemma3mm", "sg23.gemma3_hook", "sg23.gemma3_cap", "sg23.gemma3_bN", "sg23.gemma3_unsummed"),
    ),
    "Llama4ForConditionalGeneration": SgTarget(
        "list", cites=("sg23.mllama4", "sg23.llama4_cls", "sg23.llama_hook", "sg23.llama4_cap")
    ),
    "MiniMaxM2ForCausalLM": SgTarget("list", cites=("sg23.minimax_hook", "sg23.minimax_cap")),
    "MixtralForCausalLM": SgTarget("none", cites=("sg23.nohook",)),
    # Ling / Ring: both classes are BailingMoEForCausalLM, whose hook adds 1 and whose loop captures the state
    # entering layer i through the layer boundary (boundary 0 guarded), never the one after the last layer
    "BailingMoeV2ForCausalLM": SgTarget(
        "list", cites=("sg23.bailingv2_cls", "sg23.bailing_hook", "sg23.bailing_cap", "sg23.stage_b0")
    ),
    "BailingMoeForCausalLM": SgTarget(
        "list", cites=("sg23.bailing_cls", "sg23.bailing_hook", "sg23.bailing_cap", "sg23.stage_b0")
    ),
}

SG51: dict[str, SgTarget] = {
    "LlamaForCausalLM": SgTarget(
        "list", guarded=False, cites=("sg51.llama_hook", "sg51.llama_res_none", "sg51.llama_cap")
    ),
    "MistralForCausalLM": SgTarget("list", guarded=False, cites=("sg51.llama_hook", "sg51.llama_cap")),
    "Phi3ForCausalLM": SgTarget("list", guarded=False, cites=("sg51.llama_hook", "sg51.llama_cap")),
    "Qwen3ForCausalLM": SgTarget("list", cites=("sg51.qwen3_hook", "sg51.qwen2_cap")),
    "Qwen3MoeForCausalLM": SgTarget("list", cites=("sg51.qwen3moe_hook", "sg51.qwen2moe_cap")),
    "GptOssForCausalLM": SgTarget("list", guarded=False, cites=("sg51.gptoss_hook", "sg51.gptoss_cap")),
    "Llama4ForConditionalGeneration": SgTarget(
        "list", guarded=False, cites=("sg51.mllama4", "sg51.llama_hook", "sg51.llama4_cap")
    ),
    "Qwen2ForCausalLM": SgTarget("none", cites=("sg51.nohook",)),
    "Qwen2MoeForCausalLM": SgTarget("none", cites=("sg51.nohook",)),
    "DeepseekV3ForCausalLM": SgTarget("none", cites=("sg51.nohook",)),
    "Glm4MoeForCausalLM": SgTarget("none", cites=("sg51.nohook",)),
    "Gemma3ForConditionalGeneration": SgTarget("none", cites=("sg51.nohook",)),
    "MixtralForCausalLM": SgTarget("none", cites=("sg51.nohook",)),
    "KimiK25ForConditionalGeneration": SgTarget("none", registered=False, cites=("sg51.registry",)),
    "GlmMoeDsaForCausalLM": SgTarget("none", registered=False, cites=("sg51.registry",)),
    "Qwen3NextForCausalLM": SgTarget("none", registered=False, cites=("sg51.registry",)),
    "MiniMaxM2ForCausalLM": SgTarget("none", registered=False, cites=("sg51.registry",)),
    "BailingMoeV2ForCausalLM": SgTarget("none", registered=False, cites=("sg51.registry",)),
    "BailingMoeForCausalLM": SgTarget("none", cites=("sg51.nohook",)),  # registered (v1 only), no hook
}

# ---- vLLM 0.33.0 and 0.34.0 (same classes and loops): arch -> (SupportsEagle3, capture kind, cites) ------------
# kind: "mixin" (EagleModelMixin: sorted set, boundaries 0..N, guarded), "deepseek" (as given, 1..N, boundary 0
# adds residual=None), "dsa-cuda" (GLM-5 / DeepSeek-V3.2 on CUDA: 0..N-1, guarded)
VLLM: dict[str, tuple[bool, str, tuple[str, ...]]] = {
    "LlamaForCausalLM": (True, "mixin", ("vl.mixin_sort", "vl.llama_b0", "vl.llama_bi", "vl.mixin_guard")),
    "MistralForCausalLM": (True, "mixin", ("vl.llama_bi",)),
    "Phi3ForCausalLM": (True, "mixin", ("vl.phi3_cls", "vl.llama_bi")),
    "Qwen2ForCausalLM": (True, "mixin", ("vl.qwen2_bi", "vl.mixin_sort")),
    "Qwen3ForCausalLM": (True, "mixin", ("vl.qwen3_model", "vl.qwen2_bi", "vl.mixin_sort")),
    "Qwen3MoeForCausalLM": (True, "mixin", ("vl.qwen3moe_bi", "vl.mixin_sort")),
    "Qwen3NextForCausalLM": (True, "mixin", ("vl.qwen3next_b0", "vl.mixin_sort")),
    "GptOssForCausalLM": (True, "mixin", ("vl.gptoss_bi", "vl.mixin_sort")),
    "MiniMaxM2ForCausalLM": (True, "mixin", ("vl.minimax_b0", "vl.mixin_sort")),
    "Llama4ForConditionalGeneration": (True, "mixin", ("vl.mllama4_set", "vl.llama4_cls", "vl.llama_bi")),
    "DeepseekV3ForCausalLM": (True, "deepseek", ("vl.ds_v3", "vl.ds_set", "vl.ds_res_none", "vl.ds_bi", "vl.ds_bN")),
    "KimiK25ForConditionalGeneration": (True, "deepseek", ("vl.kimi_set", "vl.ds_set", "vl.ds_bi", "vl.ds_bN")),
    "GlmMoeDsaForCausalLM": (True, "dsa-cuda", ("vl.registry_dsa", "vl.dsa_route", "vl.dsa_bi", "vl.ds_set")),
    "MixtralForCausalLM": (False, "", ("vl.mixtral_cls",)),
    "Glm4MoeForCausalLM": (False, "", ("vl.glm4moe_cls",)),
    "Gemma3ForConditionalGeneration": (False, "", ("vl.gemma3_cls",)),
    "Qwen2MoeForCausalLM": (False, "", ("vl.qwen2moe_cls",)),
    "BailingMoeV2ForCausalLM": (False, "", ("vl.bailingv2_cls", "vl.bailing_cls")),
    "BailingMoeForCausalLM": (False, "", ("vl.bailing_cls",)),
}

# Target classes the tables above know, and the names that share a class's rules.
TARGET_CLASSES: tuple[str, ...] = tuple(SG23)
_ALIASES: dict[str, str] = {
    "DeepseekV2ForCausalLM": "DeepseekV3ForCausalLM",  # same hook and loop in both engines
    "Gemma3ForCausalLM": "Gemma3ForConditionalGeneration",  # the text model the multimodal class delegates to
    "Llama4ForCausalLM": "Llama4ForConditionalGeneration",
    "Glm4MoeLiteForCausalLM": "",  # not modelled (SGLang uses the DeepSeek first-id rule); unknown, not guessed
}
# model_type / our dialect -> class
_MODEL_TYPES: dict[str, str] = {
    "llama": "LlamaForCausalLM",
    "mistral": "MistralForCausalLM",
    "phi3": "Phi3ForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "qwen3": "Qwen3ForCausalLM",
    "qwen2_moe": "Qwen2MoeForCausalLM",
    "qwen3_moe": "Qwen3MoeForCausalLM",
    "qwen3-moe": "Qwen3MoeForCausalLM",
    "qwen3_next": "Qwen3NextForCausalLM",
    "deepseek_v2": "DeepseekV3ForCausalLM",
    "deepseek_v3": "DeepseekV3ForCausalLM",
    "deepseek-v3": "DeepseekV3ForCausalLM",
    "kimi_k2": "DeepseekV3ForCausalLM",
    "kimi_k25": "KimiK25ForConditionalGeneration",
    "glm_moe_dsa": "GlmMoeDsaForCausalLM",
    "glm4_moe": "Glm4MoeForCausalLM",
    "gemma3": "Gemma3ForConditionalGeneration",
    "gemma3_text": "Gemma3ForConditionalGeneration",
    "llama4": "Llama4ForConditionalGeneration",
    "minimax_m2": "MiniMaxM2ForCausalLM",
    "mixtral": "MixtralForCausalLM",
    "gpt_oss": "GptOssForCausalLM",
    "gpt-oss": "GptOssForCausalLM",
    # "bailing_moe" (and our dialect "bailing-moe") name both Ling classes: only the v2 model_type is one class
    "bailing_moe_v2": "BailingMoeV2ForCausalLM",
}


def target_class(*names: str | None) -> str | None:
    """The engines' target class for the first name that identifies one (an architecture, a model_type or one of
    our dialects); None when none does: then no rules apply, rather than another family's."""
    for name in names:
        if not name:
            continue
        if name in SG23:
            return name
        if name in _ALIASES:
            return _ALIASES[name] or None
        if name in _MODEL_TYPES:
            return _MODEL_TYPES[name]
    return None


_NAME_HINTS: tuple[tuple[str, str], ...] = (  # a hub id's words -> class, first hit wins (most specific first)
    # DeepSeek-R1 distills are their base's class (configs: LlamaForCausalLM for Llama-3.x, Qwen2ForCausalLM for
    # Qwen2.5): "unknown" gave a published R1-Distill-Llama draft no verdict beside yours served on the same target
    (r"distill-llama", "LlamaForCausalLM"),
    (r"distill-qwen", "Qwen2ForCausalLM"),
    (r"kimi-k2\.5|kimi-k25", "KimiK25ForConditionalGeneration"),
    (r"kimi|deepseek-(v3|r1)", "DeepseekV3ForCausalLM"),
    (r"deepseek-v3\.2", "GlmMoeDsaForCausalLM"),
    (r"gpt-oss", "GptOssForCausalLM"),
    (r"qwen3-next", "Qwen3NextForCausalLM"),
    (r"qwen3.*-a\d+(\.\d+)?b", "Qwen3MoeForCausalLM"),
    (r"qwen(1\.5|2)-moe|qwen2-.*-a\d+b", "Qwen2MoeForCausalLM"),
    (r"qwen3", "Qwen3ForCausalLM"),
    (r"qwen2", "Qwen2ForCausalLM"),
    (r"llama-4", "Llama4ForConditionalGeneration"),
    (r"llama", "LlamaForCausalLM"),
    (r"vicuna", "LlamaForCausalLM"),  # lmsys' Vicuna v1.1-v1.5: LLaMA / Llama 2 fine-tunes (their configs' class)
    (r"mixtral", "MixtralForCausalLM"),
    (r"mistral", "MistralForCausalLM"),
    (r"glm-5", "GlmMoeDsaForCausalLM"),
    (r"glm-4\.[56]", "Glm4MoeForCausalLM"),
    (r"gemma-3", "Gemma3ForConditionalGeneration"),
    (r"minimax-m2", "MiniMaxM2ForCausalLM"),
    (r"phi-3", "Phi3ForCausalLM"),
    # Ling / Ring 2.0 (Ling-mini, Ling-flash, Ling-1T; not Ring-flash-linear-2.0, a BailingMoeV2_5 hybrid) and
    # Ling-lite / Ling-plus / Ring-lite (v1)
    (r"(^|/)(ling|ring)-((mini|flash)(-base)?-2\.0|1t)($|[-_/])", "BailingMoeV2ForCausalLM"),
    (r"(^|/)(ling|ring)-(lite|plus)($|[-_/])", "BailingMoeForCausalLM"),
)


def target_class_from_name(hub_id: str | None) -> str | None:
    """The target class a hub id names (\"moonshotai/Kimi-K2.5\" -> KimiK25ForConditionalGeneration); None if
    the name does not say. Used only when no target config is at hand."""
    low = (hub_id or "").lower()
    for pattern, cls in _NAME_HINTS:
        if re.search(pattern, low):
            return cls or None
    return None


def default_ids(n: int) -> list[int]:
    """(2, N//2, N-3): every engine's default (vLLM interfaces.py:1772, SGLang llama.py:936)."""
    return [2, n // 2, n - 3]


def sglang_hook(rule: str, ids: Sequence[int] | None, n: int) -> list[int]:
    """layers_to_capture as the class's set_eagle3_layers_to_capture sets it."""
    if ids is None:
        return default_ids(n)
    ids = list(ids)
    if rule == PLUS1_IF_FIRST_1:
        return [v + 1 for v in ids] if ids and ids[0] == 1 else ids
    if rule == AS_GIVEN_IF_MAX_N:
        return ids if ids and max(ids) == n else [v + 1 for v in ids]
    return [v + 1 for v in ids]


def sglang_capture(t: SgTarget, ltc: Sequence[int], n: int) -> list[int]:
    """Boundaries the target's forward loop appends, in order. IndexError like ``self.layers[id]`` (flag kind)."""
    if t.kind == "flag":
        for b in ltc:
            if not -n <= b < n:
                raise IndexError(f"self.layers[{b}] with {n} layers: list index out of range")
        return sorted({b % n for b in ltc})
    return [b for b in range(n) if b in ltc] + ([n] if t.end and n in ltc else [])


def _ints(value: Any) -> list[int] | None:
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    return None


def sglang_ids(draft: Mapping[str, Any]) -> list[int] | None:
    """eagle_config["eagle_aux_hidden_state_layer_ids"], or None on any miss (both versions' try/except)."""
    ec = draft.get("eagle_config")
    if not isinstance(ec, Mapping):
        return None
    return _ints(ec.get("eagle_aux_hidden_state_layer_ids"))


def _hidden_in(draft: Mapping[str, Any]) -> int:
    v = draft.get("target_hidden_size")
    return int(v) if isinstance(v, int) and v > 0 else int(draft.get("hidden_size") or 0)


def sglang_fc(draft: Mapping[str, Any], version: str) -> tuple[int, int]:
    """(states, fc in-features) SGLang's llama_eagle3 builds: 0.5.1 always 3; 0.5.23 num_aux_hidden_states, else
    the eagle_config id count, else 3."""
    if version == "0.5.1":
        return 3, _hidden_in(draft) * 3
    k = draft.get("num_aux_hidden_states")
    if not isinstance(k, int) or k <= 0:
        ids = sglang_ids(draft)
        k = len(ids) if ids else 3
    return k, _hidden_in(draft) * k


# ---- vLLM -----------------------------------------------------------------------------------------------------
class DraftRejected(ValueError):
    """vLLM refuses the draft config before any capture (speculators algos.py:45)."""


def vllm_hf_config(draft: Mapping[str, Any]) -> dict[str, Any]:
    """The draft config as vLLM holds it: an eagle-format draft keeps every key (eagle.py:86); a speculators
    draft becomes its transformer_layer_config plus update_eagle3's keys (algos.py:15-50)."""
    if draft.get("speculators_model_type") is None:
        return dict(draft)
    pre = dict(draft.get("transformer_layer_config") or {})
    if draft.get("target_hidden_size") is not None:
        pre["target_hidden_size"] = draft["target_hidden_size"]
    model_type = pre.get("model_type", "llama")
    arch = {"qwen3": "Eagle3Qwen3ForCausalLM", "llama": "Eagle3LlamaForCausalLM"}.get(model_type)
    if arch is None:
        raise DraftRejected(f"Unsupported model_type {model_type} for Eagle3 speculator")
    pre["architectures"] = [arch]
    if draft.get("eagle_aux_hidden_state_layer_ids"):
        pre["eagle_aux_hidden_state_layer_ids"] = draft["eagle_aux_hidden_state_layer_ids"]
    return pre


def vllm_ids(hf: Mapping[str, Any], runner: str) -> list[int] | None:
    """The runner's own lookup: V2 eagle3_utils.py:113-150, V1 gpu_model_runner.py:5190-5223."""
    ids: Any = hf.get("eagle_aux_hidden_state_layer_ids")
    dflash = hf.get("dflash_config")
    ec = hf.get("eagle_config")
    if runner == "v1":
        if not ids:
            if dflash and isinstance(dflash, Mapping):
                ids = [i + 1 for i in (dflash.get("target_layer_ids") or [])]
            if ec and isinstance(ec, Mapping):
                ids = ec.get("eagle_aux_hidden_state_layer_ids")
        return list(ids) if ids and isinstance(ids, (list, tuple)) else None
    if not ids and dflash and isinstance(dflash, Mapping):
        ids = [i + 1 for i in (dflash.get("target_layer_ids") or [])]
    if not ids and hf.get("dspark_target_layer_ids"):
        ds = hf["dspark_target_layer_ids"]
        ids = list(ds) if hf.get("model_type") == "deepseek_v41" else [i + 1 for i in ds]
    if not ids and hf.get("target_layer_ids"):
        ids = [i + 1 for i in hf["target_layer_ids"]]
    if not ids:
        for name in ("dflash_config", "eagle_config"):
            sub = hf.get(name)
            if sub and isinstance(sub, Mapping):
                ids = sub.get("layer_ids")
                if ids:
                    break
    return list(ids) if ids and isinstance(ids, (list, tuple)) else None


def vllm_capture(kind: str, ids: Sequence[int], n: int, version: str = "0.33.0") -> tuple[list[int] | None, str]:
    """Boundaries the target's forward appends; (None, why) when the forward raises."""
    if kind == "mixin":
        layers = set(ids)
        return [b for b in range(n + 1) if b in layers], ""
    if kind == "deepseek":
        if 0 in ids:
            return None, (
                "boundary 0 adds residual=None to the embedding output: TypeError in the first forward "
                f"({cite(_vk(version, 'vl.ds_res_none'))}, {cite(_vk(version, 'vl.ds_bi'))})"
            )
        return [b for b in range(n) if b in ids] + ([n] if n in ids else []), ""
    return [b for b in range(n) if b in ids], ""  # dsa-cuda: before each block only


def vllm_fc(hf: Mapping[str, Any], version: str = "0.33.0") -> tuple[int, int, str]:
    """(states, fc in-features, cite) as the draft class vLLM picks sizes them (0.33.0 and 0.34.0 alike)."""
    arch = (hf.get("architectures") or ["LlamaForCausalLMEagle3"])[0]
    raw_ec = hf.get("eagle_config")
    ec: Mapping[str, Any] = raw_ec if isinstance(raw_ec, Mapping) else {}
    th = hf.get("target_hidden_size", hf.get("hidden_size")) or 0
    if arch in ("Eagle3Qwen3ForCausalLM", "PeagleQwen3ForCausalLM"):
        k = hf.get("num_aux_layers")
        if k is None:
            k = hf.get("num_aux_hidden_states")
        if k is None:
            aux = hf.get("eagle_aux_hidden_state_layer_ids") or ec.get("eagle_aux_hidden_state_layer_ids")
            k = len(aux) if aux else 3
        return int(k), int(th) * int(k), cite(_vk(version, "vl.fc_qwen3"))
    k = hf.get("num_aux_hidden_states")
    if k is None:
        aux = ec.get("eagle_aux_hidden_state_layer_ids")
        k = len(aux) if aux else 3
    return int(k), int(th) * int(k), cite(_vk(version, "vl.fc_llama"))


# ---- verdicts -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """What one engine version (and runner) does with one draft on one target."""

    engine: str
    version: str
    runner: str | None
    status: Status
    reason: str
    ids_read: list[int] | None  # the ids the engine ends up using (its default when ids_from == "default")
    ids_from: str | None  # "eagle_config" | "top-level" | "eagle_config.layer_ids" | "default" | None
    captured: list[int] | None  # boundaries the draft is fed; None when the engine fails before the draft's fc
    fc_in: int | None  # in-features of the fc the engine builds
    fc_in_checkpoint: int | None
    cite: list[str] = field(default_factory=list)
    same_as_trained: bool | None = None
    note: str = ""
    # how we know the draft was trained for another target than this one (``for_other_target``); '' when not
    other_target: str = ""
    # it starts and serves, on a checkpoint its weight loader cut or zero-padded without an error (``load_check``)
    load_cut: bool = False
    # "same as trained" is set against boundaries assumed, not a trainer's: why ('' when a trainer's were read)
    assumed: str = ""

    @property
    def label(self) -> str:
        return row_label(self.engine, self.version, self.runner)

    def to_json(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "version": self.version,
            "runner": self.runner,
            "status": self.status,
            "reason": self.reason,
            "ids_read": self.ids_read,
            "ids_from": self.ids_from,
            "captured": self.captured,
            "fc_in": self.fc_in,
            "fc_in_checkpoint": self.fc_in_checkpoint,
            "cite": list(self.cite),
            "same_as_trained": self.same_as_trained,
            "note": self.note,
            "other_target": self.other_target or None,
            "trained_assumed": self.assumed or None,
        }


def _finish(
    base: dict[str, Any], crash: str, k: int, fc_in: int, captured: list[int] | None, h: int, load_cite: str
) -> Verdict:
    ck = base["fc_in_checkpoint"]
    if crash:
        return Verdict(**{**base, "captured": None}, status="fails", reason=crash, fc_in=fc_in)
    if ck is not None and ck != fc_in:
        return Verdict(
            **{**base, "captured": None, "cite": [*base["cite"], load_cite]},
            status="fails",
            fc_in=fc_in,
            reason=f"the checkpoint's fc takes {ck} features but the engine builds it for {fc_in} ({k} states x "
            f"{fc_in // max(k, 1)}): the weight load asserts on the shape",
        )
    got = len(captured or []) * h
    if got != fc_in:
        return Verdict(
            **base,
            status="fails",
            fc_in=fc_in,
            reason=f"{len(captured or [])} captured states x target hidden {h} = {got} features reach an fc built "
            f"for {fc_in} ({k} x {fc_in // max(k, 1)}): shape error in the first draft forward",
        )
    return Verdict(**base, status="ok", reason="", fc_in=fc_in)


def _blank(engine: str, version: str, runner: str | None, ck: int | None) -> dict[str, Any]:
    return {"engine": engine, "version": version, "runner": runner, "fc_in_checkpoint": ck}


def _sglang(draft: Mapping[str, Any], arch: str, n: int, h: int, ck: int | None, version: str) -> Verdict:
    key = "sg23" if version == "0.5.23" else "sg51"
    base = _blank("SGLang", version, None, ck)
    none: dict[str, Any] = {"ids_read": None, "ids_from": None, "captured": None, "fc_in": None}
    if draft.get("speculators_model_type") is not None:
        return Verdict(
            **base,
            **none,
            status="unsupported",
            reason="speculators-format draft (architecture Eagle3Speculator): SGLang has no such model class",
            cite=[cite(f"{key}.registry")],
        )
    t = (SG23 if version == "0.5.23" else SG51)[arch]
    if not t.registered:
        return Verdict(
            **base,
            **none,
            status="unsupported",
            reason=f"SGLang {version} does not register {arch}",
            cite=[cite(k) for k in t.cites],
        )
    if t.kind == "none":
        msg = (
            "ValueError: does not implement set_eagle3_layers_to_capture"
            if version == "0.5.23"
            else "AttributeError: no attribute 'set_eagle3_layers_to_capture'"
        )
        return Verdict(
            **base,
            **none,
            status="unsupported",
            reason=f"{arch} has no EAGLE-3 hook ({msg})",
            cite=[cite(k) for k in t.cites],
        )
    ids = sglang_ids(draft)
    ids_from = "eagle_config" if ids is not None else "default"
    cites = [cite(f"{key}.lookup")]
    ltc = sglang_hook(t.rule, ids, n)
    try:
        captured = sglang_capture(t, ltc, n)
    except IndexError as exc:
        return Verdict(
            **base,
            ids_read=ids,
            ids_from=ids_from,
            captured=None,
            fc_in=None,
            status="fails",
            reason=f"IndexError while marking layers at start-up ({exc})",
            cite=cites + [cite(k) for k in t.cites],
        )
    cites += [cite(k) for k in t.cites]
    crash = ""
    if t.kind == "packer" and len(captured) != len(ltc):
        crash = f"AuxHiddenStatePacker.finalize: 'captured {len(captured)} of {len(ltc)} aux hidden states'"
    if not t.guarded and 0 in captured:
        crash = "boundary 0 adds residual=None to the embedding output (TypeError in the first forward)"
    k, fc_in = sglang_fc(draft, version)
    cites.append(cite("sg23.fc_count" if version == "0.5.23" else "sg51.fc"))
    out = _finish(
        {**base, "ids_read": ids, "ids_from": ids_from, "captured": captured, "cite": cites},
        crash,
        k,
        fc_in,
        captured,
        h,
        cite("sg23.fc_load"),
    )
    if arch == "Gemma3ForConditionalGeneration" and out.status == "ok":
        out = Verdict(
            **{
                **out.__dict__,
                "note": (
                    "captures `hidden_states` before the residual add (gemma3_causal.py:657, the layer returns "
                    "(hidden_states, residual) unsummed, :410): for b>=1 this is block b-1's branch output, not the "
                    "residual stream HF reports; a draft trained through SGLang sees the same"
                ),
            }
        )
    return out


def _vllm(
    draft: Mapping[str, Any], arch: str, n: int, h: int, ck: int | None, runner: str, version: str = "0.33.0"
) -> Verdict:
    base = _blank("vLLM", version, runner, ck)
    none: dict[str, Any] = {"ids_read": None, "ids_from": None, "captured": None, "fc_in": None}

    def vc(key: str) -> str:
        return cite(_vk(version, key))

    if version in VLLM_ONLY_V2:
        if runner != "v2":
            return Verdict(
                **base,
                **none,
                status="unsupported",
                reason=f"vLLM {version} has no Model Runner V1: VLLM_USE_V2_MODEL_RUNNER=0 raises ValueError",
                cite=[vc("vl.v1_removed")],
            )
        cites = [vc("vl.runner")]
    else:
        cites = [vc("vl.v2_env" if runner == "v2" else "vl.env")]
    if version in VLLM_ONLY_V2 and draft.get("speculators_model_type") == "peagle":
        return Verdict(
            **base,
            **none,
            status="fails",
            reason="draft config rejected: P-EAGLE (parallel drafting EAGLE-3) is not supported",
            cite=cites + [vc("vl.peagle_removed")],
        )
    try:
        hf = vllm_hf_config(draft)
    except DraftRejected as exc:
        return Verdict(
            **base,
            **none,
            status="fails",
            reason=f"draft config rejected: {exc}",
            cite=cites + [vc("vl.algos_arch")],
        )
    supported, kind, tcites = VLLM[arch]
    if not supported:
        return Verdict(
            **base,
            **none,
            status="unsupported",
            reason=f"{arch} does not implement SupportsEagle3: 'Model does not support EAGLE3 interface'",
            cite=cites + [vc("vl.v2_nosupport" if runner == "v2" else "vl.v1_nosupport")] + [vc(k) for k in tcites],
        )
    ids = vllm_ids(hf, runner)
    cites.append(vc("vl.v2_lookup" if runner == "v2" else "vl.v1_lookup"))
    if ids:
        top = hf.get("eagle_aux_hidden_state_layer_ids")
        ids_from = "top-level" if top else ("eagle_config.layer_ids" if runner == "v2" else "eagle_config")
    else:
        ids = default_ids(n)
        ids_from = "default"
        cites += [vc("vl.v2_default_call" if runner == "v2" else "vl.v1_default_call"), vc("vl.default")]
    ids = [int(i) for i in ids]
    cites += [vc(k) for k in tcites]
    captured, crash = vllm_capture(kind, ids, n, version)
    k, fc_in, fc_cite = vllm_fc(hf, version)
    cites.append(fc_cite)
    return _finish(
        {**base, "ids_read": ids, "ids_from": ids_from, "captured": captured, "cite": cites},
        crash,
        k,
        fc_in,
        captured,
        h,
        vc("vl.fc_load"),
    )


def checkpoint_fc_default(draft: Mapping[str, Any]) -> int | None:
    """The fc width the draft's trainer built, when the checkpoint's own header is not at hand: speculators
    len(ids) (core.py:72), otherwise num_aux_hidden_states or the eagle_config id count, else 3, times the
    draft's target width."""
    h = _hidden_in(draft) or _hidden_in(draft.get("transformer_layer_config") or {})
    if not h:
        return None
    if draft.get("speculators_model_type") is not None:
        ids = _ints(draft.get("eagle_aux_hidden_state_layer_ids"))
        return h * (len(ids) if ids else 3)
    k = draft.get("num_aux_hidden_states")
    if isinstance(k, int) and k > 0:
        return h * k
    ids = sglang_ids(draft)
    return h * (len(ids) if ids else 3)


def parse_rows(choice: str | None) -> list[tuple[str, str, str | None]]:
    """ENGINE_ROWS for one choice: 'vLLM 0.33.0' gives both its runners, 'vLLM 0.33.0 v1' one, 'vLLM' or 'SGLang'
    the newest version's rows (vLLM 0.34.0: V2 only); None gives all rows."""
    if not choice:
        return list(ENGINE_ROWS)
    parts = choice.replace("(", " ").replace(")", " ").replace(",", " ").split()
    engine = parts[0].lower()
    version = parts[1] if len(parts) > 1 and parts[1][:1].isdigit() else None
    runner = next((p.lower() for p in parts[1:] if p.lower() in ("v1", "v2")), None)
    rows = [r for r in ENGINE_ROWS if r[0].lower() == engine]
    if version is None and rows:
        version = rows[0][1]
    return [r for r in rows if r[1] == version and (runner is None or r[2] == runner)]


# ---- loading the checkpoint -----------------------------------------------------------------------------------
# Every engine builds the draft's tensors from its config and then loads the checkpoint into them; what its weight
# loader does with a checkpoint tensor of another shape than the one built is read from the wheels, per loader:
#   the default loader (norms, vLLM's d2t) and the embedding's assert on the shape;
#   the column loaders (q/k/v_proj into qkv_proj, gate/up_proj into gate_up_proj) slice the output rows and the row
#   loaders (o_proj, down_proj) the input columns to what was built, then assert on the shape: a larger checkpoint
#   dimension is cut to its first rows/columns without an error, a smaller one raises in narrow, except where
#   SGLang 0.5.23 pads it with zeros (its gate_up and row loaders: pad_or_narrow_weight);
#   t2d is skipped by every engine (llama_eagle3.load_weights), d2t by SGLang's shape checks (hot_token_id).
# The fc has its own rule (``_finish``: the in-features each engine builds); its out-features are the default's.
AT_LOAD = "at load: "  # a verdict whose reason starts so fails on the checkpoint's shapes (``load_check``)
LOAD_FIX = (
    "use the config the checkpoint was trained with (the one that builds its shapes), or a checkpoint of this config"
)


@dataclass(frozen=True)
class _Loader:
    """What one engine's weight loader does with a checkpoint tensor whose shape is not the one built."""

    dim: int | None  # the dimension it cuts to what was built (0 output rows, 1 input columns); None: none
    pads: bool  # a smaller dimension is padded with zeros instead of raising
    cut: str  # CITES key of the line that cuts (or pads, with ``pads``)
    check: str  # CITES key of the line that asserts on the shape


def _loader_cites(prefix: str, package: str, version: str, lines: Mapping[str, tuple[str, int, str]]) -> None:
    CITES.update({f"{prefix}.{key}": Cite(package, version, *where) for key, where in lines.items()})


_VL_PARAM = "vllm/model_executor/parameter.py"
_VL_NARROW = "loaded_weight = loaded_weight.narrow("
_lines: tuple[int, ...]
for _prefix, _version, _lines in (
    ("vl", "0.33.0", (169, 172, 193, 197, 218, 225, 1538, 515, 426)),
    ("vl34", "0.34.0", (164, 167, 188, 192, 213, 220, 1597, 520, 416)),
):
    _loader_cites(
        _prefix,
        "vllm",
        _version,
        {
            "load_merged": (_VL_PARAM, _lines[0], _VL_NARROW),
            "load_merged_check": (_VL_PARAM, _lines[1], "assert param_data.shape == loaded_weight.shape"),
            "load_qkv": (_VL_PARAM, _lines[2], _VL_NARROW),
            "load_qkv_check": (_VL_PARAM, _lines[3], "assert param_data.shape == loaded_weight.shape"),
            "load_row": (_VL_PARAM, _lines[4], _VL_NARROW),
            "load_row_check": (_VL_PARAM, _lines[5], "assert self.data.shape == loaded_weight.shape"),
            "load_default": (
                "vllm/model_executor/model_loader/weight_utils.py",
                _lines[6],
                "assert param.size() == loaded_weight.size(), (",
            ),
            "load_vocab": (
                "vllm/model_executor/layers/vocab_parallel_embedding.py",
                _lines[7],
                "assert loaded_weight.shape[output_dim] == self.org_vocab_size",
            ),
            "load_t2d": ("vllm/model_executor/models/llama_eagle3.py", _lines[8], 'if "t2d" in name:'),
        },
    )
_SG_LINEAR = "sglang/srt/layers/linear.py"
for _prefix, _version, _lines in (
    ("sg51", "0.5.1", (628, 654, 1119, 1143, 1273, 1280, 649, 451, 220, 217)),
    ("sg23", "0.5.23", (868, 894, 1523, 1547, 1699, 1708, 1582, 436, 355, 352)),
):
    _loader_cites(
        _prefix,
        "sglang",
        _version,
        {
            "load_merged": (_SG_LINEAR, _lines[0], "loaded_weight = loaded_weight.narrow("),
            "load_merged_check": (_SG_LINEAR, _lines[1], "assert param_data.shape == loaded_weight.shape"),
            "load_qkv": (_SG_LINEAR, _lines[2], "loaded_weight = loaded_weight.narrow("),
            "load_qkv_check": (_SG_LINEAR, _lines[3], "assert param_data.shape == loaded_weight.shape"),
            "load_row": (
                _SG_LINEAR,
                _lines[4],
                "loaded_weight = loaded_weight.narrow(input_dim, start_idx, shard_size)"
                if _version == "0.5.1"
                else "loaded_weight = loaded_weight.narrow(",
            ),
            "load_row_check": (_SG_LINEAR, _lines[5], "assert param_data.shape == loaded_weight.shape"),
            "load_default": (
                "sglang/srt/model_loader/weight_utils.py",
                _lines[6],
                "assert param.size() == loaded_weight.size(), (",
            ),
            "load_vocab": (
                "sglang/srt/layers/vocab_parallel_embedding.py",
                _lines[7],
                "assert loaded_weight.shape[output_dim] == (",
            ),
            "load_t2d": ("sglang/srt/models/llama_eagle3.py", _lines[8], 'if "t2d" in name:'),
            "load_d2t": (
                "sglang/srt/models/llama_eagle3.py",
                _lines[9],
                "self.hot_token_id = loaded_weight + torch.arange(loaded_weight.shape[0])",
            ),
        },
    )
CITES.update(
    {
        "sg23.load_merged_pad": Cite("sglang", "0.5.23", _SG_LINEAR, 864, "loaded_weight = pad_or_narrow_weight("),
        "sg23.load_row_pad": Cite("sglang", "0.5.23", _SG_LINEAR, 1695, "loaded_weight = pad_or_narrow_weight("),
    }
)


def _loaders(prefix: str, pads: bool) -> dict[str, _Loader | None]:
    """role -> loader for one engine version (CITES prefix); None: the engine does not check it at load."""
    strict = _Loader(None, False, f"{prefix}.load_default", f"{prefix}.load_default")
    return {
        "qkv": _Loader(0, False, f"{prefix}.load_qkv", f"{prefix}.load_qkv_check"),
        "merged": _Loader(
            0, pads, f"{prefix}.load_merged_pad" if pads else f"{prefix}.load_merged", f"{prefix}.load_merged_check"
        ),
        "row": _Loader(
            1, pads, f"{prefix}.load_row_pad" if pads else f"{prefix}.load_row", f"{prefix}.load_row_check"
        ),
        "vocab": _Loader(None, False, f"{prefix}.load_vocab", f"{prefix}.load_vocab"),
        "norm": strict,
        "d2t": None if prefix.startswith("sg") else strict,
        "t2d": None,
    }


_LOADERS: dict[tuple[str, str], dict[str, _Loader | None]] = {
    ("SGLang", "0.5.23"): _loaders("sg23", True),
    ("SGLang", "0.5.1"): _loaders("sg51", False),
    ("vLLM", "0.34.0"): _loaders("vl34", False),
    ("vLLM", "0.33.0"): _loaders("vl", False),
}
_ROLES = {
    "q_proj": "qkv",
    "k_proj": "qkv",
    "v_proj": "qkv",
    "gate_proj": "merged",
    "up_proj": "merged",
    "o_proj": "row",
    "down_proj": "row",
    "embed_tokens": "vocab",
    "lm_head": "vocab",
    "d2t": "d2t",
    "t2d": "t2d",
    "fc": "fc",
}


def tensor_role(name: str) -> str | None:
    """How engines load the draft tensor ``name`` (``_ROLES``; any '*norm*' tensor is a norm); None: not known."""
    parts = [p for p in str(name).split(".") if p and not p.isdigit() and p not in ("weight", "bias")]
    leaf = parts[-1] if parts else ""
    return _ROLES.get(leaf) or ("norm" if "norm" in leaf else None)


Shapes = Sequence[tuple[str, Sequence[int], Sequence[int]]]  # (tensor, shape the config builds, checkpoint's)


def loaded_mismatches(shapes: Shapes | None) -> list[tuple[str, list[int], list[int]]]:
    """The checkpoint tensors of another shape than the config's that some engine loads: t2d is skipped by all,
    and an fc whose in-features alone differ is the fc rule's (``_finish``, against what each engine builds)."""
    out = []
    for name, built, stored in shapes or ():
        built, stored = [int(d) for d in built], [int(d) for d in stored]
        role = tensor_role(name)
        if role == "t2d" or (role == "fc" and built[:1] == stored[:1] and len(built) == len(stored)):
            continue
        out.append((str(name), built, stored))
    return out


def _load_effect(
    v: Verdict, draft: Mapping[str, Any], name: str, built: list[int], stored: list[int]
) -> tuple[str, bool, str] | None:
    """(what engine row ``v``'s loader does with ``name``, whether it raises, its CITES key); None: not checked."""
    table = _LOADERS.get((v.engine, v.version))
    role = tensor_role(name)
    if table is None or role is None:
        return None
    if role == "fc":
        return (
            "the weight load asserts on the shape",
            True,
            ("sg23.fc_load" if v.engine == "SGLang" else _vk(v.version, "vl.fc_load")),
        )
    if role == "vocab" and name.startswith("lm_head") and v.engine == "SGLang" and draft.get("tie_word_embeddings"):
        return None  # SGLang serves the embedding as the head and never loads lm_head (llama_eagle3.py:303)
    loader = table.get(role)
    if loader is None:
        return None
    d = loader.dim
    if (
        d is None
        or len(built) != len(stored)
        or d >= len(built)
        or any(b != s for i, (b, s) in enumerate(zip(built, stored, strict=True)) if i != d)
    ):
        return "the weight load asserts on the shape", True, loader.check
    what = "rows" if d == 0 else "columns"
    if stored[d] > built[d]:
        return (
            f"the loader keeps the first {built[d]} of its {stored[d]} {what} and drops the rest without an error",
            False,
            loader.cut.replace("_pad", ""),
        )
    if loader.pads:
        return f"the loader pads its {stored[d]} {what} with zeros to {built[d]} without an error", False, loader.cut
    return f"the loader cannot cut {built[d]} {what} from its {stored[d]} (RuntimeError in narrow)", True, loader.cut


def load_check(v: Verdict, draft: Mapping[str, Any], shapes: Shapes | None) -> Verdict:
    """Engine row ``v`` once the checkpoint is loaded into what the config builds (``shapes``: the tensors of
    another shape, as ``params.reconcile`` lists them). A row that stops before loading the draft (unsupported, a
    config rejected, a start-up error: no fc built) keeps its verdict. Otherwise any tensor the engine loads
    another shape of fails it "at load": it stops there where its loader raises (nothing is captured), and where
    the loader cuts or pads without an error, the engine starts with a draft that is not the one trained."""
    if v.status == "unsupported" or v.fc_in is None:
        return v
    effects = []
    for name, built, stored in loaded_mismatches(shapes):
        effect = _load_effect(v, draft, name, built, stored)
        if effect is not None:
            effects.append((name, built, stored, *effect))
    if not effects:
        return v
    raises = any(r for *_, r, _ in effects)
    said = "; ".join(f"{n} shape {s} vs config {b}: {what}" for n, b, s, what, _, _ in effects)
    if not raises:
        said += ": the engine starts with a draft that is not the one trained"
    fc_at_load = v.status == "fails" and "the weight load asserts on the shape" in v.reason  # ``_finish``'s fc
    if v.status == "fails" and (fc_at_load or not raises):  # the fc fails at load too, or what fails after a load
        said += f"; also {v.reason}"
    cites = list(dict.fromkeys([*v.cite, *(cite(k) for *_, k in effects)]))
    return Verdict(
        **{
            **v.__dict__,
            "status": "fails",
            "reason": AT_LOAD + said,
            "captured": None if raises else v.captured,
            "cite": cites,
            "load_cut": not raises and v.status == "ok",
        }
    )


def serve(
    draft: Mapping[str, Any],
    *,
    target_arch: str,
    n_layers: int,
    target_hidden: int,
    fc_in_checkpoint: int | None = None,
    rows: Sequence[tuple[str, str, str | None]] | None = None,
    checkpoint_shapes: Shapes | None = None,
) -> list[Verdict]:
    """One verdict per engine row (default: all of ENGINE_ROWS) for ``draft`` (its raw config.json) on a target
    of class ``target_arch`` (target_class()), ``n_layers`` decoder layers and hidden size ``target_hidden``.

    ``fc_in_checkpoint``: in-features of the checkpoint's fc.weight (None: not known, not checked).
    ``checkpoint_shapes``: the checkpoint's tensors of another shape than the config builds (``load_check``)."""
    out: list[Verdict] = []
    for engine, version, runner in rows or ENGINE_ROWS:
        if engine == "SGLang":
            out.append(_sglang(draft, target_arch, n_layers, target_hidden, fc_in_checkpoint, version))
        else:
            out.append(_vllm(draft, target_arch, n_layers, target_hidden, fc_in_checkpoint, runner or "v2", version))
    tr = trained(draft, target_arch=target_arch, n_layers=n_layers, target_hidden=target_hidden)
    b = tr.boundaries
    assumed = ""
    if b is None and assumes_sglang(draft):
        sg = (
            out[0]
            if out and out[0].version == "0.5.23"
            else _sglang(draft, target_arch, n_layers, target_hidden, fc_in_checkpoint, "0.5.23")
        )
        if sg.status == "ok":
            b = sg.captured
            # said, as README promises: rows and headline read "assumed", never a trainer's fact
            assumed = (
                f"no trainer produces this config ({tr.trainer}: {tr.reason}), so its trained blocks are taken as "
                f"what SGLang 0.5.23 captures, {describe(b)}"
            )
    return [
        load_check(
            Verdict(
                **{
                    **v.__dict__,
                    "same_as_trained": None if (b is None or v.captured is None) else sorted(v.captured) == sorted(b),
                    "assumed": assumed if (b is not None and v.captured is not None) else "",
                }
            ),
            draft,
            checkpoint_shapes,
        )
        for v in out
    ]


_OTHER_HEAD = "the draft was trained for another target ("
_OTHER_TAIL = "); the engine's code starts with this config, but what it drafts here is not known"


def for_other_target(verdicts: Sequence[Verdict], why: str) -> list[Verdict]:
    """The verdicts for a draft trained for another target than the one given (``why``: how we know, e.g. its
    vocab_size against the target's): a row whose code path starts is "unknown" for this target, not "ok", and no
    row is "same as trained" (the trained blocks were another target's). A row that fails or has no EAGLE-3 path
    keeps its verdict: that holds whatever the draft was trained for."""
    if not why:
        return list(verdicts)
    out = []
    for v in verdicts:
        if v.status == "ok":
            v = Verdict(
                **{
                    **v.__dict__,
                    "status": "unknown",
                    "reason": f"{_OTHER_HEAD}{why}{_OTHER_TAIL}",
                }
            )
        out.append(Verdict(**{**v.__dict__, "same_as_trained": None, "other_target": why}))
    return out


# ---- trainers -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Trained:
    """The boundaries a draft was trained on, as far as its format's trainer tells."""

    trainer: str
    status: str  # "ok" | "refused" | "refused-offline" | "short"
    boundaries: list[int] | None
    assumed: bool  # never set: a config no known trainer produces has boundaries None (see ``assumes_sglang``)
    reason: str
    cite: list[str]


def trained(draft: Mapping[str, Any], *, target_arch: str, n_layers: int, target_hidden: int) -> Trained:
    """Speculators 0.9.0 for a speculators-format draft (ids are vLLM boundaries); SpecForge 0.2.0 otherwise
    (ids through SGLang 0.5.14's hook, the version it pins; for every id SpecForge accepts it equals 0.5.23's).
    When neither trainer could have produced the config, the boundaries are None; callers may then assume what
    SGLang 0.5.23 captures (``assumes_sglang``)."""
    n = n_layers
    if draft.get("speculators_model_type") is not None:
        ids = _ints(draft.get("eagle_aux_hidden_state_layer_ids"))
        got = default_ids(n) if ids is None else ids
        if not got or min(got) < 0 or max(got) > n or len(set(got)) != len(got):
            return Trained(
                "speculators 0.9.0",
                "refused",
                None,
                False,
                f"target_layer_ids must be distinct and within [0, {n}]",
                [cite("sp.refuse")],
            )
        return Trained("speculators 0.9.0", "ok", got, False, "", [cite("sp.resolve"), cite("sp.fc")])
    raw_ec = draft.get("eagle_config")
    ec: Mapping[str, Any] = raw_ec if isinstance(raw_ec, Mapping) else {}
    raw = ec.get("eagle_aux_hidden_state_layer_ids")
    layers = [1, n // 2 - 1, n - 4] if raw is None else list(raw)
    sf = "SpecForge 0.2.0"
    tr: Trained | None = None
    if len(layers) != 3 or any(not isinstance(i, int) or isinstance(i, bool) or i < 0 for i in layers):
        tr = Trained(
            sf,
            "refused",
            None,
            False,
            f"resolved EAGLE capture layers must contain exactly three non-negative integers, got {layers!r}",
            [cite("sf.refuse")],
        )
    elif len(set(layers)) != len(layers) or any(i >= n for i in layers):
        tr = Trained(
            sf, "refused-offline", None, False, "offline capture refuses repeats and ids >= N", [cite("sf.offline")]
        )
    else:
        t = SG23[target_arch]
        reason = ""
        bounds: list[int] | None = None
        if t.kind == "none":
            reason = f"SGLang (SpecForge's capture engine) has no EAGLE-3 hook for {target_arch}"
        else:
            ltc = sglang_hook(PLUS1 if t.rule == AS_GIVEN_IF_MAX_N else t.rule, layers, n)  # 0.5.14: gpt-oss +1
            try:
                cap = sglang_capture(t, ltc, n)
            except IndexError as exc:
                cap, reason = None, f"SGLang IndexError: {exc}"
            if cap is not None and len(cap) != len(ltc):
                reason = f"SGLang captures only {cap} for {ltc}: SpecForge's capture would be short"
            elif cap is not None:
                bounds = cap
        if bounds is not None:
            return Trained(sf, "ok", bounds, False, "", [cite("sf.resolve"), cite("sf.via_sglang")])
        tr = Trained(sf, "short", None, False, reason, [cite("sf.via_sglang")])
    return tr


def assumes_sglang(draft: Mapping[str, Any]) -> bool:
    """Whether a config no known trainer produces is taken as trained on what SGLang 0.5.23 captures: a
    SpecForge-format draft whose eagle_config ids are none negative. Both trainers refuse a negative id, and SGLang
    reads -1 as the embedding output on Llama/Qwen (others wrap or drop it): what it captures is then an accident
    of the typo, not the trained blocks (walk BC2: [-1, 17, 32] on Qwen3-8B read "same as trained: yes" on SGLang
    and offered top-level [0, 18, 33], feeding vLLM the embedding too)."""
    if draft.get("speculators_model_type") is not None:
        return False
    ec = draft.get("eagle_config")
    ids = ec.get("eagle_aux_hidden_state_layer_ids") if isinstance(ec, Mapping) else None
    return not any(isinstance(i, int) and i < 0 for i in (ids if isinstance(ids, list) else []))


# ---- advice ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Advice:
    """The config that makes SGLang 0.5.23 and every vLLM row capture the trained blocks, or why none can."""

    possible: bool
    config: dict[str, Any]
    why: list[str]
    engines: list[str]
    note: str = ""
    # a speculators-format draft: the config SGLang 0.5.23 would load instead (its architecture, and the
    # eagle_config ids that make it capture the trained boundaries), and why it is those ids, with the source
    convert: dict[str, Any] = field(default_factory=dict)
    convert_why: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "possible": self.possible,
            "config": self.config,
            "why": self.why,
            "engines": self.engines,
            "note": self.note,
            "convert": self.convert,
            "convert_why": self.convert_why,
        }


VLLM_NAMES = "vLLM 0.34.0 / 0.33.0"  # the VLLM table holds for both
_VLLM_REACH = {
    "mixin": lambda n: set(range(n + 1)),
    "deepseek": lambda n: set(range(1, n + 1)),
    "dsa-cuda": lambda n: set(range(n)),
}


def _sglang_ids_for(t: SgTarget, b: Sequence[int], n: int) -> list[int] | None:
    """eagle_config ids that make SGLang 0.5.23 capture exactly the boundaries ``b`` on a target of class ``t``."""
    for cand in ([x - 1 for x in b], list(b)):
        ltc = sglang_hook(t.rule, cand, n)
        try:
            cap = sglang_capture(t, ltc, n)
        except IndexError:
            continue
        if cap == list(b) and (t.kind != "packer" or len(ltc) == len(cap)):
            return cand
    return None


SG_DRAFT_CLASS = "LlamaForCausalLMEagle3"  # SGLang 0.5.23's EAGLE-3 draft class for a llama layer


def _sglang_conversion(
    draft: Mapping[str, Any], arch: str, n: int, h: int, b: Sequence[int]
) -> tuple[dict[str, Any], str]:
    """A speculators-format draft as SGLang 0.5.23 would load it: (the top-level keys to write, why), or ({}, why
    not). SGLang has EAGLE-3 paths for most targets but no class for speculators' ``Eagle3Speculator``; the ids
    follow its hook's rule (Llama: id+1), so boundaries [2, 40, 77] are ids [1, 39, 76]. speculators writes
    ``target_hidden_size: null``, which SGLang's draft would use as the fc's input width: the target's is set."""
    layer_type = (draft.get("transformer_layer_config") or {}).get("model_type", "llama")
    if layer_type != "llama":
        return {}, f"SGLang 0.5.23 has no EAGLE-3 draft class for a {layer_type} layer"
    t = SG23[arch]
    if t.kind == "none":
        return {}, f"SGLang 0.5.23 has no EAGLE-3 hook for {arch} either"
    ids = _sglang_ids_for(t, b, n)
    if ids is None:
        return {}, f"no eagle_config ids make SGLang 0.5.23 capture exactly {list(b)} on {arch}"
    rule = "id+1" if [i + 1 for i in ids] == list(b) else "the ids as given"
    hook = next((k for k in t.cites if "hook" in k), t.cites[0] if t.cites else None)
    return (
        {
            "architectures": [SG_DRAFT_CLASS],
            "target_hidden_size": h,
            "eagle_config": {"eagle_aux_hidden_state_layer_ids": ids},
        },
        f"SGLang 0.5.23 captures {rule}: the trained boundaries {list(b)}" + (f"; {cite(hook)}" if hook else ""),
    )


def _convert_text(convert: Mapping[str, Any]) -> str:
    keys = {k: v for k, v in convert.items() if k != "architectures"}
    return (
        f"convert the config to {SG_DRAFT_CLASS} (transformer_layer_config's fields at the top level) and set "
        + json.dumps(keys)
    )


def format_not_read(v: Verdict) -> bool:
    """The engine does not load the draft's format (speculators' ``Eagle3Speculator``): not that it has no
    EAGLE-3 path for the target, which it may well have (SGLang 0.5.23 on Llama-3.3-70B)."""
    return v.status == "unsupported" and "speculators-format" in v.reason


def advice(
    draft: Mapping[str, Any],
    *,
    target_arch: str,
    n_layers: int,
    target_hidden: int,
    fc_in_checkpoint: int | None = None,
    boundaries: Sequence[int] | None = None,
    checkpoint_shapes: Shapes | None = None,
) -> Advice:
    """The exact keys to write (top-level and eagle_config), for the trained boundaries (default: trained(),
    else what SGLang 0.5.23 captures when no known trainer produced the config and ``assumes_sglang``). None when
    the checkpoint holds a tensor an engine loads of another shape than the config builds (``checkpoint_shapes``,
    ``load_check``): no capture setting makes it load as trained."""
    n, arch = n_layers, target_arch
    every = ["SGLang 0.5.23", "vLLM 0.34.0 (v2)", "vLLM 0.33.0 (v2)", "vLLM 0.33.0 (v1)"]
    vl_ok, kind, _ = VLLM[arch]
    sg_t = SG23[arch]
    if not vl_ok and sg_t.kind == "none":
        return Advice(
            False,
            {},
            [
                f"{VLLM_NAMES} has no EAGLE-3 support for {arch} (no SupportsEagle3)",
                f"SGLang 0.5.23 has no EAGLE-3 hook for {arch}",
            ],
            [],
        )
    if loaded := loaded_mismatches(checkpoint_shapes):
        shapes = "; ".join(f"{name}: checkpoint {stored}, config {built}" for name, built, stored in loaded)
        return Advice(
            False,
            {},
            [
                f"the checkpoint does not match its config ({shapes}): every engine builds these tensors from the "
                f"config, so no capture setting loads it as trained; {LOAD_FIX}"
            ],
            [],
        )
    if boundaries is None:
        tr = trained(draft, target_arch=arch, n_layers=n, target_hidden=target_hidden)
        boundaries = tr.boundaries
        if boundaries is None and not assumes_sglang(draft):  # walk BC2: no config serves unknown trained blocks
            return Advice(
                False,
                {},
                [
                    f"the trained boundaries are unknown: neither SpecForge 0.2.0 nor speculators 0.9.0 produces "
                    f"this config ({tr.trainer}: {tr.reason})"
                ],
                [],
            )
        if boundaries is None:
            sg = _sglang(draft, arch, n, target_hidden, fc_in_checkpoint, "0.5.23")
            boundaries = sg.captured if sg.status == "ok" else None
    if not boundaries:
        return Advice(
            False,
            {},
            [
                "the trained boundaries are unknown: neither SpecForge 0.2.0 nor speculators "
                "0.9.0 produces this config, and SGLang 0.5.23 does not serve it either"
            ],
            [],
        )
    b = sorted(boundaries)
    if fc_in_checkpoint is not None and fc_in_checkpoint != len(b) * target_hidden:
        return Advice(
            False,
            {},
            [
                f"the checkpoint's fc takes {fc_in_checkpoint} features but {len(b)} states of this target give "
                f"{len(b) * target_hidden}: the draft was built for a target of another width; no config fixes it"
            ],
            [],
        )
    if draft.get("speculators_model_type") is not None:
        convert, convert_why = _sglang_conversion(draft, arch, n, target_hidden, b)
        sg_why = (
            f"SGLang does not load the speculators format (Eagle3Speculator): {_convert_text(convert)} to serve it "
            f"there ({convert_why})"
            if convert
            else f"SGLang does not load the speculators format (Eagle3Speculator), and converted: {convert_why}"
        )
        if not vl_ok or not set(b) <= _VLLM_REACH[kind](n):
            return Advice(
                False, {}, [f"{VLLM_NAMES} cannot capture {b} on {arch}", sg_why], [], "", convert, convert_why
            )
        cfg: dict[str, Any] = {"eagle_aux_hidden_state_layer_ids": b}
        layer_type = (draft.get("transformer_layer_config") or {}).get("model_type", "llama")
        if layer_type == "llama" and len(b) != 3:
            cfg["transformer_layer_config"] = {"num_aux_hidden_states": len(b)}
        return Advice(
            True,
            cfg,
            [sg_why],
            every[1:],
            "vLLM builds Eagle3LlamaForCausalLM for a llama layer config and sizes its fc from "
            "num_aux_hidden_states, else 3 (llama_eagle3.py:210-216)",
            convert,
            convert_why,
        )
    why = []
    if not vl_ok:
        why.append(f"{VLLM_NAMES} has no EAGLE-3 support for {arch} (no SupportsEagle3)")
    elif not set(b) <= _VLLM_REACH[kind](n):
        why.append(
            f"{VLLM_NAMES} cannot capture {sorted(set(b) - _VLLM_REACH[kind](n))} on {arch} (boundary 0 "
            "crashes on the DeepSeek path; N is unreachable on the DSA path)"
        )
    sg_ids = None
    if sg_t.kind == "none":
        why.append(f"SGLang 0.5.23 has no EAGLE-3 hook for {arch}")
    else:
        sg_ids = _sglang_ids_for(sg_t, b, n)
        if sg_ids is None:
            why.append(f"no eagle_config ids make SGLang 0.5.23 capture exactly {b} on {arch}")
    if why:
        return Advice(False, {}, why, [])
    return Advice(
        True,
        {"eagle_aux_hidden_state_layer_ids": b, "eagle_config": {"eagle_aux_hidden_state_layer_ids": sg_ids}},
        [],
        every,
        "every vLLM runner reads the top level first and uses it as given; SGLang reads only eagle_config; "
        "both size the fc from the eagle_config count (num_aux_hidden_states overrides it)",
    )


# ---- "Will it serve?": rows and one headline -------------------------------------------------------------------
def describe(boundaries: Sequence[int] | None) -> str:
    """'the embedding output, outputs of blocks 29, 57' for boundaries [0, 30, 58]; '' for None."""
    if boundaries is None:
        return ""
    parts: list[str] = []
    if 0 in boundaries:
        parts.append("the embedding output")
    blocks = [b - 1 for b in boundaries if b >= 1]
    if blocks:
        parts.append(("output of block " if len(blocks) == 1 else "outputs of blocks ") + ", ".join(map(str, blocks)))
    return ", ".join(parts) or "nothing"


def change_for(v: Verdict, adv: Advice) -> str:
    """The one change that makes this row serve the trained blocks; '' when it already does."""
    if v.status == "ok" and v.same_as_trained is not False:
        return ""
    if v.status == "unknown":  # another target's draft: no config here makes it this target's
        return "set the target the draft was trained for, or check that this is the draft you meant"
    if v.reason.startswith(AT_LOAD):  # the checkpoint is not what its config builds: no capture setting helps
        return LOAD_FIX
    if format_not_read(v):  # the draft's format, not the target: say what would load
        if not adv.convert:
            return (
                f"serve it as it is with {VLLM_NAMES}, which load this format ({adv.convert_why})"
                if adv.possible
                else "no config can: " + "; ".join(adv.why)
            )
        there = "" if v.version == "0.5.23" else " and serve it with SGLang 0.5.23"
        vllm = f"; or serve it as it is with {VLLM_NAMES}, which load this format" if adv.possible else ""
        return f"{_convert_text(adv.convert)}{there} ({adv.convert_why}){vllm}"
    if v.status == "unsupported":
        return "serve it with another engine: this one has no EAGLE-3 path for it (" + v.reason + ")"
    if not adv.possible:
        return "no config can: " + "; ".join(adv.why)
    if v.engine == "vLLM":
        keys = {k: val for k, val in adv.config.items() if k != "eagle_config"}
        return "add at the top level: " + json.dumps(keys)
    if v.version != "0.5.23":
        return f"use SGLang 0.5.23 (SGLang {v.version} builds the fc for 3 states and lacks paths 0.5.23 has)"
    ec = adv.config.get("eagle_config")
    return "set " + json.dumps({"eagle_config": ec}) if ec else "SGLang reads no speculators-format draft"


def table_rows(verdicts: Sequence[Verdict], adv: Advice) -> list[dict[str, Any]]:
    """One row per engine version and runner: starts?, blocks captured, same as trained?, what to change."""
    rows = []
    for v in verdicts:
        starts = {"ok": "yes", "fails": "no: ", "unsupported": "unsupported: ", "unknown": "unknown: "}[v.status] + (
            v.reason or ""
        )
        rows.append(
            {
                "engine": v.label,
                "starts?": starts,
                "blocks captured": describe(v.captured) if v.captured is not None else "",
                "ids read from": v.ids_from or "",
                "same as trained?": {True: "yes", False: "no", None: "unknown"}[v.same_as_trained]
                + (" (assumed)" if v.assumed and v.same_as_trained is not None else ""),
                "what to change": change_for(v, adv) or "nothing",
                "source": "; ".join(v.cite),
            }
        )
    return rows


def _not_loaded(adv: Advice) -> str:
    return "does not load the speculators format (Eagle3Speculator)" + (
        ", though it has an EAGLE-3 path for this target" if adv.convert else ""
    )


def headline(verdicts: Sequence[Verdict], adv: Advice, engine: tuple[str, str] | None = None) -> str:
    """The engine to act on and the one change, or that every engine serves the trained blocks.

    ``engine`` (the engine you serve with, how that is known: ``comparison.served_engine``) leads, as it leads the
    lint's headline; else the newest version of an engine that serves the trained blocks leads, the rows to act on
    after it (walk AQ: "vLLM 0.34.0 cannot serve this target" led for a draft SGLang 0.5.23 serves, whose runs were
    SGLang's and whose lint headline said "Nothing to act on for SGLang")."""
    said = _assumed(_headline_of(verdicts, adv, engine), verdicts)
    return said


def _assumed(said: str, verdicts: Sequence[Verdict]) -> str:
    """The headline with the assumption behind "the trained blocks" said, where there is one."""
    why = next((v.assumed for v in verdicts if v.assumed), "")
    return f"{said.rstrip('.')} (assumed: {why})." if why else said


def _headline_of(verdicts: Sequence[Verdict], adv: Advice, engine: tuple[str, str] | None) -> str:
    said = _headline(verdicts, adv)
    if any(v.other_target for v in verdicts):
        return said
    newest = {e: ver for e, ver, _ in reversed(ENGINE_ROWS)}
    current = [v for v in verdicts if newest.get(v.engine) == v.version]
    if engine is not None:
        mine = [v for v in current if v.engine == engine[0]]
        if mine:
            mine_todo = [v for v in mine if change_for(v, adv)]
            rest = [v for v in verdicts if v not in mine and change_for(v, adv)]
            if mine_todo:
                return f"For {engine[0]} ({engine[1]}): {_todo_words(_ordered(mine_todo), adv)}" + (
                    f"; {len(rest)} other row(s) to act on below" if rest else ""
                )
            lead = _lead(mine, adv, f" ({engine[1]})", why=not rest)
            return lead + (f"; other rows: {_todo_words(_ordered(rest), adv)}" if rest else ".")
    serves = [v for v in current if not change_for(v, adv)]
    todo = [v for v in verdicts if change_for(v, adv)]
    if serves and todo and any(v in todo for v in current):  # the newest of one engine serves, another's does not
        return f"{_lead(serves, adv)}; {_todo_words(_ordered(todo), adv)}"
    return said


def serves_trained(v: Verdict, adv: Advice) -> bool:
    """Whether this row starts and feeds the draft the blocks it was trained on: no change to make, and the
    sameness known. A row that starts with the trained boundaries unknown (``same_as_trained`` None) has no change
    to make but is not said to serve them (walk AY: "Serves the trained blocks on vLLM 0.34.0" for a draft whose
    rows said "same as trained: unknown")."""
    return not change_for(v, adv) and v.same_as_trained is True


def _lead(rows: Sequence[Verdict], adv: Advice, how: str = "", why: bool = False) -> str:
    """What rows with no change to make do: "Serves the trained blocks on ..." for those known to, and for those
    whose sameness is unknown the blocks they feed and that it is unknown (``why``: with the reason, when no row
    to act on follows to say it)."""
    known = [v for v in rows if v.same_as_trained is True]
    unknown = [v for v in rows if v.same_as_trained is not True]
    said = [f"Serves the trained blocks on {', '.join(v.label for v in known)}{how}"] if known else []
    if unknown:
        first = "" if known or not how.startswith(" (") else how  # "(the engine chosen above)" after the first
        feeds = ", ".join(
            f"{v.label}{'' if i else first} starts and feeds the draft {describe(v.captured) or 'nothing known'}"
            f" (ids from {v.ids_from or 'none'})"
            for i, v in enumerate(unknown)
        )
        reason = ": " + "; ".join(adv.why) if why and adv.why else ""
        said.append(f"{feeds}; whether these are the blocks it was trained on is unknown{reason}")
    return "; ".join(said)


def _ordered(todo: Sequence[Verdict]) -> list[Verdict]:
    """Rows to act on, in ``headline``'s order: a change before an engine that cannot serve, newest first."""
    return sorted(
        todo, key=lambda v: (v.status == "unsupported", _ORDER.get((v.engine, v.version), 9), v.runner != "v2")
    )


_ORDER = {("SGLang", "0.5.23"): 0, ("vLLM", "0.34.0"): 1, ("vLLM", "0.33.0"): 2, ("SGLang", "0.5.1"): 3}


def _headline(verdicts: Sequence[Verdict], adv: Advice) -> str:
    """``headline`` for no engine known: the first row to act on, or that every engine serves the trained blocks."""
    order = {("SGLang", "0.5.23"): 0, ("vLLM", "0.34.0"): 1, ("vLLM", "0.33.0"): 2, ("SGLang", "0.5.1"): 3}
    why = next((v.other_target for v in verdicts if v.other_target), "")
    if why:  # trained for another target: said first, whatever each engine's code does here
        starts = [v.label for v in verdicts if v.status == "unknown"]
        rest = [v.label for v in verdicts if v.status != "unknown"]
        said = (
            f"Not known to serve on this target: the draft was trained for another target ({why}). Set the target "
            "it was trained for, or check that this is the draft you meant."
        )
        if starts:
            said += f" {', '.join(starts)} would start with its config here; what it drafts is not known"
            return said + (f", and {', '.join(rest)} would not serve it (rows below)." if rest else ".")
        return said + f" {', '.join(rest)} would not serve it here either (rows below)."
    if verdicts and all(format_not_read(v) for v in verdicts):  # an EAGLE-3 path, but not for this format
        return f"{verdicts[0].label} {_not_loaded(adv)}: {change_for(verdicts[0], adv)}."
    if verdicts and all(v.status == "unsupported" for v in verdicts):
        return (
            "No engine serves an EAGLE-3 draft on this target: unsupported on "
            + ", ".join(v.label for v in verdicts)
            + f" ({verdicts[0].reason})."
        )
    todo = [v for v in verdicts if change_for(v, adv)]
    todo.sort(key=lambda v: (v.status == "unsupported", order.get((v.engine, v.version), 9), v.runner != "v2"))
    if not todo:
        return _lead(verdicts, adv, why=True) + "."
    # walk AI: an old version's row (SGLang 0.5.1 cannot serve Qwen3-Next) led though the newest versions of every
    # engine serve the trained blocks: their verdict leads, the older rows after
    newest = {e: ver for e, ver, _ in reversed(ENGINE_ROWS)}  # each engine's first row is its newest version
    current = [v for v in verdicts if newest.get(v.engine) == v.version]
    if current and not any(v in todo for v in current):
        return _lead(current, adv, ", the newest versions here") + f"; older: {_todo_words(todo, adv)}"
    return _todo_words(todo, adv)


def _todo_words(todo: Sequence[Verdict], adv: Advice) -> str:
    """The first row to act on (``todo``, in ``headline``'s order) and its change, and how many more."""
    first = todo[0]
    what = (
        "does not load this checkpoint as trained"
        if first.reason.startswith(AT_LOAD)
        else "does not start"
        if first.status == "fails"
        else (
            _not_loaded(adv)
            if format_not_read(first)
            else "cannot serve this target"
            if first.status == "unsupported"
            else "feeds the draft other blocks than trained"
        )
    )
    more = f" ({len(todo) - 1} more row(s) below)" if len(todo) > 1 else ""
    return f"{first.label} {what}: {change_for(first, adv)}{more}"
