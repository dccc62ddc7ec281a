"""The Streamlit studio: pages and widgets on top of scorer_runtime (presentation only)."""
