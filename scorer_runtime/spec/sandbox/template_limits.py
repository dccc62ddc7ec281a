"""The limits of prompt templates (plain numbers, importable without loading Jinja)."""

from __future__ import annotations

MAX_TEMPLATE_LENGTH = 50_000
"""Longest template accepted, in characters."""

MAX_RENDER_CHARS = 200_000
"""Longest prompt a template may render, in characters."""

MAX_RENDER_STEPS = 100_000
"""Most loop iterations plus calls in one render."""

MAX_RENDER_WORK = 5_000_000
"""Most characters produced along the way in one render (printed, captured, joined)."""

MAX_RANGE = 10_000
"""Most numbers ``range()`` may give."""

MAX_INDENT = 100
"""Widest indent the ``indent`` filter may add."""
