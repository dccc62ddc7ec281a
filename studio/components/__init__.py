"""Render-only widgets shared by the pages."""
