"""End-to-end tests: the real studio server driven by a real headless Chromium."""
