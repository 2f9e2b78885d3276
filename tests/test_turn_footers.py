"""Turn footers: one quiet item under each finished turn, live and from history."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path

from openletta.api.messages import parse_message
from openletta.api.sse import parse_sse_text
from openletta.transcript import ToolCallItem, Transcript, TurnFooterItem, Usage, UserItem
from openletta.ui.widgets.footer import footer_text

FIXTURES = Path(__file__).parent / "fixtures"
START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
_ids = count()


def stream(name: str):
    return parse_sse_text((FIXTURES / name).read_text()).messages


def stored(message_type: str, seconds: int, step: str | None = None, **fields):
    return parse_message({"message_type": message_type, "id": f"message-{next(_ids)}",
                          "date": (START + timedelta(seconds=seconds)).isoformat(),
                          "step_id": step, **fields})


def turn(question: str, at: int, steps: int) -> list:
    """A stored turn: the question, then one assistant line per step, a second apart."""
    messages = [stored("user_message", at, content=question)]
    for step in range(steps):
        messages.append(stored("assistant_message", at + step + 1, f"step-{at}-{step}",
                               content=f"answer {step}"))
    return messages


def of_run(messages: list, run: str) -> list:
    """``messages`` filed under ``run``."""
    for message in messages:
        message.run_id = run
    return messages


def read(tokens: int) -> Usage:
    """A run's usage as the server reports it (no steps)."""
    return Usage(prompt_tokens=tokens - 10, completion_tokens=10, total_tokens=tokens)


def footers(transcript: Transcript) -> list[TurnFooterItem]:
    return [item for item in transcript.items if isinstance(item, TurnFooterItem)]


def kinds(transcript: Transcript) -> list[str]:
    return [item.kind for item in transcript.items]


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_no_footers_unless_asked() -> None:
    transcript = Transcript()
    transcript.load_history(turn("one", 0, 1) + turn("two", 60, 1))
    assert footers(transcript) == []


def test_history_turns_end_with_their_time_and_steps() -> None:
    transcript = Transcript(footers=True)
    transcript.load_history(turn("one", 0, 2) + turn("two", 60, 1))

    assert kinds(transcript) == ["user", "assistant", "assistant", "footer",
                                 "user", "assistant", "footer"]
    first, second = footers(transcript)
    assert (first.date, first.duration, first.steps, first.tokens) == (
        START + timedelta(seconds=2), 2.0, 2, None)
    assert (second.date, second.duration, second.steps) == (START + timedelta(seconds=61), 1.0, 1)


def test_an_unfinished_last_turn_has_no_footer_yet() -> None:
    transcript = Transcript(footers=True)
    pending = stored("approval_request_message", 5, "step-x",
                     tool_call={"name": "bash", "arguments": "{}", "tool_call_id": "call-1"})
    transcript.load_history([*turn("one", 0, 1), stored("user_message", 4, content="two"),
                             pending])
    assert kinds(transcript) == ["user", "assistant", "footer", "user", "tool_call"]


def test_a_turn_split_across_pages_gets_one_footer_with_the_whole_turn() -> None:
    older, newer = turn("one", 0, 3)[:2], turn("one", 0, 3)[2:] + turn("two", 60, 1)
    transcript = Transcript(footers=True)
    transcript.load_history(newer)
    (split, _) = footers(transcript)
    assert split.duration is None and split.steps == 2  # its start is on the older page

    change = transcript.prepend_history(older)

    assert split in change.changed
    assert kinds(transcript) == ["user", "assistant", "assistant", "assistant", "footer",
                                 "user", "assistant", "footer"]
    assert footers(transcript)[0] is split
    assert (split.duration, split.steps) == (3.0, 3)


def test_a_live_turn_footer_has_its_clock_time_tokens_and_steps() -> None:
    clock = FakeClock()
    transcript = Transcript(clock, footers=True)
    transcript.add_user("hello")
    clock.now += 4.5
    transcript.feed_all(stream("hello_tokens.sse"))

    (footer,) = footers(transcript)
    assert transcript.items[-1] is footer
    assert footer.duration == 4.5
    assert footer.tokens == transcript.usage.total_tokens > 0
    assert footer.steps == transcript.usage.step_count == 1


def test_a_turn_that_waits_for_approval_sums_both_requests() -> None:
    transcript = Transcript(footers=True)
    transcript.add_user("run ls")
    transcript.feed_all(stream("approval_request_tokens.sse"))
    assert footers(transcript) == []  # the turn waits for the user
    first = transcript.usage
    call = transcript.pending_approvals[0]
    transcript.record_decisions({call.tool_call_id: (True, None)})
    assert transcript.usage == first  # the turn goes on: its usage is not forgotten
    transcript.feed_all(stream("approval_approve_tokens.sse"))
    (second,) = [message for message in stream("approval_approve_tokens.sse")
                 if message.message_type == "usage_statistics"]

    # The footer and the transcript's usage (the status bar's) both count the whole turn.
    (footer,) = footers(transcript)
    usage = transcript.usage
    assert footer.tokens == usage.total_tokens == first.total_tokens + second.total_tokens
    assert footer.steps == usage.step_count == 2
    assert usage.prompt_tokens == first.prompt_tokens + second.prompt_tokens
    assert usage.context_tokens == second.context_tokens != first.context_tokens


def test_an_interrupted_turn_gets_a_footer_after_the_notice() -> None:
    transcript = Transcript(footers=True)
    transcript.add_user("slow")
    transcript.feed_all(stream("hello_tokens.sse")[:5])
    transcript.end_stream("interrupted", "interrupted by you")
    assert kinds(transcript)[-2:] == ["event", "footer"]


def test_a_turn_interrupted_before_any_token_gets_a_footer_naming_its_run() -> None:
    transcript = Transcript(footers=True)
    transcript.add_user("stall")
    before = datetime.now(UTC)
    transcript.feed_all(stream("hello_tokens.sse")[:1])  # the ping that names the run, no more
    transcript.end_stream("interrupted", "interrupted by you")
    assert kinds(transcript)[-2:] == ["event", "footer"]
    (footer,) = footers(transcript)
    assert footer.run_ids == ("run-6a61b273-2373-436a-ba4f-78c62f635479",)
    assert footer.duration is not None
    assert footer.date is not None and before <= footer.date <= datetime.now(UTC)


def test_a_turn_stopped_before_its_run_was_named_is_named_once_known() -> None:
    transcript = Transcript(footers=True)
    transcript.add_user("stall")
    transcript.end_stream("interrupted", "interrupted by you")
    assert footers(transcript)[0].run_ids == ()
    change = transcript.name_stopped_run("run-1")
    (footer,) = footers(transcript)
    assert footer.run_ids == ("run-1",) and footer in change.changed
    assert transcript.mark_unkept("run-1").changed == [footer] and footer.unkept
    assert not transcript.name_stopped_run("run-2").changed  # a named turn keeps its run


def test_a_turn_ended_by_an_error_gets_a_footer_naming_its_run() -> None:
    transcript = Transcript(footers=True)
    transcript.add_user("llmerror")
    transcript.feed_all(stream("llm_error_tokens.sse"))  # no token came before the error
    assert kinds(transcript)[-2:] == ["error", "footer"]
    assert footers(transcript)[0].run_ids == ("run-be717b67-3012-47c1-b568-c8ae7a0052e3",)


def test_a_turn_ended_by_an_error_before_any_token_says_when_the_error_came() -> None:
    transcript = Transcript(footers=True)
    transcript.add_user("llmerror")
    before = datetime.now(UTC)
    transcript.feed_all(stream("llm_error_tokens.sse"))  # no message of the agent's, no date
    (footer,) = footers(transcript)
    assert footer.date is not None and before <= footer.date <= datetime.now(UTC)
    assert footer_text(footer).startswith(footer.date.astimezone().strftime("%H:%M · "))


def test_only_the_turn_a_run_began_is_said_dropped() -> None:
    transcript = Transcript(footers=True)
    transcript.add_user("run ls")
    transcript.feed_all(stream("approval_request_tokens.sse"))
    call = transcript.pending_approvals[0]
    transcript.record_decisions({call.tool_call_id: (True, None)})
    transcript.feed_all(stream("approval_approve_tokens.sse"))
    (footer,) = footers(transcript)
    first, second = footer.run_ids
    assert not transcript.mark_unkept(second).changed  # the turn's message is in the first
    assert not footer.unkept
    assert footer in transcript.mark_unkept(first).changed and footer.unkept
    assert footer_text(footer).endswith(" · not kept by the server: the agent will not see "
                                        "this turn")


def test_sending_after_history_closes_the_last_history_turn_first() -> None:
    transcript = Transcript(footers=True)
    history = turn("one", 0, 1)
    history.append(stored("tool_return_message", 3, "step-z", tool_return="ok",
                          status="success", tool_call_id="call-9"))
    transcript.load_history(history)
    assert footers(transcript) == []  # ends with a tool return: maybe not finished
    transcript.add_user("next")
    assert kinds(transcript)[-2:] == ["footer", "user"]
    assert isinstance(transcript.items[-1], UserItem)


def test_footer_text() -> None:
    footer = TurnFooterItem(key="f", date=START, duration=75.2, tokens=12_345, steps=3)
    assert footer_text(footer, today=START) == "12:00 · 1m 15s · 12.3k tokens · 3 steps"
    assert footer_text(footer, today=START + timedelta(days=2)).startswith("Jan 01 12:00 · ")
    quick = TurnFooterItem(key="g", duration=0.3, steps=1)
    assert footer_text(quick) == "<1s · 1 step"


def test_a_turn_wholly_on_the_older_page_gets_its_footer_at_the_page_end() -> None:
    older, newer = turn("one", 0, 2), turn("two", 60, 1)
    transcript = Transcript(footers=True)
    transcript.load_history(newer)
    assert kinds(transcript) == ["user", "assistant", "footer"]

    change = transcript.prepend_history(older)

    assert kinds(transcript) == ["user", "assistant", "assistant", "footer",
                                 "user", "assistant", "footer"]
    assert transcript.items[3] in change.prepended
    assert footers(transcript)[0].duration == 2.0


def test_a_history_footer_keeps_its_runs_tokens_when_the_next_turn_starts() -> None:
    transcript = Transcript(footers=True)
    transcript.load_history(of_run(turn("one", 0, 1), "run-1") + of_run(turn("two", 60, 1),
                                                                         "run-2"))
    first, last = footers(transcript)
    transcript.add_run_usage(first, {"run-1": read(300)})
    transcript.add_run_usage(last, {"run-2": read(500)})

    transcript.add_user("three")  # the last turn shown is over: its footer is written again

    assert (first.tokens, last.tokens) == (300, 500)


def test_a_split_turn_keeps_its_runs_tokens_when_its_older_part_arrives() -> None:
    whole = of_run(turn("one", 0, 3), "run-1")
    older, newer = whole[:2], whole[2:] + of_run(turn("two", 60, 1), "run-2")
    transcript = Transcript(footers=True)
    transcript.load_history(newer)
    split, _ = footers(transcript)
    transcript.add_run_usage(split, {"run-1": read(700)})

    transcript.prepend_history(older)  # the footer is written again with the whole turn

    assert (split.steps, split.tokens) == (3, 700)


def test_a_split_turn_whose_older_part_has_another_run_counts_its_tokens_again() -> None:
    whole = turn("one", 0, 3)
    for message, run in zip(whole, ["run-a", "run-a", "run-b", "run-b"], strict=True):
        message.run_id = run  # a turn that paused for approval: two runs
    transcript = Transcript(footers=True)
    transcript.load_history(whole[2:] + turn("two", 60, 1))
    split, _ = footers(transcript)
    assert split.run_ids == ("run-b",)
    transcript.add_run_usage(split, {"run-b": read(700)})

    transcript.prepend_history(whole[:2])

    assert split.run_ids == ("run-a", "run-b") and split.tokens is None
    assert split in transcript.footers_without_tokens()
    assert split.unread_runs == ("run-a",)  # run-b's usage is counted already
    transcript.add_run_usage(split, {"run-a": read(800), "run-b": read(700)})
    assert split.tokens == 1500


def test_a_call_interrupted_here_counts_in_its_turn_not_the_next_ones_run() -> None:
    # Captured from Letta 0.16.8: `local sleep`, approved, stopped by Esc, then `hello after`.
    # The server files the call's result (sent with the next message) under the next run,
    # before that run's user message.
    page = json.loads((FIXTURES / "history_interrupted_local_call.json").read_text())
    transcript = Transcript(footers=True)
    transcript.load_history([parse_message(entry) for entry in page])
    first, second = footers(transcript)
    runs = {entry["content"]: entry["run_id"] for entry in page
            if entry["message_type"] == "user_message"}
    assert first.run_ids == (runs["local sleep"],)
    assert second.run_ids == (runs["hello after"],)
    assert (first.steps, second.steps) == (1, 1)
    assert first.duration is None  # not until the next message: its end is not stored


def test_a_local_call_whose_request_is_on_an_older_page_still_ran_on_a_client() -> None:
    page = [parse_message(entry) for entry in json.loads(
        (FIXTURES / "history_interrupted_local_call.json").read_text())]
    older, newer = page[:3], page[3:]  # the page boundary falls after the request
    transcript = Transcript(footers=True)
    transcript.load_history(newer)
    (call,) = [item for item in transcript.items if isinstance(item, ToolCallItem)]
    assert call.client_result  # known from the answer alone, before its request is read
    transcript.prepend_history(older)
    assert [item for item in transcript.items if isinstance(item, ToolCallItem)] == [call]
    assert call.client_result and call.name == "Bash"
    assert [item.kind for item in transcript.items][:5] == ["user", "reasoning", "tool_call",
                                                            "event", "footer"]


def test_a_turn_reopened_at_its_approval_counts_its_history_part_once() -> None:
    # Captured from Letta 0.16.8: `run ls` asked for approval in one run; the chat was
    # reopened (history up to the request), the call approved, and a second run answered.
    page = [parse_message(entry) for entry in
            json.loads((FIXTURES / "agent_messages_default.json").read_text())]
    asked = next(index for index, message in enumerate(page)
                 if message.message_type == "approval_request_message")
    ended = next(index for index, message in enumerate(page)
                 if index > asked and message.message_type == "user_message")
    (request,) = [message for message in stream("approval_request_tokens.sse")
                  if message.message_type == "usage_statistics"]
    transcript = Transcript(footers=True)
    transcript.load_history(page[:asked + 1])
    call = transcript.pending_approvals[0]
    transcript.record_decisions({call.tool_call_id: (True, None)})
    transcript.feed_all(stream("approval_approve_tokens.sse"))
    approved = transcript.usage

    footer = footers(transcript)[-1]
    first_run, second_run = footer.run_ids
    assert footer.steps == 2  # the request's step (from history), the answer's (its usage)
    assert footer.tokens is None and footer.unread_runs == (first_run,)
    assert footer in transcript.footers_without_tokens()

    transcript.add_run_usage(footer, {
        first_run: Usage(prompt_tokens=request.prompt_tokens,
                         completion_tokens=request.completion_tokens,
                         total_tokens=request.total_tokens),
        second_run: Usage(total_tokens=10**6)})  # counted from its stream already

    whole = request.total_tokens + approved.total_tokens
    assert (footer.tokens, footer.steps) == (whole, 2)
    usage = transcript.usage  # the status bar's figures for the turn
    assert (usage.total_tokens, usage.step_count) == (whole, 2)
    assert usage.prompt_tokens == request.prompt_tokens + approved.prompt_tokens
    assert footer not in transcript.footers_without_tokens()

    transcript.load_history(page[:ended])  # the newest page read again: nothing counts twice
    assert footers(transcript)[-1] is footer and (footer.tokens, footer.steps) == (whole, 2)
    assert footer not in transcript.footers_without_tokens()


def live_turn(transcript: Transcript, text: str, run: str) -> None:
    """A turn streamed here: the user's message, a reply of ``run`` and its usage."""
    transcript.add_user(text)
    envelope = {"run_id": run, "step_id": f"step-{run}", "date": START.isoformat()}
    transcript.feed_all([
        parse_message({**envelope, "message_type": "assistant_message", "id": f"m-{run}",
                       "content": f"answer of {run}"}),
        parse_message({"message_type": "stop_reason", "stop_reason": "end_turn"}),
        parse_message({"message_type": "usage_statistics", "total_tokens": 100,
                       "prompt_tokens": 90, "completion_tokens": 10, "step_count": 1})])


def test_the_newest_page_read_again_counts_an_earlier_turns_run_in_no_later_turn() -> None:
    # After /compact, or when another client's turns are read, the newest page comes again:
    # a stored message of an earlier turn's run that did not stream here (the answer to its
    # approval, say) must not join the figures of the turn that is open now.
    transcript = Transcript(footers=True)
    live_turn(transcript, "one", "run-a")
    live_turn(transcript, "two", "run-b")
    first, second = footers(transcript)
    before = [(footer.run_ids, footer.tokens, footer.steps) for footer in (first, second)]
    answer = {"message_type": "approval_response_message", "id": "m-answer", "run_id": "run-a",
              "date": START.isoformat(),
              "approvals": [{"type": "approval", "tool_call_id": "call-x", "approve": True}]}
    transcript.load_history([parse_message(answer)])
    transcript.add_user("three")  # (the open turn's footer is written again as it ends)
    assert [(footer.run_ids, footer.tokens, footer.steps)
            for footer in (first, second)] == before


def test_a_turn_whose_answer_is_read_back_after_a_broken_connection_keeps_its_figures() -> None:
    # The answers to an approval reached the server, but their connection broke before its
    # reply streamed: the reply is read from the newest page. The turn still ends with the
    # clock's time, and the answer's tool result (filed under the request's step) is not a
    # step of its own.
    clock = FakeClock()
    transcript = Transcript(clock, footers=True)
    transcript.add_user("run ls")
    transcript.feed_all(stream("approval_request_tokens.sse"))
    call = transcript.pending_approvals[0]
    transcript.record_decisions({call.tool_call_id: (True, None)})
    clock.now += 7.0
    answered = stream("approval_approve_tokens.sse")
    (result,) = [message for message in answered
                 if message.message_type == "tool_return_message"]
    reply = next(message for message in answered if message.message_type == "assistant_message")
    stored_reply = parse_message({**reply.model_dump(mode="json"), "content": "Done: 1 file."})
    transcript.load_history([result, stored_reply])

    (footer,) = footers(transcript)
    assert transcript.items[-1] is footer
    assert footer.steps == 2
    assert footer.duration == 7.0


def test_a_turn_read_from_history_after_a_live_one_shows_its_own_usage() -> None:
    # A message that may not have been sent turns out to be on the server: its turn is read
    # from history. The usage shown (the status bar's) is that turn's, read from its run,
    # not the turn streamed before it.
    transcript = Transcript(footers=True)
    live_turn(transcript, "one", "run-a")
    transcript.load_history(of_run(turn("two", 60, 1), "run-b"))
    assert transcript.usage == Usage()  # not known yet: not the earlier turn's
    (recovered,) = transcript.footers_without_tokens()
    transcript.add_run_usage(recovered, {"run-b": read(400)})
    assert transcript.usage == Usage(prompt_tokens=390, completion_tokens=10,
                                     total_tokens=400, step_count=1)


def test_the_newest_turn_read_at_launch_shows_its_usage_an_older_one_not() -> None:
    transcript = Transcript(footers=True)
    transcript.load_history(of_run(turn("one", 0, 2), "run-1") + of_run(turn("two", 60, 1),
                                                                         "run-2"))
    first, last = footers(transcript)
    transcript.add_run_usage(first, {"run-1": read(300)})
    assert transcript.usage == Usage()
    transcript.add_run_usage(last, {"run-2": read(500)})
    assert (transcript.usage.total_tokens, transcript.usage.step_count) == (500, 1)
