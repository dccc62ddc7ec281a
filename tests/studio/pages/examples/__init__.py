"""Tests of the examples page (studio/pages/examples/)."""
