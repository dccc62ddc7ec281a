"""Tests of the results page (studio/pages/results/)."""
