"""The Export & import page: entry script page.py, and its widgets, reads and logic."""
