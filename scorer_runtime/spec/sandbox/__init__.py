"""The safe evaluation engine behind formulas and templates: allow-listed syntax, bounded work.

Private to :mod:`scorer_runtime.spec`; use :func:`~scorer_runtime.spec.formula` and
:func:`~scorer_runtime.spec.template`.
"""
