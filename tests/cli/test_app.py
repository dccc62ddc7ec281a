"""The CLI finds the studio through the installed package, not a path next to its own file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_studio_entry_script_is_the_installed_studio_packages_serve_file(tmp_path):
    # In a fresh interpreter away from the repository, as the installed CLI runs: only the
    # installed package can answer there, never a studio/ folder next to the working directory.
    code = "from scorer_runtime.cli.app import studio_entry\nwith studio_entry() as p: print(p)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    path = Path(done.stdout.strip())
    assert path == ROOT / "studio" / "serve.py"
    assert "HostGuard" in path.read_text(encoding="utf-8")  # the pages behind the host guard
    assert "st.navigation" in path.with_name("app.py").read_text(encoding="utf-8")
