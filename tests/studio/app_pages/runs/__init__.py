"""Tests of the runs page (studio/app_pages/runs/)."""
