"""``ScorerRegistry``: the scorers a caller makes available by id (for trace scoring, the CLI,
the studio).

A registry is an ordinary object passed to whoever needs it, never a process-wide table
filled in as a side effect of imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from scorer_runtime.scorer import Scorer


class UnknownScorerError(LookupError):
    """No scorer is registered under the id asked for; the message lists the ids there are."""

    def __init__(self, scorer_id: str, known: list[str]) -> None:
        self.scorer_id = scorer_id
        self.known = known
        listed = ", ".join(repr(k) for k in known) if known else "none are registered"
        super().__init__(f"no scorer {scorer_id!r}; registered scorers: {listed}")

    def __str__(self) -> str:
        # LookupError's str() would show the repr of the message.
        return str(self.args[0])


class ScorerRegistry:
    """Scorers by id: register them, look one up, list them."""

    def __init__(self, scorers: Iterable[Scorer[Any, Any]] = ()) -> None:
        self._scorers: dict[str, Scorer[Any, Any]] = {}
        for scorer in scorers:
            self.register(scorer)

    def register(self, scorer: Scorer[Any, Any], *, replace: bool = False) -> Scorer[Any, Any]:
        """Add ``scorer`` under its id and return it.

        Raises ``ValueError`` when the id is taken (unless ``replace=True``) and ``TypeError``
        for anything that is not a scorer.
        """
        if not isinstance(scorer, Scorer):
            raise TypeError(
                f"only scorers made with create_scorer(...) can be registered, "
                f"not {type(scorer).__name__}"
            )
        if scorer.id in self._scorers and not replace:
            raise ValueError(
                f"a scorer with id {scorer.id!r} is already registered; "
                "pass replace=True to replace it"
            )
        self._scorers[scorer.id] = scorer
        return scorer

    def unregister(self, scorer_id: str) -> Scorer[Any, Any]:
        """Remove and return the scorer registered under ``scorer_id``."""
        self.get(scorer_id)
        return self._scorers.pop(scorer_id)

    def get(self, scorer_id: str) -> Scorer[Any, Any]:
        """The scorer registered under ``scorer_id``; :class:`UnknownScorerError` if none."""
        try:
            return self._scorers[scorer_id]
        except KeyError:
            raise UnknownScorerError(scorer_id, self.ids()) from None

    def ids(self) -> list[str]:
        """The registered ids, sorted."""
        return sorted(self._scorers)

    def scorers(self) -> list[Scorer[Any, Any]]:
        """The registered scorers, sorted by id."""
        return [self._scorers[i] for i in self.ids()]

    def __contains__(self, scorer_id: object) -> bool:
        return scorer_id in self._scorers

    def __iter__(self) -> Iterator[Scorer[Any, Any]]:
        return iter(self.scorers())

    def __len__(self) -> int:
        return len(self._scorers)

    def __repr__(self) -> str:
        return f"ScorerRegistry({self.ids()!r})"
