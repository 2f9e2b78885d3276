"""``/compact``: the server summarises the thread; the summary shows at its end."""

from __future__ import annotations

from chat_helpers import all_mounted, open_chat, send

from openletta.chat.turn_state import Phase
from openletta.demo import DemoServer
from openletta.transcript import EventItem
from openletta.ui.widgets.event import EventDivider

SIZE = (100, 30)


def rendered(widget, selector: str) -> str:
    """The text of ``widget``'s child ``selector`` as the terminal shows it."""
    return "".join(strip.text for strip in widget.query_one(selector).render_lines(
        widget.query_one(selector).region.reset_offset))


def notes(app) -> list[str]:
    return [str(note.message) for note in app._notifications]


async def test_compact_shows_the_summary_and_refuses_when_too_little(demo_server, make_app,
                                                                     wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        for text in ("hello", "hello again"):
            await send(pilot, screen, text, wait_until)
        items = screen.session.transcript.items
        shown = len(items)
        before = screen.session.transcript.context_tokens
        await pilot.press(*"/compact", "enter")
        await wait_until(pilot, lambda: any(isinstance(item, EventItem) for item in items),
                         what="the summary")
        summary = items[-1]
        assert isinstance(summary, EventItem) and summary.event_type == "compaction_summary"
        assert "hello; hello again" in summary.text
        assert len(items) == shown + 1  # nothing shown again
        await wait_until(pilot, lambda: "Messages in context: 5 → 2." in notes(app),
                         what="the figures")
        assert app.client is not None
        window = await app.client.get_context(screen.session.agent.id)
        await wait_until(pilot, lambda: screen.session.transcript.context_tokens
                         == window.context_window_size_current, what="the context's new size")
        assert before is not None and window.context_window_size_current < before
        assert f"~{window.context_window_size_current / 1000:.1f}k/" in str(
            screen.status.status_line())  # the gauge says so at once, as an estimate
        await all_mounted(pilot, screen.view, [summary])
        divider = screen.view.widget_for(summary)
        assert isinstance(divider, EventDivider)
        await wait_until(pilot, lambda: "Compaction summary" in rendered(divider, ".event-line"),
                         what="the divider's title")
        assert "hello; hello again" in rendered(divider, ".event-text")  # short, but below
        await pilot.press(*"/compact", "enter")
        await wait_until(pilot, lambda: "Could not compact: The server found nothing to compact "
                         "yet: too few older messages, or they are summarised already."
                         in notes(app), what="the refusal")
        assert len(items) == shown + 1
        said = "Could not compact: The server found nothing to compact yet"
        await wait_until(pilot, lambda: any(said in str(note.render())  # after the toast too
                                            for note in screen.query(".notice")),
                         what="the refusal said in the chat")


async def test_compact_waits_for_a_pending_approval(make_app, wait_until) -> None:
    server = DemoServer(speed=0, pending_approval=True)
    base_url = await server.start()
    try:
        app = make_app(base_url=base_url, agent="demo-agent")
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            await wait_until(pilot, lambda: screen.controller.state.phase
                             is Phase.AWAITING_APPROVAL, what="the approval")
            await app.run_action("compact")
            await wait_until(pilot, lambda: any("waits for your approval" in note
                                                for note in notes(app)), what="the refusal")
            assert not any(isinstance(item, EventItem) for item in screen.session.transcript.items)
            assert server.store.agents[screen.session.agent.id].thread.summarised_rows == 0
    finally:
        await server.stop()


async def test_after_compact_the_status_bar_no_longer_says_the_last_turn_was_stopped(
        make_app, wait_until) -> None:
    server = DemoServer(speed=1.0)  # "slow" streams for seconds: Esc stops it
    base_url = await server.start()
    try:
        app = make_app(base_url=base_url, agent="demo-agent")
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_chat(pilot, wait_until)
            for text in ("hello", "hello again"):
                await send(pilot, screen, text, wait_until)
            await pilot.press(*"slow", "enter")
            await wait_until(pilot, lambda: screen.controller.state.replying, what="the reply")
            await pilot.press("escape")
            await wait_until(pilot, lambda: "stopped: interrupted" in str(
                screen.status.status_line()), what="the interrupt said")
            # The run stopped in its first step kept nothing: a second after the stop, the
            # message comes back to the prompt (typed before, "/compact" would follow it there).
            await wait_until(pilot, lambda: screen.prompt.text == "slow",
                             what="the message the server did not keep given back")
            screen.prompt.clear()
            await pilot.press(*"/compact", "enter")
            await wait_until(pilot, lambda: "Messages in context: 5 → 2." in notes(app),
                             what="the compaction")
            assert screen.status.info.stop_reason is None
            assert "stopped" not in str(screen.status.status_line())
    finally:
        await server.stop()
