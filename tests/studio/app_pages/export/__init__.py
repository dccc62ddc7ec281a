"""Tests of the export page (studio/app_pages/export/)."""
