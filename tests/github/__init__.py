"""Tests of GitHub (daemon/github/, handlers/github*.py)."""
