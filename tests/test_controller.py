"""The turn controller without Textual: every transition, Esc, errors and quitting in each
phase, against a fake client that replays recorded streams."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from chat_fakes import FakeClient, FakeStream, Listener

from openletta.api.errors import (
    APIConnectionError,
    ConnectError,
    ConversationBusyError,
    NotFoundError,
    ServerError,
    StreamDroppedError,
    ValidationError,
)
from openletta.api.messages import AssistantMessage, Message, parse_message
from openletta.api.resources import Agent, Run, RunUsage, Step
from openletta.api.sse import parse_sse_text
from openletta.chat import controller as controller_module
from openletta.chat import replies
from openletta.chat import session as session_module
from openletta.chat.approval_flow import APPROVAL_FIRST
from openletta.chat.approvals import CANCELLED_REASON, NO_REASON, Choice
from openletta.chat.controller import ChatController
from openletta.chat.replies import INTERRUPTED
from openletta.chat.session import ChatSession
from openletta.chat.turn_state import Phase, TurnState
from openletta.chat.turn_tasks import FOREGROUND_NOTICE
from openletta.transcript import (
    AssistantItem,
    ErrorItem,
    EventItem,
    ToolStatus,
    Transcript,
    TurnFooterItem,
)

FIXTURES = Path(__file__).parent / "fixtures"
HELLO = "hello_tokens.sse"
ASKS = "approval_request_tokens.sse"  # one bash call that needs approval
APPROVED = "approval_approve_tokens.sse"  # the continuation once it is approved
DENIED = "approval_deny_tokens.sse"
CALL_ID = "call_5981249e5ce4424db7443339"


def recorded(name: str) -> list[Message]:
    return parse_sse_text((FIXTURES / name).read_bytes()).messages


class Chat:
    """A controller on a fake client, with helpers to drive it."""

    def __init__(self) -> None:
        self.client = FakeClient()
        self.listener = Listener()
        self.session = ChatSession(self.client, Agent(id="agent-1", name="tester"))  # type: ignore[arg-type]
        self.controller = ChatController(self.session, self.listener)

    @property
    def state(self) -> TurnState:
        return self.controller.state

    @property
    def transcript(self) -> Transcript:
        return self.session.transcript

    async def until(self, condition: Callable[[], object], what: str = "condition") -> None:
        for _ in range(500):
            if condition():
                return
            await asyncio.sleep(0.002)
        raise AssertionError(f"{what} never happened; phases {self.listener.phases}")

    async def settled(self, phase: Phase = Phase.IDLE) -> None:
        await self.until(lambda: self.state.phase is phase and (
            not self.controller.turn_running), f"settled {phase}")

    async def ask(self) -> None:
        """Send a message whose reply asks for approval of one call."""
        self.client.turns.append(FakeStream(recorded(ASKS)))
        self.controller.submit("run ls")
        await self.settled(Phase.AWAITING_APPROVAL)


@pytest.fixture
async def chat() -> AsyncIterator[Chat]:
    chat = Chat()
    yield chat
    await chat.controller.close()


# --- idle → sending → streaming → idle --------------------------------------------------------


async def test_a_message_is_sent_streamed_and_ends_idle(chat: Chat) -> None:
    chat.client.turns.append(FakeStream(recorded(HELLO)))
    chat.controller.submit("hello")
    assert chat.state.phase is Phase.SENDING and chat.state.sending == "hello"
    await chat.settled()
    assert chat.listener.phases == [Phase.SENDING, Phase.STREAMING, Phase.IDLE]
    assert chat.state.sending is None and chat.state.stop_reason == "end_turn"
    assert chat.client.sent == ["hello"]
    assert isinstance(chat.transcript.items[-2], AssistantItem)


async def test_messages_typed_meanwhile_are_queued_and_sent_in_order(chat: Chat) -> None:
    hold = asyncio.Event()
    chat.client.turns.extend([FakeStream(recorded(HELLO), hold=hold),
                              FakeStream(recorded(HELLO)), FakeStream(recorded(HELLO))])
    chat.controller.submit("first")
    await chat.until(lambda: chat.state.phase is Phase.STREAMING)
    chat.controller.submit("second")
    chat.controller.submit("third")
    assert chat.state.queued == ("second", "third")
    hold.set()
    await chat.settled()
    assert chat.client.sent == ["first", "second", "third"]
    assert chat.state.queued == () and not chat.listener.restored


async def test_a_refused_message_goes_back_to_the_prompt_with_the_queue(chat: Chat) -> None:
    chat.client.turns.append(FakeStream([], refuse=APIConnectionError("no network")))
    chat.controller.submit("hello")
    await chat.settled()
    assert chat.listener.restored == ["hello"]
    assert chat.state.offline and chat.state.sending is None
    said, severity, notice = chat.listener.reports[-1]
    assert (severity, notice) == ("error", True) and said.endswith("no network")
    # The connection broke after it was made: the server may have the message all the same.
    assert said.startswith("Maybe not sent") and "once the server can be reached" in said


async def test_a_message_that_could_not_connect_is_not_sent(chat: Chat) -> None:
    chat.client.turns.append(FakeStream([], refuse=ConnectError("http://127.0.0.1:9")))
    chat.controller.submit("hello")
    await chat.settled()
    assert chat.listener.reports[-1][0].startswith("Not sent: Could not reach")


async def test_a_broken_reply_keeps_what_arrived_and_gives_the_queue_back(chat: Chat) -> None:
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO)[:6], hold=hold,  # foreground: final
                                        drop=StreamDroppedError(None, None, "reset")))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.state.phase is Phase.STREAMING)
    chat.controller.submit("later")
    hold.set()
    await chat.settled()
    assert chat.state.stop_reason == "dropped"
    assert chat.listener.restored == ["later"]
    assert any("stopped early" in message for message, _, _ in chat.listener.reports)
    assert any(isinstance(item, ErrorItem) and item.error_type == "stream_dropped"
               for item in chat.transcript.items)  # marked; what arrived is kept


async def test_messages_queued_when_the_chat_is_left_go_back_to_its_prompt(chat: Chat) -> None:
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=hold))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.state.phase is Phase.STREAMING)
    chat.controller.submit("first queued")
    chat.controller.submit("second queued")
    chat.controller.leaving()  # another chat opens, or the app quits: nothing more is sent
    assert chat.listener.restored == ["first queued\n\nsecond queued"]
    assert chat.state.queued == ()
    hold.set()
    await chat.settled()
    assert chat.client.sent == ["hello"]


async def test_an_error_in_the_stream_ends_the_turn(chat: Chat) -> None:
    chat.client.turns.append(FakeStream(recorded("llm_error_tokens.sse")))
    chat.controller.submit("llmerror")
    await chat.settled()
    assert chat.state.stop_reason == "llm_api_error"


@pytest.fixture
def quick_rechecks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_module, "UNKEPT_RECHECK_SECONDS", 0.001)


def footer(chat: Chat) -> TurnFooterItem:
    return next(item for item in reversed(chat.transcript.items)
                if isinstance(item, TurnFooterItem))


async def test_a_failed_turn_the_server_dropped_says_the_agent_will_not_see_it(
        chat: Chat, quick_rechecks: None) -> None:
    chat.client.turns.append(FakeStream(recorded("llm_error_tokens.sse")))
    chat.controller.submit("llmerror")
    await chat.settled()
    run_id = chat.session.run_id
    assert run_id is not None and footer(chat).run_ids == (run_id,)
    await chat.until(lambda: footer(chat).unkept, "the turn said dropped")


async def test_a_failed_turn_the_server_stored_is_not_said_dropped(
        chat: Chat, quick_rechecks: None) -> None:
    chat.client.turns.append(FakeStream(recorded("llm_error_tokens.sse")))
    run_id = "run-be717b67-3012-47c1-b568-c8ae7a0052e3"  # the recording's
    stored = [m for m in recorded(HELLO) if isinstance(m, AssistantMessage)][:1]
    chat.client.run_messages[run_id] = stored
    chat.controller.submit("llmerror")
    await chat.settled()
    await chat.until(lambda: not chat.controller._tasks._side_tasks, "the check done")
    assert footer(chat).run_ids == (run_id,) and not footer(chat).unkept


async def test_an_interrupted_turn_the_server_dropped_says_so(
        chat: Chat, quick_rechecks: None) -> None:
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=hold, hold_at=8))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.state.phase is Phase.STREAMING)
    chat.controller.interrupt()
    await chat.until(lambda: chat.client.cancelled, "cancel")
    await chat.until(lambda: footer(chat).unkept, "the turn said dropped")


async def test_a_turn_interrupted_before_any_token_gets_a_footer_said_not_kept(
        chat: Chat, quick_rechecks: None) -> None:
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=hold, hold_at=1))  # a ping only
    chat.controller.submit("stall")
    await chat.until(lambda: chat.session.run_id is not None, "the run named")
    run_id = chat.session.run_id
    chat.controller.interrupt()
    assert footer(chat).run_ids == (run_id,) and footer(chat).duration is not None
    await chat.until(lambda: footer(chat).unkept, "the turn said dropped")
    assert chat.client.cancelled == [[run_id]]
    await chat.until(lambda: chat.listener.restored == ["stall"], "the message given back")


async def test_a_live_turn_the_server_kept_is_not_given_back(
        chat: Chat, quick_rechecks: None) -> None:
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=hold, hold_at=1))
    chat.controller.submit("stall")
    await chat.until(lambda: chat.session.run_id is not None, "the run named")
    run_id = chat.session.run_id
    assert run_id is not None
    chat.client.run_messages[run_id] = [
        m for m in recorded(HELLO) if isinstance(m, AssistantMessage)][:1]
    chat.controller.interrupt()
    await chat.until(lambda: chat.client.cancelled, "cancel")
    await chat.until(lambda: not chat.controller._tasks._side_tasks, "the checks done")
    assert not footer(chat).unkept and not chat.listener.restored


async def test_a_turn_interrupted_before_its_run_was_named_is_said_not_kept(
        chat: Chat, quick_rechecks: None) -> None:
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=hold, hold_at=0))  # no ping
    chat.client.cancelled_runs = {"run-1": "cancelled"}
    chat.controller.submit("stall")
    await chat.until(lambda: chat.state.phase is Phase.STREAMING)
    chat.controller.interrupt()
    assert footer(chat).run_ids == ()
    await chat.until(lambda: footer(chat).unkept, "the turn said dropped")
    assert chat.client.cancelled == [None] and footer(chat).run_ids == ("run-1",)
    await chat.until(lambda: chat.listener.restored == ["stall"], "the message given back")


async def test_a_message_stopped_before_the_server_took_it_names_no_earlier_turn(
        chat: Chat, quick_rechecks: None) -> None:
    hold, accept = asyncio.Event(), asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=hold, hold_at=0))
    chat.client.turns.append(FakeStream(recorded(HELLO), accept=accept))
    chat.controller.submit("stall")
    await chat.until(lambda: chat.state.phase is Phase.STREAMING)
    chat.controller.interrupt()  # its cancel finds no run: the turn stays unnamed
    await chat.until(lambda: not chat.controller._tasks._side_tasks, "the cancel done")
    chat.client.cancelled_runs = {"run-2": "cancelled"}
    chat.controller.submit("hello")
    await chat.until(lambda: chat.state.phase is Phase.SENDING)
    chat.controller.interrupt()  # before it went out: nothing to cancel (run-2 is not ours)
    await chat.until(lambda: chat.state.phase is Phase.IDLE, "stopped")
    await chat.until(lambda: not chat.controller._tasks._side_tasks, "the side tasks done")
    assert len(chat.client.cancelled) == 1 and chat.listener.restored == ["hello"]
    assert footer(chat).run_ids == () and not footer(chat).unkept


# --- a dropped connection -------------------------------------------------------------------


@pytest.fixture
def quick_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replies, "RESUME_PAUSES", (0.001,) * 3)


async def test_a_dropped_background_reply_is_resumed_after_its_last_chunk(
        chat: Chat, quick_resumes: None) -> None:
    first = parse_sse_text((FIXTURES / "bg_start_tokens_disconnect.sse").read_bytes())
    rest = recorded("bg_resume_after_seq.sse")
    chat.client.turns.append(FakeStream(first.messages, drop=StreamDroppedError(
        first.run_id, first.last_seq_id, "the connection broke")))
    chat.client.resumes.append(FakeStream(rest))
    chat.controller.submit("hello")
    await chat.settled()
    assert chat.client.background == [True]
    assert chat.client.resumed == [(first.run_id, 12)]
    connections = [state.connection for state in chat.listener.states if state.connection]
    assert connections[:2] == ["reconnecting", "reconnected"]
    whole = Transcript()
    whole.add_user("hello")
    whole.feed_all([*first.messages, *rest])
    shown = [item.to_json() for item in chat.transcript.items if item.kind != "footer"]
    assert shown == [item.to_json() for item in whole.items]
    assert chat.state.stop_reason == "end_turn" and not chat.listener.reports


async def test_a_followed_reply_names_its_prompt_once_the_server_stored_it(chat: Chat) -> None:
    chat.client.active = [running().model_copy(update={
        "created_at": datetime.now(UTC) - timedelta(seconds=30)})]
    chat.client.resumes.append(FakeStream(recorded(REPLAY)))
    chat.client.run_messages[REPLAY_RUN] = [parse_message(
        {"message_type": "user_message", "id": "message-q", "content": "what changed?"})]
    chat.controller.opened()
    await chat.settled()
    assert followed_divider(chat).text == (
        f"{controller_module.FOLLOWING_OPENED} · answering “what changed?”")
    footer = chat.transcript.items[-1]
    assert isinstance(footer, TurnFooterItem) and footer.duration is not None
    assert footer.duration >= 30  # from the run's start, not from when it was followed


async def test_a_replay_from_the_start_shows_no_chunk_twice(
        chat: Chat, quick_resumes: None) -> None:
    first = parse_sse_text((FIXTURES / "bg_start_tokens_disconnect.sse").read_bytes())
    chat.client.turns.append(FakeStream(first.messages, drop=StreamDroppedError(
        first.run_id, first.last_seq_id)))
    chat.client.resumes.append(FakeStream(recorded("bg_replay_from_0.sse")))
    chat.controller.submit("hello")
    await chat.settled()
    texts = [item.text for item in chat.transcript.items if isinstance(item, AssistantItem)]
    resumed = Transcript()
    resumed.add_user("hello")
    resumed.feed_all(recorded("bg_replay_from_0.sse"))
    assert texts == [item.text for item in resumed.items if isinstance(item, AssistantItem)]


async def test_resuming_keeps_trying_then_keeps_what_arrived(
        chat: Chat, quick_resumes: None) -> None:
    first = parse_sse_text((FIXTURES / "bg_start_tokens_disconnect.sse").read_bytes())
    chat.client.turns.append(FakeStream(first.messages, drop=StreamDroppedError(
        first.run_id, first.last_seq_id)))
    chat.client.resumes.extend([
        FakeStream([], refuse=APIConnectionError("down")),
        FakeStream(first.messages[:0], drop=StreamDroppedError(first.run_id, 12)),
        FakeStream([], refuse=APIConnectionError("still down"))])
    chat.controller.submit("hello")
    await chat.settled()
    assert len(chat.client.resumed) == 3
    assert chat.state.stop_reason == "dropped"
    assert any(isinstance(item, ErrorItem) for item in chat.transcript.items)
    assert "still down" in chat.listener.reports[-1][0]


async def test_a_run_that_cannot_be_resumed_is_given_up_at_once(
        chat: Chat, quick_resumes: None) -> None:
    first = parse_sse_text((FIXTURES / "bg_start_tokens_disconnect.sse").read_bytes())
    chat.client.turns.append(FakeStream(first.messages, drop=StreamDroppedError(
        first.run_id, first.last_seq_id)))
    chat.client.resumes.append(FakeStream([], refuse=NotFoundError("EXPIRED: run expired")))
    chat.controller.submit("hello")
    await chat.settled()
    assert len(chat.client.resumed) == 1 and chat.state.stop_reason == "dropped"


async def test_a_server_without_background_runs_is_used_in_the_foreground(chat: Chat) -> None:
    refusal = ServerError("Background streaming requires Redis", status_code=503,
                          server_message="Background streaming requires Redis to be running.")
    chat.client.turns.extend([FakeStream([], refuse=refusal), FakeStream(recorded(HELLO)),
                              FakeStream(recorded(HELLO))])
    chat.controller.submit("hello")
    await chat.settled()
    chat.controller.submit("again")
    await chat.settled()
    assert chat.client.background == [True, False, False]
    assert [title for title, _, _ in chat.listener.reports] == [FOREGROUND_NOTICE]
    assert chat.state.stop_reason == "end_turn"


async def test_a_reply_that_cannot_be_resumed_is_completed_from_its_run(chat: Chat) -> None:
    """A foreground reply (no seq ids) that breaks: once its run ended, what it stored
    completes the turn, with nothing shown twice."""
    stream = recorded("_fg_for_resume.sse")
    run_id = next(message.run_id for message in stream if getattr(message, "run_id", None))
    chat.session.background = False
    chat.client.turns.append(FakeStream(stream[:6], drop=StreamDroppedError(run_id, None)))
    chat.client.runs[run_id] = Run(id=run_id, status="completed", stop_reason="end_turn")
    stored = [parse_message(entry) for entry in
              json.loads((FIXTURES / "run_messages.json").read_text())]
    chat.client.run_messages[run_id] = stored
    chat.controller.submit("hello")
    await chat.settled()
    assert chat.state.stop_reason == "end_turn" and not chat.listener.reports
    whole = Transcript()
    whole.load_history(stored)
    shown = [item.to_json() for item in chat.transcript.items if item.kind != "footer"]
    assert shown == [item.to_json() for item in whole.items]


# --- a busy conversation ----------------------------------------------------------------------


@pytest.fixture
def quick_busy_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(controller_module, "BUSY_POLL_SECONDS", (0.001,))


async def test_a_message_for_a_busy_conversation_waits_and_is_delivered(
        chat: Chat, quick_busy_polls: None) -> None:
    busy = ConversationBusyError("busy", run_id="run-other")
    chat.client.turns.extend([FakeStream([], refuse=busy), FakeStream([], refuse=busy),
                              FakeStream(recorded(HELLO))])
    chat.controller.submit("hello")
    await chat.settled()
    assert Phase.WAITING in chat.listener.phases
    assert chat.client.sent == ["hello"] * 3 and not chat.listener.restored
    assert chat.state.stop_reason == "end_turn"


async def test_a_conversation_busy_for_too_long_gives_the_message_back(
        chat: Chat, quick_busy_polls: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(controller_module, "BUSY_WAIT_SECONDS", 0.02)
    chat.client.turns.extend(FakeStream([], refuse=ConversationBusyError("busy"))
                             for _ in range(1000))
    chat.controller.submit("hello")
    await chat.settled()
    assert chat.listener.restored == ["hello"]
    assert "busy" in chat.listener.reports[-1][0]


# --- approvals --------------------------------------------------------------------------------


async def test_a_reply_that_needs_approval_asks_about_the_held_call(chat: Chat) -> None:
    await chat.ask()
    call = chat.transcript.call(CALL_ID)
    assert chat.state.asking is call and chat.state.undecided == 1
    assert call is not None and call.status is ToolStatus.AWAITING_APPROVAL


async def test_approve_sends_the_answer_and_streams_the_continuation(chat: Chat) -> None:
    await chat.ask()
    chat.client.answers.append(FakeStream(recorded(APPROVED)))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled()
    assert [answer.approve for answer in chat.client.answered[0]] == [True]
    assert chat.listener.phases[-3:] == [Phase.AWAITING_APPROVAL, Phase.ANSWERING, Phase.IDLE]
    assert chat.transcript.call(CALL_ID).status is ToolStatus.SUCCESS  # type: ignore[union-attr]
    assert chat.state.asking is None and chat.state.stop_reason == "end_turn"


async def test_the_busy_clock_runs_while_a_request_is_in_flight(chat: Chat) -> None:
    await chat.ask()
    asked = [state for state in chat.listener.states if state.phase is not Phase.IDLE]
    assert all(state.busy_since is not None for state in asked if state.phase.busy)
    assert len({state.busy_since for state in asked if state.phase.busy}) == 1  # one stretch
    assert chat.state.phase is Phase.AWAITING_APPROVAL and chat.state.busy_since is None
    chat.client.answers.append(FakeStream(recorded(APPROVED)))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled()
    answering = [state for state in chat.listener.states if state.phase is Phase.ANSWERING]
    assert answering and answering[0].busy_since is not None
    assert answering[0].busy_since > asked[0].busy_since  # type: ignore[operator]
    assert chat.state.phase is Phase.IDLE and chat.state.busy_since is None


async def test_a_request_waits_for_its_reply_until_something_of_it_arrives(
        chat: Chat) -> None:
    await chat.ask()
    asked = [state for state in chat.listener.states if state.phase.busy]
    assert not asked[0].replying and asked[-1].replying  # the user's message is not a reply
    chat.client.answers.append(FakeStream(recorded(APPROVED)))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled()
    answering = [state for state in chat.listener.states if state.phase is Phase.ANSWERING]
    assert not answering[0].replying and answering[-1].replying  # each request anew
    assert not chat.state.replying


async def test_deny_sends_the_reason(chat: Chat) -> None:
    await chat.ask()
    chat.client.answers.append(FakeStream(recorded(DENIED)))
    chat.controller.decide(chat.state.asking, Choice.DENY, "not here")  # type: ignore[arg-type]
    await chat.settled()
    (answer,) = chat.client.answered[0]
    assert (answer.approve, answer.reason) == (False, "not here")


async def test_a_deny_without_a_reason_tells_the_agent_none_was_given(chat: Chat) -> None:
    """Letta puts the reason in what the agent reads: "User reason: None" it would be."""
    await chat.ask()
    chat.client.answers.append(FakeStream(recorded(DENIED)))
    chat.controller.decide(chat.state.asking, Choice.DENY, "  ")  # type: ignore[arg-type]
    await chat.settled()
    (answer,) = chat.client.answered[0]
    assert (answer.approve, answer.reason) == (False, NO_REASON)


async def test_a_message_while_approvals_wait_stays_in_the_prompt(chat: Chat) -> None:
    await chat.ask()
    chat.controller.leave(deny=False, quitting=False)
    assert chat.state.asking is None and chat.state.phase is Phase.AWAITING_APPROVAL
    chat.controller.submit("hi")
    assert chat.listener.restored == ["hi"]
    assert chat.listener.reports[-1] == (APPROVAL_FIRST, "warning", False)
    assert chat.state.asking is chat.transcript.call(CALL_ID)  # asked again
    assert chat.client.sent == ["run ls"]


async def test_approve_for_this_session_answers_the_next_request_at_once(chat: Chat) -> None:
    await chat.ask()
    chat.client.answers.append(FakeStream(recorded(APPROVED)))
    chat.controller.decide(chat.state.asking, Choice.APPROVE_FOR_SESSION)  # type: ignore[arg-type]
    await chat.settled()
    chat.client.turns.append(FakeStream(recorded("approval_request2_tokens.sse")))
    chat.client.answers.append(FakeStream(recorded(APPROVED)))
    chat.controller.submit("again")
    await chat.settled()
    assert len(chat.client.answered) == 2 and chat.client.answered[1][0].approve
    assert Phase.AWAITING_APPROVAL in chat.listener.phases[-4:]
    assert not any(state.asking for state in chat.listener.states[-4:])
    assert chat.transcript.call("call_674b4705afee4da0977f2ccc").auto_approved  # type: ignore[union-attr]


async def test_always_allow_stores_the_rule_then_approves(chat: Chat) -> None:
    await chat.ask()
    chat.client.answers.append(FakeStream(recorded(APPROVED)))
    chat.controller.decide(chat.state.asking, Choice.ALWAYS_ALLOW)  # type: ignore[arg-type]
    await chat.settled()
    assert chat.client.rules == {"bash": False}
    assert chat.client.answered[0][0].approve
    assert chat.controller.auto_approve == set()  # the server's rule holds, nothing hidden


async def test_always_allow_refused_by_the_server_keeps_asking(chat: Chat) -> None:
    await chat.ask()
    chat.client.rule_error = ValidationError("nope")
    chat.controller.decide(chat.state.asking, Choice.ALWAYS_ALLOW)  # type: ignore[arg-type]
    await chat.until(lambda: chat.state.answer_error is not None)
    assert chat.state.answer_error == "The server kept the rule: nope"
    assert chat.state.phase is Phase.AWAITING_APPROVAL and not chat.client.answered


async def test_answers_the_server_refuses_are_asked_again(chat: Chat) -> None:
    await chat.ask()
    chat.client.answers.append(FakeStream([], refuse=APIConnectionError("gone")))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.settled(Phase.AWAITING_APPROVAL)
    error = chat.state.answer_error  # (it may have arrived: it is looked for first)
    assert error is not None and error.startswith("Maybe not sent") and error.endswith("gone")
    assert chat.state.asking is chat.transcript.call(CALL_ID)
    assert chat.transcript.call(CALL_ID).approved is None  # type: ignore[union-attr]


async def test_a_request_pending_when_the_chat_opens_is_asked(chat: Chat) -> None:
    transcript = Transcript()
    transcript.feed_all(recorded(ASKS))
    chat.client._held_after(FakeStream(recorded(ASKS)))
    chat.session.transcript.load_history(recorded(ASKS))
    chat.controller.opened()
    await chat.settled(Phase.AWAITING_APPROVAL)
    assert chat.state.asking is chat.transcript.call(CALL_ID)


async def test_nothing_pending_on_the_server_leaves_the_chat_idle(chat: Chat) -> None:
    chat.session.transcript.load_history(recorded(ASKS))
    chat.controller.opened()  # the transcript shows a request the server no longer holds
    await chat.settled()
    assert chat.transcript.call(CALL_ID).status is ToolStatus.NOT_RUN  # type: ignore[union-attr]


# --- Esc in each phase ------------------------------------------------------------------------


async def test_esc_while_sending_gives_the_message_back(chat: Chat) -> None:
    chat.client.turns.append(FakeStream(recorded(HELLO)))
    chat.controller.submit("hello")
    chat.controller.interrupt()  # before it went out: there is nothing to cancel
    await chat.settled()
    assert chat.listener.restored == ["hello"] and chat.state.stop_reason == "interrupted"
    assert chat.client.sent == [] and chat.client.cancelled == []


async def test_esc_while_streaming_keeps_what_arrived_marked_interrupted(chat: Chat) -> None:
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=hold, hold_at=8))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.state.phase is Phase.STREAMING)
    chat.controller.submit("queued")
    chat.controller.interrupt()
    await chat.settled()
    last = chat.transcript.items[-2]
    assert isinstance(last, EventItem) and last.text == INTERRUPTED
    assert chat.listener.restored == ["queued"]  # the sent one was accepted: not restored
    await chat.until(lambda: chat.client.cancelled, "cancel")


async def test_a_reply_whose_cancel_never_reached_the_server_is_shown_in_full_later(
        chat: Chat) -> None:
    hold = asyncio.Event()
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=hold, hold_at=15))
    chat.controller.submit("hello")
    await chat.until(lambda: any(isinstance(item, AssistantItem)
                                 for item in chat.transcript.items), "a part of the reply")
    run_id = chat.session.run_id
    assert run_id is not None
    full = Transcript()
    full.feed_all(recorded(HELLO))
    said = next(item.text for item in full.items if isinstance(item, AssistantItem))
    first = next(m for m in recorded(HELLO) if isinstance(m, AssistantMessage))
    chat.client.runs[run_id] = Run(id=run_id, status="completed", stop_reason="end_turn")
    chat.client.run_messages[run_id] = [first.model_copy(update={"content": said})]  # stored
    chat.client.cancel_error = APIConnectionError("offline")
    chat.controller.interrupt()
    await chat.until(lambda: chat.state.offline, "offline")
    assert not chat.client.cancelled
    shown = next(item for item in chat.transcript.items if isinstance(item, AssistantItem))
    assert shown.text != said  # cut off by Esc
    chat.client.cancel_error = None
    chat.client.reach(True)  # (the server is back)
    await chat.until(lambda: shown.text == said, "the reply shown in full")
    assert "agent finished its reply" in chat.listener.reports[-1][0]


async def test_esc_during_the_continuation_ends_the_round(chat: Chat) -> None:
    """Issue 18's bug: after approve and Esc, the next message is sent and answered."""
    await chat.ask()
    hold = asyncio.Event()
    chat.client.answers.append(FakeStream(recorded(APPROVED), hold=hold, hold_at=4))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.session.turn_open)
    chat.controller.interrupt()
    await chat.settled()
    chat.client.turns.append(FakeStream(recorded(HELLO)))
    chat.controller.submit("hi")
    await chat.settled()
    assert chat.client.sent == ["run ls", "hi"] and len(chat.client.answered) == 1
    assert APPROVAL_FIRST not in [message for message, _, _ in chat.listener.reports]
    assert chat.state.asking is None and chat.state.stop_reason == "end_turn"




async def test_esc_does_nothing_when_idle_or_waiting_for_approval(chat: Chat) -> None:
    chat.controller.interrupt()
    assert not chat.listener.states
    await chat.ask()
    count = len(chat.listener.states)
    chat.controller.interrupt()
    assert len(chat.listener.states) == count and chat.state.phase is Phase.AWAITING_APPROVAL


# --- leaving and quitting ---------------------------------------------------------------------


async def test_quitting_with_a_deny_sends_cancelled_by_user_then_exits(chat: Chat) -> None:
    await chat.ask()
    chat.client.answers.append(FakeStream(recorded(DENIED)))
    chat.controller.leave(deny=True, quitting=True)
    await chat.until(lambda: chat.listener.exits == 1, "exit")
    (answer,) = chat.client.answered[0]
    assert (answer.approve, answer.reason) == (False, CANCELLED_REASON)


async def test_quitting_and_leaving_it_pending_exits_at_once(chat: Chat) -> None:
    await chat.ask()
    chat.controller.leave(deny=False, quitting=True)
    assert chat.listener.exits == 1 and not chat.client.answered


async def test_closing_mid_reply_stops_everything(chat: Chat) -> None:
    chat.client.turns.append(FakeStream(recorded(HELLO), hold=asyncio.Event()))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.state.phase is Phase.STREAMING)
    assert chat.controller.turn_running
    await chat.controller.close()
    assert not chat.controller.turn_running


async def test_a_bug_in_a_turn_is_reported_and_never_leaves_it_stuck(chat: Chat) -> None:
    def broken(*_args: object, **_kwargs: object) -> FakeStream:
        raise RuntimeError("bug")

    chat.client.send_message = broken  # type: ignore[method-assign]
    chat.controller.submit("hello")
    await chat.settled()
    assert "Unexpected error: RuntimeError('bug')" in chat.listener.reports[-1][0]
    chat.client.send_message = FakeClient.send_message.__get__(chat.client)  # type: ignore[method-assign]
    chat.client.turns.append(FakeStream(recorded(HELLO)))
    chat.controller.submit("again")
    await chat.settled()
    assert chat.state.stop_reason == "end_turn"


async def test_a_message_typed_right_after_esc_is_delivered(chat: Chat) -> None:
    await chat.ask()
    hold = asyncio.Event()
    chat.client.answers.append(FakeStream(recorded(APPROVED), hold=hold, hold_at=4))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.session.turn_open)
    chat.client.turns.append(FakeStream(recorded(HELLO)))
    chat.controller.interrupt()
    chat.controller.submit("hi")  # while the controller asks the server what still waits
    assert chat.state.queued == ("hi",) and not chat.listener.restored
    await chat.settled()
    assert chat.client.sent == ["run ls", "hi"] and chat.state.stop_reason == "end_turn"


async def test_a_call_the_server_still_holds_after_esc_is_asked_again(chat: Chat) -> None:
    await chat.ask()
    held = chat.client.held
    chat.client.answers.append(FakeStream(recorded(APPROVED), hold=asyncio.Event(), hold_at=4))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.session.turn_open)
    chat.client.held = held  # a server that dropped the answers with the cancelled run
    chat.controller.interrupt()
    chat.controller.submit("hi")
    await chat.settled(Phase.AWAITING_APPROVAL)
    assert chat.state.asking is not None and chat.listener.restored == ["hi"]
    assert chat.listener.reports[-1] == (APPROVAL_FIRST, "warning", False)


# --- a reply already going: followed on open, or before a message for a busy conversation ----

REPLAY = "bg_replay_from_0.sse"  # a whole background run, replayed from its first chunk
REPLAY_RUN = "run-830b8006-d83e-451a-bc6f-8e1451ea42cc"


def running(run_id: str = REPLAY_RUN, *, background: bool = True) -> Run:
    return Run(id=run_id, status="running", background=background)


def followed_divider(chat: Chat) -> EventItem:
    events = [item for item in chat.transcript.items
              if isinstance(item, EventItem) and item.event_type == "following"]
    assert len(events) == 1
    return events[0]


async def test_a_reply_going_when_the_chat_opens_is_followed_live(chat: Chat) -> None:
    chat.client.active = [running()]
    chat.client.resumes.append(FakeStream(recorded(REPLAY)))
    chat.controller.opened()
    await chat.settled()
    assert chat.client.resumed == [(REPLAY_RUN, 0)]
    assert Phase.STREAMING in chat.listener.phases
    assert followed_divider(chat).text == controller_module.FOLLOWING_OPENED
    replayed = Transcript()
    replayed.feed_all(recorded(REPLAY))
    assert [item.to_json() for item in chat.transcript.items if item.kind == "assistant"] == [
        item.to_json() for item in replayed.items if item.kind == "assistant"]
    assert chat.state.stop_reason == "end_turn" and not chat.listener.reports


async def test_a_message_typed_while_a_followed_reply_streams_is_sent_after_it(
        chat: Chat) -> None:
    hold = asyncio.Event()
    chat.client.active = [running()]
    chat.client.resumes.append(FakeStream(recorded(REPLAY), hold=hold, hold_at=5))
    chat.client.turns.append(FakeStream(recorded(HELLO)))
    chat.controller.opened()
    await chat.until(lambda: chat.session.turn_open)
    chat.controller.submit("and then?")
    assert chat.state.queued == ("and then?",)
    hold.set()
    await chat.settled()
    assert chat.client.sent == ["and then?"] and chat.state.stop_reason == "end_turn"
    kinds = [item.kind for item in chat.transcript.items]
    assert kinds.index("event") < kinds.index("user")


async def test_nothing_going_when_the_chat_opens_leaves_it_idle(chat: Chat) -> None:
    chat.controller.opened()
    await chat.settled()
    assert not chat.client.resumed and not chat.transcript.items


async def test_a_foreground_reply_going_on_open_shows_once_it_ended(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replies, "RUN_POLL_SECONDS", 0.001)
    run = running(background=False)
    chat.client.active = [run]
    chat.client.runs[run.id] = run
    chat.controller.opened()
    await chat.until(lambda: chat.listener.phases[-2:] == [Phase.STREAMING, Phase.WAITING])
    stored = [parse_message(entry) for entry in
              json.loads((FIXTURES / "run_messages.json").read_text())]
    chat.client.history = stored
    chat.client.runs[run.id] = Run(id=run.id, status="completed", stop_reason="end_turn")
    await chat.settled()
    whole = Transcript()
    whole.load_history(stored)
    assert [item.to_json() for item in chat.transcript.items if item.kind != "footer"] == [
        item.to_json() for item in whole.items]
    assert not chat.client.resumed and chat.state.stop_reason == "end_turn"


async def test_a_busy_conversation_shows_the_reply_holding_it_then_sends(
        chat: Chat, quick_busy_polls: None) -> None:
    busy = ConversationBusyError("busy", run_id=REPLAY_RUN)
    chat.client.runs[REPLAY_RUN] = running()
    hold = asyncio.Event()
    chat.client.resumes.append(FakeStream(recorded(REPLAY), hold=hold, hold_at=5))
    chat.client.turns.extend([FakeStream([], refuse=busy), FakeStream(recorded(HELLO))])
    chat.controller.submit("hello")
    await chat.until(lambda: chat.session.turn_open)
    assert chat.state.queued == ("hello",) and chat.state.phase is Phase.STREAMING
    chat.client.runs[REPLAY_RUN] = Run(id=REPLAY_RUN, status="completed")
    hold.set()
    await chat.settled()
    assert followed_divider(chat).text == controller_module.FOLLOWING_BUSY
    assert chat.client.sent == ["hello", "hello"] and not chat.listener.restored
    kinds = [item.kind for item in chat.transcript.items]
    assert kinds.index("event") < kinds.index("user")
    assert chat.state.stop_reason == "end_turn" and chat.state.queued == ()


async def test_esc_while_waiting_for_a_busy_conversation_cancels_nothing_on_the_server(
        chat: Chat, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(controller_module, "BUSY_POLL_SECONDS", (30.0,))
    chat.client.turns.append(FakeStream([], refuse=ConversationBusyError("busy")))
    chat.controller.submit("hello")
    await chat.until(lambda: chat.state.phase is Phase.WAITING)
    chat.controller.interrupt()
    await chat.settled()
    assert chat.client.cancelled == [] and chat.listener.restored == ["hello"]


async def test_a_reply_dropped_before_naming_its_run_is_found_and_resumed(
        chat: Chat, quick_resumes: None) -> None:
    chat.client.turns.append(FakeStream([], drop=StreamDroppedError(None, None)))
    chat.client.active = [running()]
    chat.client.resumes.append(FakeStream(recorded(REPLAY)))
    chat.controller.submit("hello")
    await chat.settled()
    assert chat.client.resumed == [(REPLAY_RUN, 0)]
    assert chat.state.stop_reason == "end_turn" and not chat.listener.reports


def dropped_after_runs_ended(chat: Chat, runs: list[tuple[str, bool]]) -> None:
    """The next reply drops before naming its run, and no run is going: ``runs`` are the
    thread's newest (``(id, stored the message sent)``), each having stored a user message."""
    stored = [parse_message(entry) for entry in
              json.loads((FIXTURES / "run_messages.json").read_text())]
    chat.client.turns.append(FakeStream([], drop=StreamDroppedError(None, None)))
    chat.client.recent = [Run(id=run_id, status="completed") for run_id, _ in runs]
    chat.client.foreign_runs = {run_id for run_id, ours in runs if not ours}
    chat.client.run_messages = {run_id: stored[:1] for run_id, _ in runs}


async def test_a_reply_dropped_before_naming_its_run_is_found_after_the_run_ended(
        chat: Chat, quick_resumes: None) -> None:
    """The run ended before the client asked: it is the newest of the thread's runs that
    stored the message sent (by its otid), not merely the newest."""
    dropped_after_runs_ended(chat, [("run-someone-else", False), (REPLAY_RUN, True)])
    chat.client.resumes.append(FakeStream(recorded(REPLAY)))
    chat.controller.submit("hello")
    await chat.settled()
    assert chat.client.resumed == [(REPLAY_RUN, 0)]
    assert chat.state.stop_reason == "end_turn" and not chat.listener.reports


async def test_a_reply_dropped_before_naming_its_run_stays_dropped_if_no_run_has_it(
        chat: Chat, quick_resumes: None) -> None:
    dropped_after_runs_ended(chat, [("run-earlier", False)])
    chat.controller.submit("hello")
    await chat.settled()
    assert chat.client.resumed == [] and chat.state.stop_reason == "dropped"


async def test_a_call_that_ran_before_esc_shows_its_stored_result(chat: Chat) -> None:
    await chat.ask()
    approved = recorded(APPROVED)
    run_id = next(message.run_id for message in approved if getattr(message, "run_id", None))
    chat.client.answers.append(FakeStream(approved, hold=asyncio.Event(), hold_at=1))
    chat.controller.decide(chat.state.asking, Choice.APPROVE)  # type: ignore[arg-type]
    await chat.until(lambda: chat.session.run_id == run_id)
    chat.client.run_messages[run_id] = [message for message in approved
                                        if message.message_type == "tool_return_message"]
    chat.controller.interrupt()
    await chat.until(lambda: chat.client.cancelled)
    call = chat.transcript.call(CALL_ID)
    await chat.until(lambda: call is not None and call.status is ToolStatus.SUCCESS,
                     "the stored result")


async def test_footers_from_history_get_their_runs_token_counts(chat: Chat) -> None:
    stored = [parse_message(entry) for entry in
              json.loads((FIXTURES / "run_messages.json").read_text())]
    chat.transcript.load_history(stored)  # a stored turn: history has no usage
    footer = chat.transcript.footers_without_tokens()[0]
    assert footer.tokens is None and footer.run_ids
    usage = {footer.run_ids[0]: RunUsage(prompt_tokens=6378, completion_tokens=27,
                                         total_tokens=6405)}

    async def get_run_usage(run_id: str) -> RunUsage:
        if run_id not in usage:
            raise NotFoundError("no such run")
        return usage[run_id]

    chat.client.get_run_usage = get_run_usage  # type: ignore[attr-defined]
    changes: list = []
    await chat.session.fill_footer_tokens(changes.append)
    assert footer.tokens == 6405 and changes[-1].changed == [footer]
    assert chat.transcript.footers_without_tokens() == []


async def test_the_context_size_is_read_from_the_newest_run_before_any_turn(chat: Chat) -> None:
    stored = [parse_message(entry) for entry in
              json.loads((FIXTURES / "run_messages.json").read_text())]
    chat.transcript.load_history(stored)
    (*_, run_id) = chat.transcript.newest_runs()
    assert chat.transcript.context_tokens is None
    asked: list[str] = []

    async def list_run_steps(run: str) -> list[Step]:
        asked.append(run)
        return [Step(id="step-1", prompt_tokens=5000, completion_tokens=20, total_tokens=5020),
                Step(id="step-2", prompt_tokens=5100, completion_tokens=30)]

    chat.client.list_run_steps = list_run_steps  # type: ignore[attr-defined]
    changes: list = []
    await chat.session.read_context_size(changes.append)
    assert chat.transcript.context_tokens == 5130 and asked == [run_id] and len(changes) == 1
    chat.transcript.set_context_tokens(1)  # a usage gave it meanwhile: it stays
    await chat.session.read_context_size(changes.append)
    assert chat.transcript.context_tokens == 5130 and asked == [run_id]


async def test_a_context_size_the_server_cannot_tell_is_left_unknown(chat: Chat) -> None:
    stored = [parse_message(entry) for entry in
              json.loads((FIXTURES / "run_messages.json").read_text())]
    chat.transcript.load_history(stored)

    async def list_run_steps(run: str) -> list[Step]:
        raise NotFoundError("no such run")

    chat.client.list_run_steps = list_run_steps  # type: ignore[attr-defined]
    await chat.session.read_context_size(lambda _change: None)
    assert chat.transcript.context_tokens is None


async def test_a_message_waiting_for_a_reply_that_fails_is_sent_once_it_ended(
        chat: Chat, quick_busy_polls: None) -> None:
    """The conversation was busy with a reply (the one before, still ending on the server)
    that ends in an LLM error: the message waiting is sent after it, not given back to the
    prompt (where the failed message, put back, would take it in)."""
    failed = recorded("llm_error_tokens.sse")
    busy = ConversationBusyError("busy", run_id=REPLAY_RUN)
    chat.client.runs[REPLAY_RUN] = running()
    chat.client.resumes.append(FakeStream(failed))
    chat.client.turns.extend([FakeStream([], refuse=busy), FakeStream(recorded(HELLO))])
    chat.controller.submit("hello C2")
    await chat.until(lambda: len(chat.client.sent) == 2 and chat.state.phase is Phase.IDLE)
    assert chat.client.sent == ["hello C2", "hello C2"] and "hello C2" not in chat.listener.restored
    assert chat.state.stop_reason == "end_turn" and chat.state.queued == ()
