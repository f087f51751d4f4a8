"""Tests of Gmail and e-mail (daemon/gmail/)."""
