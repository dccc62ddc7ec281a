"""Example files in and out: CSV and JSONL, with every bad row reported by its line.

``parse_examples`` reads a whole file before anything is written (``ImportFailure`` lists
every bad row); ``import_examples`` and ``export_examples`` move examples between the store and
files; ``cells`` reads and writes one example field as a CSV cell or a JSONL value; ``labels``
reads people's grades of a scorer's examples (CSV, mapped and checked the same way; each row's
example found by id, number or content in ``label_match``) and ``label_export`` writes them;
``fit`` says whether a dataset's examples are what a scorer judges, before a run.

Names load on first use: parsing needs nothing heavy, the store functions load SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorer_runtime._lazy import lazy_exports

if TYPE_CHECKING:
    from scorer_runtime.datasets.cells import CellError, check_value, format_cell, parse_cell
    from scorer_runtime.datasets.csv_text import csv_records, header_problem
    from scorer_runtime.datasets.example_rows import REQUIRED_FIELDS, FileFormat
    from scorer_runtime.datasets.files import (
        ImportResult,
        export_examples,
        import_examples,
        iter_dataset,
        write_examples,
    )
    from scorer_runtime.datasets.issues import ImportFailure, ImportIssue
    from scorer_runtime.datasets.label_export import EXPORT_COLUMNS, grade_name, write_labels
    from scorer_runtime.datasets.label_match import LABEL_COLUMN_NAMES, label_columns
    from scorer_runtime.datasets.labels import (
        LABEL_FIELDS,
        LabelImport,
        LabelRow,
        ParsedLabels,
        import_labels,
        parse_labels,
        scorer_scale,
    )
    from scorer_runtime.datasets.parsing import (
        ExampleCheck,
        ParsedExamples,
        check_examples,
        decode_text,
        detect_format,
        parse_examples,
        parse_mapping,
        read_text,
    )

_MODULES = {
    "cells": ("CellError", "check_value", "format_cell", "parse_cell"),
    "csv_text": ("csv_records", "header_problem"),
    "files": (
        "ImportResult",
        "export_examples",
        "import_examples",
        "iter_dataset",
        "write_examples",
    ),
    "label_export": ("EXPORT_COLUMNS", "grade_name", "write_labels"),
    "label_match": ("LABEL_COLUMN_NAMES", "label_columns"),
    "labels": (
        "LABEL_FIELDS",
        "LabelImport",
        "LabelRow",
        "ParsedLabels",
        "import_labels",
        "parse_labels",
        "scorer_scale",
    ),
    "example_rows": ("REQUIRED_FIELDS", "FileFormat"),
    "issues": ("ImportFailure", "ImportIssue"),
    "parsing": (
        "ExampleCheck",
        "ParsedExamples",
        "check_examples",
        "decode_text",
        "detect_format",
        "parse_examples",
        "parse_mapping",
        "read_text",
    ),
}

__all__ = [
    "EXPORT_COLUMNS",
    "LABEL_COLUMN_NAMES",
    "LABEL_FIELDS",
    "REQUIRED_FIELDS",
    "CellError",
    "ExampleCheck",
    "FileFormat",
    "ImportFailure",
    "ImportIssue",
    "ImportResult",
    "LabelImport",
    "LabelRow",
    "ParsedExamples",
    "ParsedLabels",
    "check_examples",
    "check_value",
    "csv_records",
    "decode_text",
    "detect_format",
    "export_examples",
    "format_cell",
    "grade_name",
    "header_problem",
    "import_examples",
    "import_labels",
    "iter_dataset",
    "label_columns",
    "parse_cell",
    "parse_examples",
    "parse_labels",
    "parse_mapping",
    "read_text",
    "scorer_scale",
    "write_examples",
    "write_labels",
]

__getattr__ = lazy_exports(__name__, _MODULES, globals())
