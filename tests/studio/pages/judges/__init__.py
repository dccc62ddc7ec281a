"""Tests of the judges page (studio/pages/judges/)."""
