"""Walk BQ 4: an SGLang server kept serving speculative_num_steps 2 (a relaunch failed), and two runs made with the
form at num_steps 3 and 4 were stored as num_steps 3 and 4 (with 3 draft tokens), silently: the sweep then read three
repeats of num_steps 2 as a tie between 2, 3 and 4. What SGLang's server_info reports is what ran; a form value that
disagrees is set aside (kept under ``raw``) and said in the run's notes. vLLM, which reports no setting, still takes
the form's."""

from __future__ import annotations

import pytest

from comparelib.live import bench, prompts, servers
from comparelib.live.store import Store

CASES = [
    # engine, the server's num_steps, the form's spec, the num_steps stored, a note said
    ("sglang", 2, {"num_steps": 3}, 2, "the server reports num_steps 2; the form's num_steps 3 was not recorded"),
    ("sglang", 2, {"num_steps": 2}, 2, None),  # the form agrees: nothing to say
    ("sglang", 2, {"num_steps": 4, "topk": 1}, 2, "the form's num_steps 4 was not recorded"),  # topk 1 agrees
    ("vllm", 4, {"num_steps": 3}, 3, None),  # vLLM reports no setting: the form's stands
]


@pytest.mark.parametrize(("engine", "served", "spec", "stored", "note"), CASES)
def test_sglang_reported_settings_win_over_the_form(
    fake_server, tmp_path, engine: str, served: int, spec: dict, stored: int, note: str | None
) -> None:
    server = fake_server(engine, ttft_s=0.0, chunk_delay_s=0.0, tokens_per_chunk=2, num_steps=served, output_tokens=8)
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    run = bench.benchmark(
        bench.BenchOptions(endpoint=server.url, concurrency=2, requests=4, warmup=0, max_tokens=8, spec_override=spec),
        prompts=prompts.load_prompts(),
        recorder=store,
    )
    record = store.runs()[-1]
    assert record.num_steps == stored, record.server_config
    said = [n for n in run.summary.notes if "was not recorded (the server's setting is what ran)" in n]
    if note is None:
        assert not said, run.summary.notes
        assert servers.SPEC_SET_ASIDE not in (run.server_config.raw or {})
    else:
        assert said and note in said[0], run.summary.notes
        assert run.server_config.raw[servers.SPEC_SET_ASIDE]["num_steps"]["stated"] == spec["num_steps"]
