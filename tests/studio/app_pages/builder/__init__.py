"""Tests of the builder page (studio/app_pages/builder/)."""
