"""Example files in and out: CSV and JSONL, with every bad row reported by its line.

``parse_examples`` reads a whole file before anything is written (``ImportFailure`` lists
every bad row); ``import_examples`` and ``export_examples`` move examples between the store and
files; ``cells`` reads and writes one example field as a CSV cell or a JSONL value.

Names load on first use: parsing needs nothing heavy, the store functions load SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorer_runtime._lazy import lazy_exports

if TYPE_CHECKING:
    from scorer_runtime.datasets.cells import CellError, check_value, format_cell, parse_cell
    from scorer_runtime.datasets.files import (
        ImportResult,
        export_examples,
        import_examples,
        iter_dataset,
        write_examples,
    )
    from scorer_runtime.datasets.parsing import (
        REQUIRED_FIELDS,
        FileFormat,
        ImportFailure,
        ImportIssue,
        ParsedExamples,
        detect_format,
        parse_examples,
        parse_mapping,
        read_text,
    )

_MODULES = {
    "cells": ("CellError", "check_value", "format_cell", "parse_cell"),
    "files": (
        "ImportResult",
        "export_examples",
        "import_examples",
        "iter_dataset",
        "write_examples",
    ),
    "parsing": (
        "REQUIRED_FIELDS",
        "FileFormat",
        "ImportFailure",
        "ImportIssue",
        "ParsedExamples",
        "detect_format",
        "parse_examples",
        "parse_mapping",
        "read_text",
    ),
}

__all__ = [
    "REQUIRED_FIELDS",
    "CellError",
    "FileFormat",
    "ImportFailure",
    "ImportIssue",
    "ImportResult",
    "ParsedExamples",
    "check_value",
    "detect_format",
    "export_examples",
    "format_cell",
    "import_examples",
    "iter_dataset",
    "parse_cell",
    "parse_examples",
    "parse_mapping",
    "read_text",
    "write_examples",
]

__getattr__ = lazy_exports(__name__, _MODULES, globals())
