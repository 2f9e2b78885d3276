"""openletta: a terminal chat client for Letta agents."""

__version__ = "0.1.0"
