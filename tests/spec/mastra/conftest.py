"""Node 22 with @mastra/core 1.71 and zod 4, installed from npm once into .cache/mastra-node.

The folder is reused while its package.json and package-lock.json match the ones committed
here (``npm ci`` installs exactly the lock); the tests are skipped, with the reason printed,
only when npm is missing or cannot install.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CACHE = ROOT / ".cache" / "mastra-node"


@dataclass(frozen=True)
class MastraNode:
    """A Node binary and a folder whose node_modules hold @mastra/core and zod."""

    folder: Path

    @property
    def node(self) -> Path:
        return self.folder / "node_modules" / "node" / "bin" / "node"

    def score(self, module_text: str, name: str, examples: list[dict[str, Any]]) -> Any:
        """Run an exported module on ``examples`` in one Node process; its JSON results."""
        return self.score_many([(module_text, name, examples)])[0]

    def score_many(self, runs: list[tuple[str, str, list[dict[str, Any]]]]) -> list[Any]:
        """Several (module, name, examples) in one Node process (start-up costs seconds)."""
        work = self.folder / "work"
        work.mkdir(exist_ok=True)
        paths: list[str] = []
        for module_text, name, examples in runs:
            module, data = work / f"{name}.ts", work / f"{name}.examples.json"
            module.write_text(module_text, encoding="utf-8")
            data.write_text(json.dumps(examples), encoding="utf-8")
            paths += [str(module), str(data)]
        command = [str(self.node), "--experimental-strip-types", "--no-warnings"]
        done = subprocess.run(
            [*command, str(HERE / "runner.mjs"), *paths],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "OPENAI_API_KEY": "sk-test-key"},
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        results: list[Any] = json.loads(done.stdout)
        return results


_FILES = ("package.json", "package-lock.json")


def _install() -> str | None:
    """Install into CACHE if needed (exactly the committed lock); the reason it could not."""
    wanted = {name: (HERE / name).read_text(encoding="utf-8") for name in _FILES}
    ready = CACHE / "node_modules" / "@mastra" / "core" / "package.json"
    stamp = CACHE / "installed-from.json"
    if ready.exists() and stamp.exists() and json.loads(stamp.read_text("utf-8")) == wanted:
        return None
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed, so Node 22 and @mastra/core cannot be fetched"
    CACHE.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    for name, text in wanted.items():
        (CACHE / name).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"],
        cwd=CACHE,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        return f"npm could not install Node 22 and @mastra/core: {done.stderr.strip()[-500:]}"
    stamp.write_text(json.dumps(wanted), encoding="utf-8")
    return None


@pytest.fixture(scope="session")
def mastra_node() -> MastraNode:
    """Node 22 and @mastra/core 1.71 from the cache (installed on first use)."""
    reason = _install()
    if reason is not None:
        print(reason)
        pytest.skip(reason)
    found = MastraNode(CACHE)
    version = subprocess.run(
        [str(found.node), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    major, minor = (int(part) for part in version.lstrip("v").split(".")[:2])
    assert (major, minor) >= (22, 13), f"Node {version} is too old for type stripping"
    return found
