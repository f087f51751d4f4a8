"""memubot: a proactive memory daemon for AI agents."""

__version__ = "0.1.0"
