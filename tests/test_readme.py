"""The README's examples run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_readme_has_the_two_setup_commands():
    text = README.read_text()
    assert "make run" in text
    assert "make test" in text


def test_quick_start_prints_what_the_readme_says(tmp_path):
    blocks = _python_blocks()
    assert len(blocks) >= 2
    for i, block in enumerate(blocks):
        script = tmp_path / f"block{i}.py"
        script.write_text(block)
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
        expected = re.findall(r"print\(.*\)\s+# (.*)", block)
        assert done.stdout.splitlines() == expected
