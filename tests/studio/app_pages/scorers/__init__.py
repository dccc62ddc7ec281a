"""Tests of the scorers page (studio/app_pages/scorers/)."""
