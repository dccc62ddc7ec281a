"""The Review page: people grade examples on the scorer's own scale (page.py is the entry)."""
