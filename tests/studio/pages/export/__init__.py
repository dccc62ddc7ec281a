"""Tests of the export page (studio/pages/export/)."""
