"""The studio's pages, one folder each: the entry script page.py, its widgets, data, logic."""
