"""Tests of the scorers page (studio/pages/scorers/)."""
