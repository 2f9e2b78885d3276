"""Identifiers and timestamps in the formats a Letta 0.16.8 server uses."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

#: Where the demo server reads the time (replaceable in tests).
Clock = Callable[[], datetime]

#: Letta keeps a per-part index in the low 7 bits of a message id's UUID.
_PART_BITS = 0x7F
_DEMO_NAMESPACE = uuid.UUID("6f70656e-6c65-7474-6164-656d6f000000")


def utc_now() -> datetime:
    return datetime.now(UTC)


def new_id(prefix: str) -> str:
    """A fresh ``<prefix>-<uuid4>`` id (``message``, ``run``, ``step``, ``ping``, ``conv``)."""
    return f"{prefix}-{uuid.uuid4()}"


def stable_id(prefix: str, name: str) -> str:
    """An id that is the same on every start of the demo server (e.g. for ``--agent``)."""
    value = uuid.UUID(bytes=uuid.uuid5(_DEMO_NAMESPACE, name).bytes, version=4)
    return f"{prefix}-{value}"


def new_message_id() -> str:
    """A fresh message id whose low 7 bits are not all zero, so that the approval id
    (this id minus one) shares every part otid with it, as on the real server."""
    while True:
        value = uuid.uuid4()
        if value.int & _PART_BITS:
            return f"message-{value}"


def new_tool_call_id() -> str:
    """A tool call id in the style of an OpenAI-compatible model (``call_`` + 24 hex)."""
    return f"call_{uuid.uuid4().hex[:24]}"


def part_otid(message_id: str, index: int) -> str:
    """The otid of part ``index`` of a message (Letta's ``generate_otid_from_id``)."""
    value = uuid.UUID(message_id.removeprefix("message-"))
    return str(uuid.UUID(int=(value.int & ~_PART_BITS) | index))


def previous_message_id(message_id: str) -> str:
    """The id just below ``message_id``: where Letta stores an approval request."""
    value = uuid.UUID(message_id.removeprefix("message-"))
    return f"message-{uuid.UUID(int=value.int - 1)}"


def synthetic_message_id(position: int) -> str:
    """A stable message id for row ``position`` of a generated history (part bits zero)."""
    return f"message-5eed0000-0000-4000-8000-{position:010x}00"


def message_date(moment: datetime) -> str:
    """The ``date`` of a message: second precision with an explicit UTC offset."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def record_time(moment: datetime) -> str:
    """``created_at``/``updated_at`` of agents, conversations and runs."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def naive_time(moment: datetime) -> str:
    """``completed_at`` of a run: microseconds, no offset (as the real server sends it)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")
