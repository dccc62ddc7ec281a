"""Tests of the results page (studio/app_pages/results/)."""
