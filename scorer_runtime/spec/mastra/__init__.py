"""Export a scorer as a TypeScript module for Mastra's ``createScorer`` (``@mastra/core`` 1.71)."""

from __future__ import annotations

from scorer_runtime.spec.mastra.formula_ts import Untranslatable
from scorer_runtime.spec.mastra.module import (
    MastraExport,
    MastraExportError,
    export_mastra,
)

__all__ = ["MastraExport", "MastraExportError", "Untranslatable", "export_mastra"]
