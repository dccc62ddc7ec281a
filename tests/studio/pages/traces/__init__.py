"""Tests of the traces page (studio/pages/traces/)."""
