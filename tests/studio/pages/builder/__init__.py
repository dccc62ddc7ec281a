"""Tests of the builder page (studio/pages/builder/)."""
