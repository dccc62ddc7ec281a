"""Rules that keep the code easy to change, checked mechanically."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path


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


def _calls_of(name: str) -> list[str]:
    """Where the product code (scorer_runtime, studio) calls a function named ``name``."""
    root = Path(__file__).resolve().parents[1]
    found = []
    for path in sorted([*root.glob("scorer_runtime/**/*.py"), *root.glob("studio/**/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            called = node.func
            called_name = called.attr if isinstance(called, ast.Attribute) else None
            if isinstance(called, ast.Name):
                called_name = called.id
            if called_name == name:
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_every_run_is_created_by_the_run_start_service():
    """One way to start a run (scorer_runtime.runs): the store's create_run is called from
    nowhere else, so no caller can skip compiling, the key check or the cap check."""
    calls = _calls_of("create_run")
    assert calls, "the run-start service no longer creates runs?"
    assert all(call.startswith("scorer_runtime/runs/") for call in calls), calls


def test_the_studio_is_kept_from_every_store_submodule():
    """The contract "never a store submodule" names every module of the store but its
    package API and its views package: one added to the store is added to the contract
    (or this fails, naming it)."""
    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["name"].startswith("The studio uses the store's package API")
    )
    store = root / "scorer_runtime" / "store"
    modules = {
        "scorer_runtime."
        + ".".join(path.relative_to(root / "scorer_runtime").with_suffix("").parts)
        for path in [*store.glob("*.py"), *store.glob("views/*.py")]
        if path.name != "__init__.py"
    }
    packages = {
        f"scorer_runtime.store.{p.name}" for p in store.iterdir() if (p / "__init__.py").exists()
    }
    wanted = modules | (packages - {"scorer_runtime.store.views"})
    assert set(contract["forbidden_modules"]) == wanted
