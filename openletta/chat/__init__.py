"""A conversation's turns, approvals and history, without Textual.

:class:`~openletta.chat.controller.ChatController` owns the whole turn state of one
conversation; the UI sends it intents and renders what it reports.
"""
