"""Widgets that two or more pages use, with their Streamlit-free logic (forms, score_view)."""
