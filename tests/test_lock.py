"""The lock holds the whole dependency tree at the versions pyproject.toml pins."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==([^\s;]+)")


def _name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def _pyproject_pins() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted += extra
    pins = {}
    for requirement in wanted:
        found = PIN.match(requirement)
        assert found, f"{requirement!r} is not pinned to one exact version"
        pins[_name(found[1])] = found[2]
    return pins


def _locked() -> dict[str, str]:
    lines = (ROOT / "requirements.lock").read_text().splitlines()
    return {_name(m[1]): m[2] for line in lines if (m := PIN.match(line))}


def test_every_pin_in_pyproject_is_in_the_lock_at_that_version():
    locked = _locked()
    stale = {
        name: (version, locked.get(name))
        for name, version in _pyproject_pins().items()
        if locked.get(name) != version
    }
    assert not stale, f"run `make lock`: pyproject pins vs the lock {stale}"


def test_every_locked_package_carries_a_hash():
    text = (ROOT / "requirements.lock").read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.strip())
    unhashed = [entry.split()[0] for entry in entries if "--hash=sha256:" not in entry]
    assert not unhashed
    assert len(entries) > 50  # the whole tree, not only the direct dependencies
