"""Tests of the HTTP face and /ui (daemon/web/)."""
