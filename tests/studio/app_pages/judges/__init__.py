"""Tests of the judges page (studio/app_pages/judges/)."""
