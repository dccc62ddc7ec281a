"""The home page's reads and its one write: what the database holds and which key variables
saved judges and scorers name (cached per database), and loading the demo data."""

from __future__ import annotations

from scorer_runtime.store import database_url
from scorer_runtime.store.views import Overview, read_overview
from studio import services
from studio.app_pages.home.logic import key_names_in_use


def overview() -> Overview:
    """What the database holds."""
    return _overview(database_url())


@services.cached(ttl=30)
def _overview(url: str) -> Overview:
    with services.reading() as session:
        return read_overview(session)


def key_names() -> dict[str, list[str]]:
    """Key variables named by saved judges and scorers (never their values)."""
    return _key_names(database_url())


@services.cached(ttl=30)
def _key_names(url: str) -> dict[str, list[str]]:
    with services.reading() as session:
        return key_names_in_use(session)
