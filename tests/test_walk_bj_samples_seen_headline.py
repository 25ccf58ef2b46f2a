"""Overview's headline: a training-data gap counted in samples seen says the unique samples' gap too (walk BJ, 4).

With 250,000 samples typed in and a log of 6 passes over about 40K, the headline read "The largest gap is training
data: 250K samples against 1.4M (5.6x fewer)" where the published 1.4M counts unique samples: 35x fewer. The bullet
below said the unique reading; the headline did not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures import cli_in_process
from tests.test_walk_bj_volume_gap_bench import CARD, CONFIG

LOG = """\
step,samples_seen,epoch,split,acc_0,acc_1,acc_2,acc_3
312,20000,0.5,train,0.6000,0.5500,0.5200,0.5000
625,40000,1.0,train,0.6600,0.6100,0.5800,0.5600
625,40000,1.0,eval,0.6000,0.5400,0.5000,0.4700
937,60000,1.5,train,0.6951,0.6451,0.6151,0.5951
1250,80000,2.0,train,0.7200,0.6700,0.6400,0.6200
1250,80000,2.0,eval,0.6600,0.6000,0.5600,0.5300
1562,100000,2.5,train,0.7393,0.6893,0.6593,0.6393
1875,120000,3.0,train,0.7551,0.7051,0.6751,0.6551
1875,120000,3.0,eval,0.7000,0.6400,0.6000,0.5700
2187,140000,3.5,train,0.7684,0.7184,0.6884,0.6684
2500,160000,4.0,train,0.7800,0.7300,0.7000,0.6800
2500,160000,4.0,eval,0.6800,0.6200,0.5800,0.5500
2812,180000,4.5,train,0.7902,0.7402,0.7102,0.6902
3125,200000,5.0,train,0.7993,0.7493,0.7193,0.6993
3125,200000,5.0,eval,0.6400,0.5800,0.5400,0.5100
3437,220000,5.5,train,0.8076,0.7576,0.7276,0.7076
3750,240000,6.0,train,0.8151,0.7651,0.7351,0.7151
3750,240000,6.0,eval,0.6000,0.5400,0.5000,0.4700
"""


@pytest.fixture()
def draft(tmp_path: Path) -> Path:
    folder = tmp_path / "coder-eagle3"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    (folder / "README.md").write_text(CARD, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("samples", "said"),
    [
        # 6 passes over 40K: 35x fewer unique samples than 1.4M, beside the headline's 5.6x
        (
            "250000",
            "That counts samples seen: your training log reads them as 6 passes over about 40K unique samples, 35x "
            "fewer than the reference's 1.4M, which counts unique samples.",
        ),
        ("30000", None),  # the log does not read 30K as its passes: no caveat
    ],
)
def test_headline_says_the_unique_gap(
    draft: Path, tmp_path: Path, samples: str, said: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.csv"
    log.write_text(LOG, encoding="utf-8")
    done = cli_in_process(capsys, "overview", str(draft), "--samples", samples, "--curve", str(log))
    assert done.returncode == 0, done.stderr
    head = next(x for x in done.stdout.splitlines() if x.startswith("The largest gap is training data"))
    if said is None:
        assert "That counts samples seen" not in head, head
    else:
        assert said in head, head
        assert "(5.6x fewer)" in head, head
