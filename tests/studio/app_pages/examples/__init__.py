"""Tests of the examples page (studio/app_pages/examples/)."""
