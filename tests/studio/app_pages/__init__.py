"""Tests of the studio's pages, one folder per page as in studio/app_pages/."""
