"""Fixtures of the processor tests."""

from __future__ import annotations

import pytest

from tests.processors.retry_helpers import FakeSleep


@pytest.fixture
def sleep() -> FakeSleep:
    """A sleep that records the seconds asked for instead of waiting."""
    return FakeSleep()
