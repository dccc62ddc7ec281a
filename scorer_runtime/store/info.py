"""How an entity leaves the store: a frozen dataclass copied from its table row.

Table rows (``*Record``) stay inside the store: a row is bound to its session, can be changed
by accident and written back on the next flush. What the studio, the CLI and batch runs get
is a ``*Info`` dataclass with the row's field names, so reading ``info.name`` reads as before.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

InfoT = TypeVar("InfoT", bound="DataclassInstance")


def info_of(cls: type[InfoT], record: Any) -> InfoT:
    """An ``cls`` holding the row's attributes of the same names (the row must be flushed)."""
    assert record.id is not None, "flush the record before handing it out"
    return cls(**{f.name: getattr(record, f.name) for f in fields(cls)})
