"""Tests of the compare page (studio/pages/compare/)."""
