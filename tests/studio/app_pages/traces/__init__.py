"""Tests of the traces page (studio/app_pages/traces/)."""
