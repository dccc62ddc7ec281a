"""Scorer definitions as data: specs, the step registry, formulas, templates, compile, export."""
