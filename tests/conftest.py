"""Shared fixtures: a fake OpenAI-compatible judge server, and a URL where nothing listens."""

from __future__ import annotations

import os

# Must run before anything imports litellm: no network fetch of the model cost map.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")

import socket
from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture(scope="session")
def fake_openai_server() -> Iterator[FakeOpenAIServer]:
    """One fake OpenAI server for the whole session (prefer ``fake_judge`` in tests)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def fake_judge(fake_openai_server: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    """The session's fake OpenAI server with no rules and an empty request log."""
    fake_openai_server.reset()
    yield fake_openai_server
    fake_openai_server.reset()


@pytest.fixture
def refused_base_url() -> str:
    """An ``api_base`` on 127.0.0.1 where nothing listens: connecting is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
