"""``make bench``'s driver: one table for every module, a failing module reported, not fatal.

No timing is asserted here (benchmarks are never tests): only that the driver puts the
figures of every module in one table and keeps going when one module fails.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def driver(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = importlib.util.spec_from_file_location("bench_driver_under_test", BENCH / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (tmp_path / "fake_good.py").write_text(
        "from common import Figure\n"
        "def run():\n"
        "    return [Figure('X1', 'a good figure', 42.0, 'units', '>= 1', True),\n"
        "            Figure('X1', 'a missed figure', 0.5, 'x', '<= 0.1', False, 'why')]\n"
    )
    (tmp_path / "fake_bad.py").write_text("def run():\n    raise RuntimeError('no server')\n")
    monkeypatch.setattr(module, "HERE", tmp_path)
    monkeypatch.setattr(
        module,
        "MODULES",
        (("X1", "fake_good"), ("X2", "fake_bad"), ("X3", "not_written_yet"), ("X4", "fake_good")),
    )
    yield module
    for name in ("fake_good", "fake_bad"):
        sys.modules.pop(name, None)


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
