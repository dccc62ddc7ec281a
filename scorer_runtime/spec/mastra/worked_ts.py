"""A judge step's worked examples as TypeScript: the same block the runtime puts first.

The block's parts come from :func:`scorer_runtime.judge.worked.example_parts` (the one
rendering), worked out here in Python and written as text constants, so the Mastra prompt
holds the very same characters. For a hardened judge each judged value goes through
``dataFence`` with the prompt's code, as the template's own values do, and the rest of the
block is neutralised as the runtime neutralises it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from scorer_runtime.judge.fence import neutralise
from scorer_runtime.judge.worked import example_parts
from scorer_runtime.spec.mastra.formula_ts import FormulaTranslator
from scorer_runtime.spec.models import WorkedExampleSpec


def example_lines(
    examples: Sequence[WorkedExampleSpec] | None, formulas: FormulaTranslator, *, harden: bool
) -> list[str]:
    """Statements adding the examples block to ``out`` (``[]`` for none); a hardened judge's
    lines use the prompt's ``nonce``, so they go after it is made."""
    parts = example_parts([example.example() for example in examples or ()])
    lines: list[str] = []
    text = ""
    for part, judged in parts:
        if judged and harden:
            lines += [_append(text)] if text else []
            text = ""
            value = json.dumps(part, ensure_ascii=False)
            lines.append(formulas.use("dataFence", f"out += dataFence({value}, nonce)"))
        else:
            text += neutralise(part) if harden else part
    return lines + ([_append(text)] if text else [])


def _append(text: str) -> str:
    return f"out += {json.dumps(text, ensure_ascii=False)}"
