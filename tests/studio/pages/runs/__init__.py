"""Tests of the runs page (studio/pages/runs/)."""
