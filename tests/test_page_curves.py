"""The learning-curve section of the "Acceptance vs data" page, driven with AppTest."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import page_app


def _texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [m.value for m in at.caption] + [m.value for m in at.error]
    return "\n".join(parts)


def _specforge_log(path: Path) -> Path:
    """A SpecForge console log (specforge/training/assembly.py::_logger lines), still rising."""
    lines = []
    for step in range(100, 5001, 100):
        a = 0.92 - 0.5 * (step / 100) ** -0.35
        d = {f"acc_{i}": round(a * 0.97**i, 6) for i in range(4)} | {"ploss_0": 1.0, "loss": 2.0, "lr": 1e-4}
        lines.append(f"step {step}: {d}")
        if step % 500 == 0:
            ev = [round(a * 0.97**i - 0.02, 6) for i in range(4)]
            lines.append(f"step {step}: {{'eval/avg_loss': 1.0, 'eval/per_position_acc': {ev}}}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _frame(at: AppTest, column: str):  # type: ignore[no-untyped-def]
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.fixture()
def at() -> AppTest:
    app = page_app("../pages/scaling.py", timeout=120)
    app.session_state["sc_tab"] = "Learning curve"  # built only while shown
    app.session_state["lc_evidence_open"] = True  # the curve's points are built when this fold-out is opened
    app.run()
    assert not app.exception, app.exception
    return app


def test_no_log_no_chart(at: AppTest) -> None:
    assert "Upload a training log or give a path" in _texts(at)
    assert at.number_input(key="lc_steps").value == 3  # from the chosen setting's num_steps
    assert len(at.get("vega_lite_chart")) == 1  # the fit's only: the live tab is not shown, so not built


def test_log_path_gives_verdict_chart_and_context(at: AppTest, tmp_path: Path) -> None:
    log = _specforge_log(tmp_path / "train.log")
    at.text_input(key="lc_path").input(str(log))
    at.number_input(key="lc_batch").set_value(32)
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    text = _texts(at)
    assert "still rising" in text and "at 2x" in text and "at 10x" in text
    assert "eval tau_sim" in text  # 10 eval points: the held-out split is the one fitted
    # R² to three places, as the CLI prints it: 0.995 read "R² = 1.00", a perfect fit (walk BB)
    assert re.search(r"; R² = \d\.\d{3}, residual SE", text), text
    charts = at.get("vega_lite_chart")
    assert len(charts) == 2  # the fit's, plus the learning curve (the live tab's are not built)
    spec = json.loads(charts[-1].proto.spec)
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks[:3] == ["area", "line", "point"]  # band, fit, logged points
    assert "point" in marks[3:]  # published drafts at this setting
    # the example group's live run drafts 2 steps, the curve sums 3 positions: not on its scale, so not drawn, and
    # said (walk BH: a 4-step run's 3.46 was drawn over a 3-position curve whose table refused the comparison)
    assert "rule" not in marks[3:], marks
    assert "Not drawn on the curve (it sums 3 positions): #" in text and " at num_steps 2." in text, text
    assert spec["layer"][2]["encoding"]["x"]["scale"]["type"] == "log"
    table = _frame(at, "tau_sim")
    assert len(table) == 60 and set(table["split"]) == {"train", "eval"}
    first = table.iloc[0]
    acc = [first[f"acc_{i}"] for i in range(3)]  # tau over the first 3 positions (steps=3)
    assert first["tau_sim"] == pytest.approx(1 + acc[0] + acc[0] * acc[1] + acc[0] * acc[1] * acc[2])
    assert first["samples_seen"] == first["step"] * 32
    assert "lc_dl_csv" in [b.key for b in at.get("download_button")]
    assert len(_frame(at, "draft")) >= 1
    live = _frame(at, "tau_sim_last")  # the example run group: one live run at 2 steps
    assert live["accept_length"].tolist() == [2.1]
    last_eval = table[table["split"] == "eval"].iloc[-1]
    assert live["tau_sim_last"].iloc[0] == pytest.approx(
        1 + last_eval["acc_0"] + last_eval["acc_0"] * last_eval["acc_1"]
    )


def test_all_positions_and_train_split(at: AppTest, tmp_path: Path) -> None:
    log = _specforge_log(tmp_path / "train.log")
    at.text_input(key="lc_path").input(str(log))
    at.number_input(key="lc_steps").set_value(0)
    at.radio(key="lc_split").set_value("train")
    at.run()
    assert not at.exception and not at.error
    table = _frame(at, "tau_sim")
    assert "acc_3" in table.columns
    assert "train tau_sim" in _texts(at)
    assert "x axis is steps" in _texts(at)  # no batch size given


def test_the_page_and_the_cli_state_the_positions_they_read(
    at: AppTest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same log read 3 positions on the page (the setting's num_steps) and all 4 on the CLI, without a word."""
    from comparelib import cli

    log = _specforge_log(tmp_path / "train.log")
    at.text_input(key="lc_path").input(str(log))
    at.run()
    assert not at.exception and not at.error
    assert "tau_sim over 3 positions (num_steps 3; the log gave 4)" in _texts(at), _texts(at)
    said = next(m.value for m in at.markdown if "tau_sim over 3 positions" in m.value)
    assert "still rising" in said and "'Draft positions used' (How to read the log) sets them" in said, said
    assert cli.main(["curve", str(log)]) == 0
    assert "tau_sim over 4 positions (num_steps 4: all the log gave" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), ("just words\n", "no training metrics recognised")],
)
def test_bad_log_is_an_error_not_a_traceback(at: AppTest, tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "x.log"
    if content is not None:
        path.write_text(content)
    at.text_input(key="lc_path").input(str(path))
    at.run()
    assert not at.exception
    assert any(message in e.value for e in at.error)


def test_too_few_points(at: AppTest, tmp_path: Path) -> None:
    path = tmp_path / "short.csv"
    rows = ["step,acc_0,acc_1"] + [f"{s},{0.5 + 0.01 * s:.3f},0.5" for s in (1, 2, 3)]
    path.write_text("\n".join(rows) + "\n")
    at.text_input(key="lc_path").input(str(path))
    at.run()
    assert not at.exception and not at.error
    assert "too few points" in _texts(at)
    assert np.isfinite(_frame(at, "tau_sim")["tau_sim"]).all()


def test_uploaded_tensorboard_events_file(at: AppTest, tmp_path: Path) -> None:
    """An events file as SpecForge's TensorboardTracker writes it, uploaded through the page."""
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(log_dir=str(tmp_path / "runs"))
    for step in range(50, 1001, 50):
        a = 0.9 - 0.5 * (step / 50) ** -0.4
        for i in range(3):
            w.add_scalar(f"train/acc_{i}", a, global_step=step)
        w.add_scalar("train/loss", 1.0, global_step=step)
    w.close()
    events = next((tmp_path / "runs").glob("*tfevents*"))
    at.file_uploader[0].set_value((events.name, events.read_bytes(), "application/octet-stream"))
    at.number_input(key="lc_batch").set_value(16)
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    table = _frame(at, "tau_sim")
    assert len(table) == 20 and set(table["split"]) == {"train"}
    assert table["samples_seen"].tolist() == [s * 16.0 for s in range(50, 1001, 50)]
    a = float(table.iloc[-1]["acc_0"])  # float32 as stored by TensorBoard
    assert table.iloc[-1]["tau_sim"] == pytest.approx(1 + a + a * a + a**3)
    assert "still rising" in _texts(at)


def test_a_live_run_at_the_curves_positions_is_drawn(at: AppTest, tmp_path: Path) -> None:
    """Read at 2 positions, the curve is on the scale of the example's 2-step run: its rule is drawn."""
    log = _specforge_log(tmp_path / "train.log")
    at.text_input(key="lc_path").input(str(log))
    at.number_input(key="lc_steps").set_value(2)
    at.run()
    assert not at.exception, at.exception
    spec = json.loads(at.get("vega_lite_chart")[-1].proto.spec)
    assert "rule" in [layer["mark"]["type"] for layer in spec["layer"]][3:]
    assert "Not drawn on the curve" not in _texts(at)
