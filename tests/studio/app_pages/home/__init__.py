"""Tests of the home page (studio/app_pages/home/)."""
