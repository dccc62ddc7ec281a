"""A clock for the judge's rate gate that moves only when the gate waits (no real waiting).

For tests of something other than the gate (a retry policy over real HTTP): a pause after a
429 then passes at once, in the order the gate would have waited it out.
"""

from __future__ import annotations

import asyncio
import time


class SteppedClock:
    """Unix seconds that start at the real time and advance by each ``sleep``."""

    def __init__(self) -> None:
        self.at = time.time()
        self.waits: list[float] = []

    def now(self) -> float:
        return self.at

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.at += max(seconds, 0.0)
        await asyncio.sleep(0)
