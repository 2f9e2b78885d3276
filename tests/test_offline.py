"""A server that cannot be reached, then can again: the turn state says "offline" while it
cannot, the controller looks for it now and then, and a reply that dropped meanwhile is
taken up where it stopped once it is back."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from chat_fakes import FakeClient, FakeStream, Listener

from openletta.api import http
from openletta.api.errors import APIConnectionError, ConnectError, StreamDroppedError
from openletta.api.history import HistoryPage
from openletta.api.messages import Message, parse_message
from openletta.api.resources import Agent, Run, RunUsage
from openletta.api.sse import SSEParseResult, parse_sse_text
from openletta.chat import replies, turn_tasks
from openletta.chat.controller import ChatController
from openletta.chat.replies import INTERRUPTED
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase
from openletta.transcript import ErrorItem, EventItem, Transcript, UserItem

FIXTURES = Path(__file__).parent / "fixtures"
DOWN = ConnectError("http://localhost:8283")


def recorded(name: str) -> SSEParseResult:
    return parse_sse_text((FIXTURES / name).read_bytes())


class Chat:
    def __init__(self) -> None:
        self.client = FakeClient()
        self.listener = Listener()
        self.session = ChatSession(self.client, Agent(id="agent-1"))  # type: ignore[arg-type]
        self.controller = ChatController(self.session, self.listener)

    async def until(self, condition: Callable[[], object], what: str) -> None:
        for _ in range(1000):
            if condition():
                return
            await asyncio.sleep(0.002)
        raise AssertionError(f"{what} never happened; phases {self.listener.phases}")

    def reports(self) -> list[str]:
        return [message for message, _severity, _notice in self.listener.reports]

    async def drop_while_unreachable(self) -> SSEParseResult:
        """A reply whose stream breaks while the server cannot be reached."""
        first = recorded("bg_start_tokens_disconnect.sse")
        self.client.down = DOWN
        self.client.turns.append(FakeStream(first.messages, drop=StreamDroppedError(
            first.run_id, first.last_seq_id, "the connection broke")))
        self.client.resumes.extend(FakeStream([], refuse=DOWN) for _ in range(3))
        self.controller.submit("hello")
        await self.until(lambda: self.controller.state.offline
                         and self.controller.state.phase is Phase.IDLE, "offline")
        return first


@pytest.fixture(autouse=True)
def quick_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replies, "RESUME_PAUSES", (0.001,) * 3)
    monkeypatch.setattr(http, "REACH_AGAIN_PAUSES", (0.005, 0.01))


@pytest.fixture
async def chat() -> AsyncIterator[Chat]:
    chat = Chat()
    yield chat
    await chat.controller.close()


def without_footers(items: list) -> list[dict]:
    return [item.to_json() for item in items if item.kind != "footer"]


def whole_turn(*parts: list[Message]) -> Transcript:
    whole = Transcript()
    whole.add_user("hello")
    whole.feed_all([message for part in parts for message in part])
    return whole


async def test_a_reply_dropped_while_offline_is_taken_up_once_the_server_is_back(
        chat: Chat) -> None:
    first = await chat.drop_while_unreachable()
    assert chat.controller.state.stop_reason == "dropped"
    assert any(isinstance(item, ErrorItem) for item in chat.session.transcript.items)

    chat.client.resumes.append(FakeStream(recorded("bg_resume_after_seq.sse").messages))
    chat.client.down = None
    await chat.until(lambda: chat.controller.state.stop_reason == "end_turn"
                     and chat.controller.state.phase is Phase.IDLE, "taken up")

    assert not chat.controller.state.offline
    assert chat.client.resumed[-1] == (first.run_id, first.last_seq_id)
    assert turn_tasks.BACK_ONLINE in chat.reports()
    items = chat.session.transcript.items
    assert without_footers(items) == without_footers(
        whole_turn(first.messages, recorded("bg_resume_after_seq.sse").messages).items)
    assert [item.kind for item in items].count("footer") == 1 and items[-1].kind == "footer"
    assert Phase.STREAMING in chat.listener.phases[chat.listener.phases.index(Phase.IDLE):]


async def test_a_foreground_reply_dropped_while_offline_is_read_from_its_run_once_back(
        chat: Chat) -> None:
    stream = recorded("_fg_for_resume.sse").messages
    run_id = next(message.run_id for message in stream if getattr(message, "run_id", None))
    chat.session.background = False
    chat.client.down = DOWN
    chat.client.turns.append(FakeStream(stream[:6], drop=StreamDroppedError(run_id, None)))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.controller.state.offline
                     and chat.controller.state.phase is Phase.IDLE, "offline")
    stored = [parse_message(entry) for entry in
              json.loads((FIXTURES / "run_messages.json").read_text())]
    chat.client.runs[run_id] = Run(id=run_id, status="completed", stop_reason="end_turn")
    chat.client.run_messages[run_id] = stored
    chat.client.down = None
    await chat.until(lambda: chat.controller.state.stop_reason == "end_turn", "completed")
    whole = Transcript()
    whole.load_history(stored)
    assert without_footers(chat.session.transcript.items) == without_footers(whole.items)


async def test_while_the_server_cannot_be_reached_it_is_looked_for_and_nothing_runs(
        chat: Chat) -> None:
    await chat.drop_while_unreachable()
    resumed = len(chat.client.resumed)
    await chat.until(lambda: chat.client.health_checks >= 4, "four looks")
    assert chat.controller.state.offline and chat.controller.state.phase is Phase.IDLE
    assert len(chat.client.resumed) == resumed
    assert turn_tasks.BACK_ONLINE not in chat.reports()


async def test_a_failed_send_waits_for_the_server_and_starts_nothing(chat: Chat) -> None:
    chat.client.down = DOWN
    chat.client.turns.append(FakeStream([], refuse=DOWN))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.controller.state.offline, "offline")
    chat.client.down = None
    await chat.until(lambda: not chat.controller.state.offline, "online")
    assert chat.listener.restored == ["hello"]
    assert chat.listener.phases == [Phase.SENDING, Phase.IDLE]
    assert chat.reports()[-1] == turn_tasks.BACK_ONLINE


async def test_a_reply_that_drops_while_the_server_answers_is_not_offline(chat: Chat) -> None:
    first = recorded("bg_start_tokens_disconnect.sse")
    chat.client.turns.append(FakeStream(first.messages, drop=StreamDroppedError(
        first.run_id, first.last_seq_id)))
    chat.client.resumes.extend(FakeStream([], refuse=StreamDroppedError(first.run_id, 12))
                               for _ in range(3))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.controller.state.stop_reason == "dropped", "dropped")
    assert not chat.controller.state.offline and not chat.session.dropped_unreached
    assert chat.client.health_checks == 0


async def test_a_new_message_after_the_drop_leaves_the_dropped_reply_as_it_is(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "REACH_AGAIN_PAUSES", (60.0,))
    await chat.drop_while_unreachable()
    assert chat.session.dropped_unreached
    chat.client.turns.append(FakeStream(recorded("hello_tokens.sse").messages))
    chat.controller.submit("again")
    await chat.until(lambda: chat.controller.state.stop_reason == "end_turn", "answered")
    assert not chat.controller.state.offline and not chat.session.dropped_unreached
    assert [item.kind for item in chat.session.transcript.items].count("error") == 1


async def test_esc_while_a_dropped_reply_is_taken_up_marks_it_interrupted(chat: Chat) -> None:
    await chat.drop_while_unreachable()
    hold = asyncio.Event()
    chat.client.resumes.append(FakeStream(recorded("bg_resume_after_seq.sse").messages,
                                          hold=hold))
    chat.client.down = None
    await chat.until(lambda: chat.controller.state.phase is Phase.STREAMING
                     and chat.client.resumes == type(chat.client.resumes)(), "taking up")
    chat.controller.interrupt()
    await chat.until(lambda: chat.controller.state.phase is Phase.IDLE, "idle")
    items = chat.session.transcript.items
    assert not any(isinstance(item, ErrorItem) for item in items)
    assert isinstance(items[-2], EventItem) and items[-2].text == INTERRUPTED
    assert chat.controller.state.stop_reason == "interrupted"


async def test_any_request_that_cannot_reach_the_server_makes_the_chat_offline(
        chat: Chat) -> None:
    """A request of the memory panel, say: the client tells, and the chat is offline until
    the client tells again that requests get through."""
    chat.client.down = DOWN
    chat.client.reach(False)
    assert chat.controller.state.offline
    await chat.until(lambda: chat.client.health_checks >= 2, "looks")
    chat.client.down = None
    chat.client.reach(True)
    assert not chat.controller.state.offline
    assert chat.reports() == [turn_tasks.BACK_ONLINE]
    chat.client.reach(True)
    assert chat.reports() == [turn_tasks.BACK_ONLINE]


async def test_a_closed_chat_no_longer_hears_the_client(chat: Chat) -> None:
    await chat.controller.close()
    chat.client.reach(False)
    assert not chat.controller.state.offline and not chat.client.reachability_listeners


BROKE = APIConnectionError("The connection to the Letta server broke")


def stored_turn(otid: str | None, text: str = "hello") -> list[Message]:
    """A turn as the server stores it: the user's message (with its otid), the reply."""
    envelope = {"date": "2026-11-27T10:00:00+00:00", "run_id": "run-late", "step_id": "step-1"}
    return [parse_message({**envelope, "message_type": "user_message", "id": "message-u",
                           "otid": otid, "content": text}),
            parse_message({**envelope, "message_type": "assistant_message", "id": "message-a",
                           "otid": "message-a-0", "content": "Hi, it arrived."})]


async def send_that_breaks(chat: Chat, text: str = "hello") -> str | None:
    """``text`` is sent, and its request breaks after it may have reached the server."""
    chat.client.down = DOWN
    chat.client.turns.append(FakeStream([], refuse=BROKE))
    chat.controller.submit(text)
    await chat.until(lambda: chat.controller.state.offline
                     and chat.controller.state.phase is Phase.IDLE, "offline")
    assert chat.listener.restored == [text]
    assert chat.reports()[-1].startswith("Maybe not sent")
    return chat.client.sent_otids[-1]


async def test_a_send_that_may_have_arrived_is_shown_once_the_server_is_back_if_it_did(
        chat: Chat) -> None:
    otid = await send_that_breaks(chat)
    chat.client.history = stored_turn(otid)
    chat.client.down = None
    await chat.until(lambda: turn_tasks.ARRIVED in chat.reports()
                     and chat.controller.state.phase is Phase.IDLE, "found")
    assert chat.listener.withdrawn == ["hello"]
    assert chat.client.sent == ["hello"]
    shown = [item.to_json() for item in chat.session.transcript.items if item.kind != "footer"]
    assert shown == [{"kind": "user", "text": "hello"},
                     {"kind": "assistant", "text": "Hi, it arrived."}]


async def test_a_send_found_on_the_server_shows_its_own_usage_not_the_turn_before(
        chat: Chat) -> None:
    chat.client.turns.append(FakeStream(recorded("hello_tokens.sse").messages))
    chat.controller.submit("first")
    await chat.until(lambda: chat.controller.state.stop_reason == "end_turn", "answered")
    before = chat.session.transcript.usage
    assert before.total_tokens > 0
    otid = await send_that_breaks(chat)
    chat.client.history = stored_turn(otid)

    async def get_run_usage(run_id: str) -> RunUsage:
        return RunUsage(prompt_tokens=3000, completion_tokens=20, total_tokens=3020)

    chat.client.get_run_usage = get_run_usage  # type: ignore[method-assign]
    chat.client.down = None
    await chat.until(lambda: turn_tasks.ARRIVED in chat.reports()
                     and chat.controller.state.phase is Phase.IDLE, "found")
    await chat.session.fill_footer_tokens(lambda change: None)  # (as the chat does, idle)
    usage = chat.session.transcript.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.step_count) == (3000, 20, 1)


async def test_a_send_that_did_not_arrive_is_left_in_the_prompt_and_said_so(chat: Chat) -> None:
    otid = await send_that_breaks(chat)
    chat.client.history = stored_turn("another-otid")
    chat.client.down = None
    await chat.until(lambda: turn_tasks.NOT_ARRIVED in chat.reports(), "not found")
    assert otid is not None and chat.listener.withdrawn == []
    assert chat.client.sent == ["hello"] and chat.session.transcript.items == []
    assert chat.controller.state.phase is Phase.IDLE


async def test_sending_it_again_first_looks_whether_it_arrived(chat: Chat) -> None:
    otid = await send_that_breaks(chat)
    chat.client.history = stored_turn(otid)
    chat.client.down = None
    chat.controller.submit("hello")  # before the watch found the server again
    await chat.until(lambda: turn_tasks.ARRIVED in chat.reports()
                     and chat.controller.state.phase is Phase.IDLE, "found")
    assert chat.client.sent == ["hello"]
    assert [item.kind for item in chat.session.transcript.items][:2] == ["user", "assistant"]


async def test_typing_looks_at_a_server_quiet_for_a_while_once(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.05)
    chat.client.last_answer = time.monotonic()
    chat.controller.typing()
    await asyncio.sleep(0.01)
    assert chat.client.history_reads == 0  # it answered just now (and the chat just opened)

    await asyncio.sleep(0.05)
    chat.client.down = DOWN
    chat.controller.typing()  # idle: it looks by reading the newest messages
    await chat.until(lambda: chat.controller.state.offline, "offline, before any send")
    assert chat.client.history_reads == 1
    checks = chat.client.health_checks
    chat.controller.typing()  # already offline: the watch looks, typing does not
    chat.client.down = None
    await chat.until(lambda: not chat.controller.state.offline, "online")
    assert turn_tasks.BACK_ONLINE in chat.reports() and chat.client.sent == []
    assert chat.client.health_checks == checks + 1 and chat.client.history_reads == 1
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 60.0)
    chat.controller.typing()  # it looked a moment ago
    await asyncio.sleep(0.01)
    assert chat.client.health_checks == checks + 1 and chat.client.history_reads == 1


async def test_typing_in_an_idle_chat_shows_what_another_client_said_meanwhile(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)
    elsewhere = stored_turn("otid-of-another-client")
    chat.client.history = elsewhere
    chat.controller.typing()
    await chat.until(lambda: len(chat.session.transcript.items) >= 2, "the other turn shown")
    assert [item.kind for item in chat.session.transcript.items][:2] == ["user", "assistant"]
    shown = len(chat.session.transcript.items)
    chat.controller.typing()  # read again: nothing is shown twice
    await chat.until(lambda: chat.client.history_reads == 2, "read again")
    assert len(chat.session.transcript.items) == shown


def users_said(chat: Chat) -> list[str]:
    """The user messages shown (and no bug reported)."""
    assert not [report for report in chat.reports() if report.startswith("Unexpected")]
    return [item.text for item in chat.session.transcript.items if isinstance(item, UserItem)]


async def test_coming_back_to_an_idle_quiet_chat_shows_what_another_client_said(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)
    chat.client.history = stored_turn("otid-of-another-client", "said elsewhere")
    chat.controller.returned()  # the terminal has the focus again
    await chat.until(lambda: len(chat.session.transcript.items) >= 2, "the other turn shown")
    assert users_said(chat) == ["said elsewhere"] and chat.client.history_reads == 1
    assert chat.client.sent == [] and chat.controller.state.phase is Phase.IDLE


async def test_coming_back_reads_nothing_unless_the_chat_is_idle_quiet_and_online(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    chat.client.history = stored_turn("otid-of-another-client", "said elsewhere")
    chat.controller.returned()  # the chat opened a moment ago
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded("hello_tokens.sse").messages, hold=hold))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.controller.state.phase is Phase.STREAMING, "streaming")
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)
    monkeypatch.setattr(turn_tasks, "QUIET_SECONDS", 0.0)
    chat.controller.returned()  # busy: not even the server's health is asked for
    await asyncio.sleep(0.01)
    assert chat.client.history_reads == 0 and chat.client.health_checks == 0
    hold.set()
    await chat.until(lambda: chat.controller.state.phase is Phase.IDLE, "the turn ended")
    chat.client.down = DOWN
    chat.client.reach(False)  # offline: the watch looks, coming back does not
    await chat.until(lambda: chat.controller.state.offline, "offline")
    chat.controller.returned()
    await asyncio.sleep(0.01)
    assert chat.client.history_reads == 0 and users_said(chat) == ["hello"]


async def test_a_message_sent_after_a_quiet_while_comes_after_a_turn_made_elsewhere(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)
    chat.client.history = stored_turn("otid-of-another-client", "said elsewhere")
    chat.client.turns.append(FakeStream(recorded("hello_tokens.sse").messages))
    chat.controller.submit("hello")  # nothing typed first (a draft kept, sent as it was)
    await chat.until(lambda: chat.client.sent and chat.controller.state.phase is Phase.IDLE,
                     "the turn sent and ended")
    assert users_said(chat) == ["said elsewhere", "hello"]


async def test_a_message_sent_while_typing_s_read_goes_on_waits_for_it(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)
    chat.client.history = stored_turn("otid-of-another-client", "said elsewhere")
    chat.client.turns.append(FakeStream(recorded("hello_tokens.sse").messages))
    answered, read = asyncio.Event(), chat.client.list_messages

    async def slow_read(*args: object, **options: object) -> HistoryPage:
        await answered.wait()
        return await read(*args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(chat.client, "list_messages", slow_read)
    chat.controller.typing()
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 60.0)  # (sending reads no more)
    chat.controller.submit("hello")  # (the read typing began is under way)
    await asyncio.sleep(0.01)
    assert chat.client.sent == [] and chat.controller.state.phase is Phase.SENDING
    answered.set()
    await chat.until(lambda: chat.client.sent and chat.controller.state.phase is Phase.IDLE,
                     "the turn sent and ended")
    assert users_said(chat) == ["said elsewhere", "hello"]
    assert chat.client.history_reads == 1


async def test_esc_before_the_message_went_out_cancels_nothing_on_the_server(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Another client's reply may be running: a cancel without a run would stop it.)"""
    monkeypatch.setattr(turn_tasks, "CATCH_UP_SECONDS", 0.0)
    chat.client.history = stored_turn("otid-of-another-client", "said elsewhere")
    answered, read = asyncio.Event(), chat.client.list_messages

    async def slow_read(*args: object, **options: object) -> HistoryPage:
        await answered.wait()
        return await read(*args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(chat.client, "list_messages", slow_read)
    chat.controller.submit("hello")  # (it waits for the read its quiet chat began)
    await asyncio.sleep(0.01)
    assert chat.controller.state.phase is Phase.SENDING
    chat.controller.interrupt()
    answered.set()
    await chat.until(lambda: chat.controller.state.phase is Phase.IDLE, "stopped")
    await asyncio.sleep(0.05)  # (a cancel would be a side task)
    assert chat.client.sent == [] and chat.client.cancelled == []
    assert chat.listener.restored == ["hello"]
