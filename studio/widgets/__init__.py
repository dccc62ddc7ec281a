"""Render-only widgets that two or more pages use."""
