"""Tests of the compare page (studio/app_pages/compare/)."""
