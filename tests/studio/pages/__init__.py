"""Tests of the studio's pages, one folder per page as in studio/pages/ (a folder named pages here
would shadow studio.pages, since this test package is imported under the name studio)."""
