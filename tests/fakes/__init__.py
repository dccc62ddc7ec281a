"""Test doubles for the services Scorer Studio talks to."""
