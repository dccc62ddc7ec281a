"""The Build a scorer page: entry script page.py, and its widgets, reads and logic."""
