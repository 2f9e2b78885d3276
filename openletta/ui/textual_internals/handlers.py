"""Textual's private API for dispatching messages: a widget class's handlers of a message
class looked up once, not at every message.

To dispatch a message, Textual walks the class hierarchy of the widget that receives it and
looks in each class's ``__dict__`` for a handler (``_on_key``, ``on_key``) and for handlers
made with ``@on`` (``MessagePump._get_dispatch_methods``). Every key, every refresh and every
mount posts a few messages to a few widgets, each of a hierarchy a dozen classes deep: 6 %
of the time a typed key took was this walk, repeated for the same classes every time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from textual.message import Message
from textual.message_pump import MessagePump

#: A class of the receiver's hierarchy with a handler, and that handler (a function).
Handler = tuple[type, Callable[..., Any]]

_TEXTUAL = MessagePump._get_dispatch_methods
#: ``(receiver class, handler name, message class)``: the handlers there in the order Textual
#: calls them, or ``None`` where an ``@on`` handler might match (Textual then looks itself).
_found: dict[tuple[type, str, type], tuple[Handler, ...] | None] = {}


def named_handlers(receiver: type, method_name: str, message: type[Message]
                   ) -> tuple[Handler, ...] | None:
    """The handlers of ``message`` named by convention in ``receiver``'s hierarchy, in the
    order Textual calls them; ``None`` if a class of it has an ``@on`` handler of the
    message's class or one of its bases (they depend on the message's sender)."""
    bases = [base for base in message.__mro__ if issubclass(base, Message)]
    found: list[Handler] = []
    for cls in receiver.__mro__:
        decorated = cls.__dict__.get("_decorated_handlers")
        if decorated and any(decorated.get(base) for base in bases):
            return None
        method = cls.__dict__.get(f"_{method_name}") or cls.__dict__.get(method_name)
        if method is not None and not getattr(method, "_textual_on", None):
            found.append((cls, method))
    return tuple(found)


def dispatch_methods(self: MessagePump, method_name: str, message: Message
                     ) -> Iterable[tuple[type, Callable[..., Any]]]:
    """``MessagePump._get_dispatch_methods``, with the handlers found once per classes."""
    key = (type(self), method_name, type(message))
    try:
        found = _found[key]
    except KeyError:
        found = _found[key] = named_handlers(*key)
    if found is None:
        yield from _TEXTUAL(self, method_name, message)
        return
    for cls, method in found:
        if message._no_default_action:  # (a handler called ``prevent_default``)
            break
        yield cls, method.__get__(self, cls)


@contextlib.contextmanager
def handlers_found_once() -> Iterator[None]:
    """Within: Textual finds the handlers of a message through :func:`dispatch_methods`.
    For an app whose classes do not change while it runs."""
    MessagePump._get_dispatch_methods = dispatch_methods  # type: ignore[method-assign]
    try:
        yield
    finally:
        MessagePump._get_dispatch_methods = _TEXTUAL  # type: ignore[method-assign]
        _found.clear()
