"""``make bench``'s driver: one table for every module, a failing or hanging module reported,
not fatal; and every real benchmark still runs to its figures (a smoke pass at tiny sizes).

No timing is asserted here (benchmarks are never tests): only that the driver puts the
figures of every module in one table, keeps going when one module fails, stops one that
hangs, and that no benchmark is broken.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
SMOKE_PASS_LIMIT_S = 1800
"""A safety net only: the driver stops any module past its own limit (bench/run.py)."""


def _load_driver():
    spec = importlib.util.spec_from_file_location("bench_driver_under_test", BENCH / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def driver(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(BENCH))  # the driver imports common; each module runs apart
    module = _load_driver()
    (tmp_path / "fake_good.py").write_text(
        "from common import Figure\n"
        "def run():\n"
        "    return [Figure('X1', 'a good figure', 42.0, 'units', '>= 1', True),\n"
        "            Figure('X1', 'a missed figure', 0.5, 'x', '<= 0.1', False, 'why')]\n"
    )
    (tmp_path / "fake_bad.py").write_text("def run():\n    raise RuntimeError('no server')\n")
    (tmp_path / "fake_hung.py").write_text(
        "import os, pathlib, threading\n"
        "HERE = pathlib.Path(__file__).parent\n"
        "def run():\n"
        "    try:\n"
        "        (HERE / 'hung.pid').write_text(str(os.getpid()))\n"
        "        threading.Event().wait()  # never set\n"
        "    finally:\n"
        "        (HERE / 'hung.closed').write_text('closed what it opened')\n"
    )
    monkeypatch.setattr(module, "HERE", tmp_path)
    monkeypatch.setattr(
        module,
        "MODULES",
        (
            ("X1", "fake_good"),
            ("X2", "fake_bad"),
            ("X3", "not_written_yet"),
            ("X5", "fake_hung"),
            ("X4", "fake_good"),
        ),
    )
    return module


def test_every_module_lands_in_one_table_and_a_failure_is_a_line(driver, capsys):
    assert driver.main(["--only", "X1,X2,X3"]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["id", "measure", "value"]
    assert sum(line.startswith("X1 ") for line in lines) == 2
    assert "a good figure" in out
    assert "NO" in next(line for line in lines if "a missed figure" in line)
    assert "      why" in lines
    failed = next(line for line in lines if line.startswith("X2 "))
    assert "fake_bad failed: RuntimeError: no server" in failed
    assert "not_written_yet" not in out  # a module not there yet is skipped


def test_only_runs_the_modules_asked_for(driver, capsys):
    assert driver.main(["--only", "X4"]) == 0
    assert "fake_bad" not in capsys.readouterr().out


def test_a_module_that_hangs_is_stopped_at_its_limit_and_reported_failed(driver, capsys, tmp_path):
    assert driver.main(["--only", "X5,X4", "--limit", "6"]) == 1
    lines = capsys.readouterr().out.splitlines()
    hung = next(line for line in lines if line.startswith("X5 "))
    assert "fake_hung failed: hung: no figures within 6 s" in hung
    assert sum(line.startswith("X1 ") for line in lines) == 2  # the next module still ran
    # Asked to stop, it closed what it had opened; then its process was gone.
    assert (tmp_path / "hung.closed").exists()
    with pytest.raises(ProcessLookupError):
        os.kill(int((tmp_path / "hung.pid").read_text()), 0)


@pytest.mark.e2e  # its P4 and P10 drive the studio in Chromium; P2r/P2k start a local Ray
def test_every_benchmark_runs_to_its_figures_in_a_smoke_pass():
    """``bench/run.py --smoke``: every module of ``make bench``, at tiny sizes, gives all its
    figures (a benchmark that breaks fails ``make test`` instead of rotting unseen)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_OFFLINE_MODE": "true"}
    command = [sys.executable, str(BENCH / "run.py"), "--smoke"]
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        out, err = process.communicate(timeout=SMOKE_PASS_LIMIT_S)
    finally:
        process.terminate()  # the driver then stops the module it runs (nothing once ended)
        process.wait(timeout=120)
    assert process.returncode == 0, f"{out}\n{err[-6000:]}"
    lines = out.splitlines()
    assert not [line for line in lines if " failed: " in line]
    shown = {line.split()[0] for line in lines[2:] if line and not line.startswith(" ")}
    for ids, name in _load_driver().MODULES:
        for figure_id in (i.strip() for i in ids.split(",")):
            assert figure_id in shown, f"{name} gave no {figure_id} figure:\n{out}"
