"""A small real tokenizer for the audit tests: byte-level BPE trained here, plus a chat template.

Built with the ``tokenizers`` library from text in the tests (no download), saved as
``tokenizer.json`` + ``tokenizer_config.json`` the way a Hub repo ships them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

# A ChatML template in the Qwen style (system default, trim on content), with a BOS variable.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are helpful.<|im_end|>\n' }}{% endif %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# A Llama-3 style template: header tokens, blank line, content | trim, eot token.
LLAMA3_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim"
    " + '<|eot_id|>' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)

SPECIAL_TOKENS = [
    "<|begin_of_text|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
]

TRAIN_TEXT = [
    "The quick brown fox jumps over the lazy dog. " * 3,
    "def add(a, b):\n    return a + b\n\nprint(add(2, 3))\n",
    "Solve for x: 2x + 3 = 11, so x = 4. The answer is \\boxed{4}.",
    "User asks a question and the assistant answers it helpfully, politely and with care.",
    "你好，世界。这是一个测试。日本語のテキストも少しあります。",
    "Hello! How are you today? I am fine, thank you. What can I help you with?",
]


def build_tokenizer(
    folder: Path,
    texts: Iterable[str] = (),
    vocab_size: int = 600,
    template: str | None = CHATML_TEMPLATE,
    prefix_space: bool = False,
) -> Path:
    """Train a byte-level BPE on ``texts`` (plus a built-in sample), save it in ``folder``.

    ``prefix_space=True`` gives a tokenizer whose pieces cannot be counted separately (the audit
    must then fall back to offsets), like GPT-2 with add_prefix_space.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix_space)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(list(TRAIN_TEXT) + list(texts), trainer=trainer)
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    config: dict[str, object] = {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>", "model_max_length": 4096}
    if template is not None:
        config["chat_template"] = template
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder
