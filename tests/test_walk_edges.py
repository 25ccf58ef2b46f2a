"""Walk U's edges: what the pages and the CLI said that the user's own evidence did not support."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from comparelib import cli
from comparelib.analysis import curves
from tests.fixtures import page_app, page_text

# ---------------------------------------------------------------- 1. a fitted ceiling below the measured peak


def _acc_for(tau: float) -> float:
    """The accuracy a (same at each of 3 positions) whose tau_sim is ``tau``."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if curves.tau_sim((mid,) * 3) < tau else (lo, mid)
    return round(lo, 5)


def _curve_csv(path: Path, eval_tau: tuple[float, ...], train_tau: float = 2.30) -> Path:
    """A CSV log: an eval point every 500 steps (24 samples a step), train acceptance flat at ``train_tau``."""
    tr = _acc_for(train_tau)
    rows = ["step,samples_seen,train/acc_0,train/acc_1,train/acc_2,eval/acc_0,eval/acc_1,eval/acc_2"]
    for i, tau in enumerate(eval_tau):
        step = (i + 1) * 500
        a = _acc_for(tau)
        rows.append(f"{step},{step * 24},{tr},{tr},{tr},{a},{a},{a}")
    path.write_text("\n".join(rows) + "\n")
    return path


# walk U: eval rises to 2.42, then falls 0.09 with scatter (within noise, so "Flat"), train flat; the fit's
# ceiling 2.39 sits below the measured 2.42
NOISY_FALL = (2.20, 2.35, 2.40, 2.42, 2.38, 2.41, 2.33)
NOISY_FALL_2 = (2.10, 2.30, 2.38, 2.36, 2.42, 2.35, 2.40, 2.33)
SATURATING = (2.05, 2.25, 2.33, 2.37, 2.39, 2.40, 2.40, 2.41)  # its fit's ceiling 2.46 is above every point

CEILING_CASES = [
    # name, eval tau_sim, the measured peak the sentence must name (None: the fit's ceiling may be said)
    ("walk U", NOISY_FALL, "2.42 at 48K samples seen"),
    ("walk U, later peak", NOISY_FALL_2, "2.42 at 60K samples seen"),
    ("saturating", SATURATING, None),
]


@pytest.mark.parametrize(("name", "eval_tau", "peak"), CEILING_CASES, ids=[c[0] for c in CEILING_CASES])
def test_a_fitted_ceiling_below_the_measured_peak_is_not_said_as_the_ceiling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, eval_tau: tuple[float, ...], peak: str | None
) -> None:
    log = _curve_csv(tmp_path / "log.csv", eval_tau)
    c = curves.curve([log])
    assert c.fit is not None
    assert cli.main(["curve", str(log)]) == 0
    out = capsys.readouterr().out
    said = c.sentence
    assert said in out  # the CLI prints the library's sentence
    if peak is None:
        assert c.fit.tau_inf > max(eval_tau)
        assert f"(ceiling {c.fit.tau_inf:.2f})" in said, said
        assert "measured_peak" not in c.evidence
        return
    fitted = f"{c.fit.tau_inf:.2f}"
    assert float(fitted) < max(eval_tau)  # the case holds: the fit runs below the peak
    assert f"(ceiling {fitted})" not in said, said
    assert f"eval tau_sim peaked at {peak}, measured" in said, said
    assert f"the fit's ceiling {fitted} is below it" in said, said
    assert c.evidence["measured_peak"]["tau_sim"] == pytest.approx(2.42, abs=0.005)
    assert c.evidence["fit_ceiling_below_peak"] is True


def test_the_learning_curve_tab_says_the_measured_peak_not_the_fits_ceiling(tmp_path: Path) -> None:
    log = _curve_csv(tmp_path / "log.csv", NOISY_FALL)
    at = page_app("../pages/scaling.py", timeout=120)
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    at.text_input(key="lc_path").input(str(log))
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    text = page_text(at)
    assert "plateau" in text
    assert "(ceiling 2.39)" not in text, text
    assert "eval tau_sim peaked at 2.42 at 48K samples seen, measured" in text, text
    assert "the fit's ceiling 2.39 is below it" in text, text


# ---------------------------------------------------------------- 2. a safetensors file that holds only its header

ST_TENSORS = {"fc.weight": ((64, 128), "bf16"), "norm.weight": ((64,), "bf16")}  # 16,384 + 128 bytes of data
ST_DATA = 64 * 128 * 2 + 64 * 2


@pytest.mark.parametrize(
    ("name", "present", "words"),
    [
        ("header only", 0, ["holds only its header", f"{ST_DATA:,} bytes of tensor data", "0 present"]),
        ("cut short", 1000, ["is truncated", f"{ST_DATA:,} bytes of tensor data", "1,000 present"]),
    ],
)
def test_a_truncated_local_safetensors_file_is_refused_with_what_to_do(
    tmp_path: Path, name: str, present: int, words: list[str]
) -> None:
    from comparelib.errors import ConfigError
    from comparelib.models import hub as hublib
    from tests.hub_emulator import write_safetensors_bytes

    full = write_safetensors_bytes(ST_TENSORS)
    cut = full[: len(full) - ST_DATA + present]
    path = tmp_path / "model.safetensors"
    path.write_bytes(cut)
    with pytest.raises(ConfigError) as caught:
        hublib.read_safetensors_header(path)
    said = str(caught.value)
    for w in words:
        assert w in said, said
    assert "re-download" in said and "full file" in said, said  # what to do
    assert "on the Hub" not in said, said
    # a whole file still reads
    path.write_bytes(full)
    assert set(hublib.read_safetensors_header(path)) == set(ST_TENSORS)


def test_a_header_only_safetensors_file_on_the_hub_is_said_as_truncated_on_the_hub(hub: Any) -> None:
    from comparelib.errors import ConfigError
    from comparelib.models import hub as hublib
    from tests.hub_emulator import write_safetensors_bytes

    config = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_size": 64}
    hub.add_model(
        "org/cut-draft", config, extra_files={"model.safetensors": write_safetensors_bytes(ST_TENSORS, fill=False)}
    )
    with pytest.raises(ConfigError) as caught:
        hublib.fetch_model("org/cut-draft")
    said = str(caught.value)
    assert "org/cut-draft" in said and "model.safetensors" in said, said
    assert "holds only its header" in said and f"{ST_DATA:,} bytes of tensor data" in said, said
    assert "byte ranges" in said and "the file on the Hub is truncated" in said, said
