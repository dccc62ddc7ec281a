"""The Compare runs page: entry script page.py, and its widgets, reads and logic."""
