"""Tests of the runtime (daemon/runtime/)."""
