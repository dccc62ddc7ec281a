"""Tests of the home page (studio/pages/home/)."""
