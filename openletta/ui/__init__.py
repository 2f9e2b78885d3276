"""The Textual user interface of openletta."""
