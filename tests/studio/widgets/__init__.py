"""Tests of the widgets that two or more pages use (studio/widgets/)."""
