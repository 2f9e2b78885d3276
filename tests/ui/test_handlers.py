"""The handlers of a message, found once per classes, are those Textual finds each time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

import pytest
from textual import events, on
from textual.app import App, ComposeResult
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widgets import Button, Input

import openletta.ui.app  # noqa: F401  (loads every widget and screen class of the app)
from openletta.ui.textual_internals import handlers, handlers_found_once

T = TypeVar("T")


def subclasses(base: type[T]) -> Iterator[type[T]]:
    for subclass in base.__subclasses__():
        yield subclass
        yield from subclasses(subclass)


def blank_message(message_class: type[Message]) -> Message:
    """A message of ``message_class`` with only what dispatching reads (no sender)."""
    message = message_class.__new__(message_class)
    message._no_default_action = False
    message._sender = None
    return message


def functions(found: Any) -> list[tuple[type, Any]]:
    return [(cls, method.__func__) for cls, method in found]


@pytest.fixture(autouse=True)
def nothing_found_yet() -> Iterator[None]:
    """Each test finds handlers from scratch (the first two call the lookup themselves)."""
    handlers._found.clear()
    yield
    handlers._found.clear()


RECEIVERS = sorted(set(subclasses(MessagePump)), key=repr)
MESSAGES = sorted(set(subclasses(Message)), key=repr)


def test_every_receiver_of_the_app_finds_what_textual_finds_for_every_message() -> None:
    looked_up = 0
    for receiver in RECEIVERS:
        instance = receiver.__new__(receiver)
        for message_class in MESSAGES:
            message = blank_message(message_class)
            name = message_class.handler_name
            expected = functions(handlers._TEXTUAL(instance, name, message))
            assert functions(handlers.dispatch_methods(instance, name, message)) == expected, (
                receiver, message_class)
            looked_up += bool(expected)
    assert looked_up > 500  # (the app's classes handle many messages)


def test_a_handler_that_prevents_the_default_stops_the_handlers_of_the_bases_as_textual_does(
        ) -> None:
    checked = 0
    for receiver in RECEIVERS:
        instance = receiver.__new__(receiver)
        for message_class in MESSAGES:
            name = message_class.handler_name
            count = len(list(handlers.dispatch_methods(instance, name,
                                                       blank_message(message_class))))
            for stop in range(1, count):
                results = []
                for dispatch in (handlers._TEXTUAL, handlers.dispatch_methods):
                    message = blank_message(message_class)
                    called = []
                    for found in dispatch(instance, name, message):
                        called.append(found)
                        if len(called) == stop:
                            message.prevent_default()
                    results.append(functions(called))
                assert results[0] == results[1] and len(results[0]) == stop
                checked += 1
    assert checked > 50


class Form(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.heard: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input(id="name")
        yield Button("go", id="go")

    def on_input_changed(self, event: Input.Changed) -> None:
        self.heard.append(event.value)

    @on(Button.Pressed, "#go")
    def go(self) -> None:
        self.heard.append("go")


async def test_a_running_app_hears_its_messages_and_looks_their_handlers_up_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[tuple[type, str, type]] = []
    look_up = handlers.named_handlers

    def counting(receiver: type, name: str, message: type[Message]) -> Any:
        looked_up.append((receiver, name, message))
        return look_up(receiver, name, message)

    monkeypatch.setattr(handlers, "named_handlers", counting)
    app = Form()
    with handlers_found_once():
        async with app.run_test() as pilot:
            await pilot.click("#name")
            await pilot.press(*"abc")
            await pilot.click("#go")
            await pilot.pause()
    assert app.heard == ["a", "ab", "abc", "go"]
    assert len(looked_up) == len(set(looked_up))  # each once
    assert (Input, "on_key", events.Key) in looked_up  # (three keys typed, looked up once)
    assert MessagePump._get_dispatch_methods is handlers._TEXTUAL  # (put back)
