"""Rules that keep the code easy to change, checked mechanically."""

from __future__ import annotations

import subprocess
import sys


def _modules_after_import(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(done.stdout.split())


def test_importing_the_runtime_loads_no_heavy_or_ui_library():
    loaded = _modules_after_import("import scorer_runtime")
    for heavy in ("litellm", "openai", "streamlit", "jsonschema", "sqlalchemy", "httpx", "ray"):
        assert heavy not in loaded, f"import scorer_runtime loads {heavy}"


def test_only_the_ray_engine_imports_ray():
    loaded = _modules_after_import(
        "import scorer_runtime.batch.runner, scorer_runtime.batch.pool, scorer_runtime.cli.runs"
    )
    assert "ray" not in loaded
    assert "ray" in _modules_after_import("import scorer_runtime.batch.ray_engine")
