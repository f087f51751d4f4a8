"""Tests of the `memubot` command (daemon/cli/)."""
