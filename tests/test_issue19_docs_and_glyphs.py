"""Issue 19 items the other tests reach only in part: 10 (verdict emoji rendered as tofu in Debian's chromium: the
pages use Material icons or text), 11 (README: which Python, a venv, the upload cap agreeing with the uploaders,
huggingface.co links through HF_ENDPOINT, what the torch pin gives) and 12 (the results store read by indexed
queries)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import sqlalchemy as sa

from comparelib import limits
from comparelib.live import store as store_mod

ROOT = Path(__file__).resolve().parents[1]
# emoji and pictographs (no glyph in Debian's chromium fonts: walk's "tofu"), dingbats, variation selector 16
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0f]")


def test_no_string_the_app_shows_holds_an_emoji() -> None:
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "comparelib").rglob("*.py"))]
    hits = [
        f"{p.relative_to(ROOT)}:{n.lineno} {EMOJI.findall(n.value)}"
        for p in files
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and EMOJI.search(n.value)
    ]
    assert len(files) > 40 and not hits, hits
    # the verdict badges are Material icons (a font Streamlit ships), not emoji
    scaling = (ROOT / "pages" / "scaling.py").read_text(encoding="utf-8")
    for icon in (":material/trending_up:", ":material/trending_flat:", ":material/trending_down:"):
        assert icon in scaling, icon


def _setup_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Set up")
    return text[start : text.index("\n## ", start + 1)]


def test_readme_says_the_python_the_venv_the_torch_pin_and_hf_endpoint() -> None:
    setup = _setup_section()
    assert "Python 3.11" in setup and "python3.11 -m venv .venv" in setup, setup[:400]
    assert (
        "torch==2.13.0" in setup
        and "CUDA build" in setup
        and "--index-url https://download.pytorch.org/whl/cpu" in setup
    )
    assert "https://huggingface.co/" in setup and "HF_ENDPOINT" in setup


def test_readme_upload_cap_agrees_with_the_uploaders() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    mb = config["server"]["maxUploadSize"]
    assert limits.UPLOAD_BYTES.default == mb * 2**20, (limits.UPLOAD_BYTES.default, mb)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"default {mb} MiB" in readme and f'"{mb}MB per file"' in readme
    assert "1GB per file" not in readme.replace('printed 512 as "1GB per file"', "")


def test_the_runs_a_page_reads_are_found_by_index(tmp_path: Path) -> None:
    """Every page reads a run group's runs (``Store.runs(group=...)``) and a draft's kept curve: by an index, not a
    scan of the whole table, so a store of many runs stays fast."""
    s = store_mod.Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    s.ensure_examples()
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'r.sqlite'}")
    with engine.connect() as conn:
        plan = conn.exec_driver_sql("EXPLAIN QUERY PLAN SELECT id FROM runs WHERE run_group = 'g'").fetchall()
        kinds = conn.exec_driver_sql("EXPLAIN QUERY PLAN SELECT id FROM runs WHERE kind != 'example'").fetchall()
    detail = " ".join(str(r[-1]) for r in plan)
    assert "USING INDEX" in detail or "USING COVERING INDEX" in detail, detail
    indexed = {c for ix in sa.inspect(engine).get_indexes("runs") for c in ix["column_names"]}
    assert {"run_group", "kind"} <= indexed, indexed
    assert kinds  # the planner answered for the other filter too
