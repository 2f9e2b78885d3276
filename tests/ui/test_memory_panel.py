"""The memory panel against the demo server: the blocks beside the chat, refreshed after a turn
that changed one (marked, with a word diff), and a deliberate edit that never overwrites a
block the server changed meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest
from chat_helpers import demo_chat, open_chat, restyled, send
from test_app import SIZE
from test_approvals import prompt_focused
from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import OptionList

from openletta.api import http
from openletta.api.resources import Block
from openletta.chat.local_calls import LocalCalls
from openletta.demo import DemoServer
from openletta.transcript import UserItem
from openletta.ui import memory_panel
from openletta.ui.key_bar import KeyBar
from openletta.ui.memory_block import BlockEditor, BlockView, usage_gauge, word_diff
from openletta.ui.memory_panel import MADE_ROOM, MemoryPanel
from openletta.ui.renderers.base import ADDED, REMOVED
from openletta.ui.screens.chat import ChatScreen


def at_end(view: BlockView) -> None:
    """Put the cursor of the block's open editor at the end of the value."""
    editor = view.query_one(BlockEditor)
    editor.cursor_location = editor.document.end


async def edit(pilot: Pilot, wait_until) -> BlockEditor:
    """Press ``e`` on the focused block, alone (a key that starts a word is typing), and
    wait for its editor."""
    await pilot.press("e")
    await wait_until(pilot, lambda: isinstance(pilot.app.focused, BlockEditor), what="editor")
    assert isinstance(pilot.app.focused, BlockEditor)
    return pilot.app.focused


def blocks(panel: MemoryPanel) -> dict[str, BlockView]:
    return {view.block.label: view for view in panel.query(BlockView)}


async def test_f2_shows_the_blocks_and_a_turn_that_changed_one_marks_it(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press("f2")
        panel = screen.memory
        await wait_until(pilot, lambda: set(blocks(panel)) == {"human", "persona"})
        assert panel.display and app.focused is blocks(panel)["human"]
        assert not any(view.has_class("-changed") for view in blocks(panel).values())
        screen.prompt.focus()
        await send(pilot, screen, "remember my name is Ana", wait_until)
        await wait_until(pilot, lambda: blocks(panel)["human"].has_class("-changed"))
        human = blocks(panel)["human"]
        assert human.block.value.endswith("my name is Ana")
        assert not blocks(panel)["persona"].has_class("-changed")
        human.focus()
        await pilot.press("enter")
        assert human.previous is not None and "my name is Ana" not in human.previous
        await pilot.press("f2")
        assert not panel.display and app.focused is screen.prompt


async def test_a_change_stays_marked_until_the_next_turn_ends(
        demo_server, make_app, wait_until) -> None:
    """Closing and reopening the panel keeps the mark; a turn that changes nothing clears it,
    and a turn that ran while the panel was closed is marked on opening."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press("f2")
        panel = screen.memory
        await wait_until(pilot, lambda: "human" in blocks(panel))
        screen.prompt.focus()
        await send(pilot, screen, "remember my name is Ana", wait_until)
        await wait_until(pilot, lambda: blocks(panel)["human"].has_class("-changed"))
        await pilot.press("f2", "f2")
        await wait_until(pilot, lambda: panel.display and "human" in blocks(panel)
                         and app.focused is blocks(panel)["human"])
        assert blocks(panel)["human"].has_class("-changed")
        screen.prompt.focus()
        await send(pilot, screen, "hello", wait_until)
        await wait_until(pilot, lambda: "human" in blocks(panel)
                         and not blocks(panel)["human"].has_class("-changed"))
        await pilot.press("f2")
        assert not panel.display
        screen.prompt.focus()
        await send(pilot, screen, "remember I drink tea", wait_until)
        await pilot.press("f2")
        await wait_until(pilot, lambda: "human" in blocks(panel)
                         and blocks(panel)["human"].has_class("-changed"))
        previous = blocks(panel)["human"].previous
        assert previous is not None and previous.endswith("my name is Ana")


async def test_an_edit_saves_only_that_block_and_refuses_a_newer_one(
        demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press("f2")
        panel = screen.memory
        await wait_until(pilot, lambda: "persona" in blocks(panel))
        persona = blocks(panel)["persona"]
        persona.focus()
        await edit(pilot, wait_until)
        at_end(persona)
        await pilot.press(*" Likes tea.", "ctrl+s")
        await wait_until(pilot, lambda: blocks(panel)["persona"].block.value.endswith(
            "Likes tea."))
        assert not blocks(panel)["persona"].has_class("-changed")  # the user's own change
        agent = screen.session.agent.id
        async with httpx.AsyncClient(base_url=demo_server.base_url) as other:
            stored = (await other.get(f"/v1/agents/{agent}/core-memory/blocks")).json()
            assert [block["value"] for block in stored if block["label"] == "human"] == [
                blocks(panel)["human"].block.value]  # the other block was not touched
            human = blocks(panel)["human"]
            human.focus()
            await edit(pilot, wait_until)
            at_end(human)
            await other.patch(f"/v1/agents/{agent}/core-memory/blocks/human",
                              json={"value": "Changed elsewhere."})
            await pilot.press(*" mine", "ctrl+s")
            await wait_until(pilot, lambda: human.block.value == "Changed elsewhere.")
            stored = (await other.get(f"/v1/agents/{agent}/core-memory/blocks")).json()
        assert [block["value"] for block in stored if block["label"] == "human"] == [
            "Changed elsewhere."]
        assert "changed on the server" in str(human.query_one(".memory-error").render())


def test_a_word_diff_marks_removed_and_added_words() -> None:
    diff = word_diff("likes tea a lot", "likes coffee a lot")
    assert diff.plain == "likes teacoffee a lot"
    styles = {diff.plain[span.start:span.end]: str(span.style) for span in diff.spans}
    assert REMOVED in styles["tea"] and styles["coffee"] == ADDED
    assert word_diff("likes tea a lot", "likes coffee a lot", removed=False).plain == (
        "likes coffee a lot")  # the new value as it reads
    assert word_diff("a X\x1b[1mbold", "a X\x1b[1mbold\x07Y").plain == (
        "a X␛[1mboldX␛[1mbold␇Y")  # (controls as the editor shows them)


def test_the_gauge_counts_characters_against_the_limit() -> None:
    assert usage_gauge(2500, 5000) == "▰▰▰▰▱▱▱▱ 2,500/5,000 chars"
    assert usage_gauge(12, None) == "12 chars"


@contextlib.asynccontextmanager
async def panel_focused(demo_server, make_app, wait_until, size: tuple[int, int] = SIZE
                        ) -> AsyncIterator[tuple[Pilot[None], ChatScreen]]:
    """The demo chat with the memory panel open and a block focused."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=size) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.focused, BlockView))
        yield pilot, screen


async def test_esc_on_a_block_goes_back_to_the_prompt_and_the_panel_stays(
        demo_server, make_app, wait_until) -> None:
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        await pilot.press("escape")
        assert pilot.app.focused is screen.prompt and screen.memory.display


async def test_enter_on_a_block_with_no_change_to_show_says_so(
        demo_server, make_app, wait_until) -> None:
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        human = blocks(screen.memory)["human"]
        assert pilot.app.focused is human and human.previous is None
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(
            "No change to show in human" in str(toast.message)
            for toast in pilot.app._notifications), what="the note")
        assert pilot.app.focused is human and not human.editing


@pytest.mark.parametrize("typed", ["tell me a joke", "explain memory"])
async def test_a_message_typed_on_a_block_goes_to_the_prompt_and_edits_nothing(
        demo_server, make_app, wait_until, typed: str) -> None:
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        await pilot.press(*typed)
        await wait_until(pilot, lambda: screen.prompt.text == typed, what="the message typed")
        assert pilot.app.focused is screen.prompt
        assert not any(view.editing for view in screen.memory.query(BlockView))


async def test_a_message_typed_on_a_block_in_one_burst_is_sent_by_its_enter(
        demo_server, make_app, wait_until) -> None:
    """Keys that arrive together (a fast typist, a paste of keys) all reach the block before
    the focus moves: the Enter that ends the message sends it, as it would in the prompt."""
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        for character in "hello again":
            pilot.app.post_message(events.Key(character, character))
        pilot.app.post_message(events.Key("enter", "\r"))
        await wait_until(pilot, lambda: [item.text for item in screen.session.transcript.items
                                         if isinstance(item, UserItem)] == ["hello again"],
                         what="the message sent")
        assert screen.prompt.text == ""


async def test_a_blocks_key_at_the_end_of_a_burst_typed_on_it_is_typing(
        demo_server, make_app, wait_until) -> None:
    """"hello there" read together on a block: its last "e" follows letters handed on to
    the prompt, so it is the message's too, and opens no editor."""
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        for character in "hello there":
            pilot.app.post_message(events.Key(character, character))
        await wait_until(pilot, lambda: screen.prompt.text == "hello there",
                         what="the whole message typed")
        await wait_until(pilot, lambda: not screen.memory._stray_keys.pending, what="settled")
        assert not any(view.editing for view in screen.memory.query(BlockView))


async def test_a_block_edited_when_the_narrow_panel_closed_has_the_focus_when_it_opens(
        demo_server, make_app, wait_until) -> None:
    async with panel_focused(demo_server, make_app, wait_until, (80, 24)) as (pilot, screen):
        editor = await edit(pilot, wait_until)
        await pilot.press(*"draft", "f2")
        assert not screen.memory.display and pilot.app.focused is screen.prompt
        await pilot.press("f2")
        await wait_until(pilot, lambda: pilot.app.focused is editor, what="the editor")
        await pilot.press("!")
        assert editor.text.endswith("draft!") and screen.prompt.text == ""


def shown_whole(screen: ChatScreen, widget: Widget) -> bool:
    """Whether ``widget`` is on screen, whole, with the memory panel over none of it."""
    region = widget.region
    return (region.height > 0 and screen.region.contains_region(region)
            and not (screen.memory.display and screen.memory.region.overlaps(region)))


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_on_a_narrow_terminal_the_panel_is_above_the_prompt_and_the_bars(
        demo_server, make_app, wait_until, size: tuple[int, int]) -> None:
    """What is typed shows where it goes: the prompt, the status bar and the chat's newest
    lines stay in sight under the panel, and Esc goes to the prompt, the panel staying."""
    async with panel_focused(demo_server, make_app, wait_until, size) as (pilot, screen):
        await pilot.press(*"hello there")
        await wait_until(pilot, lambda: screen.prompt.text == "hello there", what="typed")
        for kept in (screen.prompt, screen.status, screen.query_one(KeyBar)):
            assert shown_whole(screen, kept), kept
        assert screen.view.region.height >= 3
        assert screen.memory.region.y == 0 and screen.memory.region.width == size[0]
        assert screen.memory.region.contains_region(blocks(screen.memory)["human"].region)
        screen.memory.query_one(BlockView).focus()
        await pilot.press("escape")
        assert pilot.app.focused is screen.prompt and screen.memory.display


async def test_a_request_closes_the_panel_above_the_chat_saying_so(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    """A request that waits for an answer is never answered unseen: the panel above the
    chat closes for it (saying so), and its choices show whole."""
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(80, 24),
                         local=local) as (app, pilot, screen):
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.focused, BlockView), what="a block")
        await pilot.press(*"disk", "enter")
        prompt = await prompt_focused(pilot, screen, wait_until)
        assert not screen.memory.display
        await wait_until(pilot, lambda: shown_whole(screen, prompt.query_one(OptionList)),
                         what="the choices in sight")
        assert any(note.message == MADE_ROOM for note in app._notifications)


async def test_a_request_leaves_the_panel_beside_the_chat_open(
        demo_server, make_app, wait_until, local: LocalCalls) -> None:
    async with demo_chat(make_app, demo_server.base_url, wait_until, size=(120, 40),
                         local=local) as (app, pilot, screen):
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.focused, BlockView), what="a block")
        await pilot.press(*"disk", "enter")
        await prompt_focused(pilot, screen, wait_until)
        assert screen.memory.display and not screen.memory.has_class("-above")


async def test_page_and_end_keys_stay_with_a_block_being_edited(
        demo_server, make_app, wait_until) -> None:
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        taken: list[str] = []
        screen.action_newest = lambda: taken.append("newest")  # type: ignore[method-assign]
        await pilot.press("ctrl+end")
        assert taken == ["newest"]  # outside the editor the chat has the key
        await edit(pilot, wait_until)
        await pilot.press("ctrl+end")
        assert taken == ["newest"]  # in the editor, it does not


async def test_a_read_that_could_not_reach_the_server_is_made_again_once_it_can(
        make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "REACH_AGAIN_PAUSES", (0.05,))
    server = DemoServer(speed=0)
    base_url = await server.start()
    app = make_app(base_url=base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await server.stop()
        await pilot.press("f2")
        panel = screen.memory
        await wait_until(pilot, lambda: "Could not read the memory" in str(
            panel.query_one(".memory-status").render()), what="the failed read")
        assert not blocks(panel) and screen.controller.state.offline
        back = DemoServer(speed=0, port=int(base_url.rsplit(":", 1)[1].strip("/")))
        await back.start()
        try:
            await wait_until(pilot, lambda: set(blocks(panel)) == {"human", "persona"},
                             what="the blocks, read again by themselves")
        finally:
            await back.stop()
        assert not screen.controller.state.offline


async def test_the_key_bar_shows_the_block_keys_that_work_now(
        demo_server, make_app, wait_until) -> None:
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        def actions() -> dict[str, str]:
            return {key: active.binding.action
                    for key, active in screen.active_bindings.items() if active.enabled}

        assert actions()["e"] == "edit" and "toggle_diff" not in actions().values()  # unchanged
        await edit(pilot, wait_until)
        assert not {"edit", "toggle_diff"} & set(actions().values())  # Enter: a new line
        await pilot.press("escape")
        assert actions()["e"] == "edit"


async def test_a_turn_that_ends_while_a_block_is_edited_keeps_the_edit(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        reads: list[str] = []
        list_blocks = screen.session.client.list_blocks

        async def counted(agent_id: str) -> list[Block]:
            reads.append(agent_id)
            return await list_blocks(agent_id)

        monkeypatch.setattr(screen.session.client, "list_blocks", counted)
        await edit(pilot, wait_until)
        await pilot.press(*"half typed")
        editor = pilot.app.focused
        assert isinstance(editor, BlockEditor)
        screen.memory.turn_ended()  # the agent's turn ended: the blocks are read again…
        await wait_until(pilot, lambda: len(reads) == 1, what="read for the block edited")
        await pilot.pause()
        assert editor.is_attached and "half typed" in editor.text  # …but not over the edit
        edited = next(view for view in screen.memory.query(BlockView) if view.editing)
        assert pilot.app.focused is editor and not note(edited)  # nothing changed there
        await pilot.press("escape", "escape")  # the edit discarded: now they are shown
        await wait_until(pilot, lambda: len(reads) == 2, what="read again")


async def test_blocks_are_stepped_through_and_edited_from_their_end_with_a_live_count(
        demo_server, make_app, wait_until) -> None:
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        views = list(screen.memory.query(BlockView))
        assert len(views) > 1 and pilot.app.focused is views[0]
        await pilot.press(*["down"] * len(views))  # the last one stays
        assert pilot.app.focused is views[-1]
        await pilot.press(*["up"] * (len(views) - 1), "down")
        assert pilot.app.focused is views[1]
        value = views[1].block.value
        await edit(pilot, wait_until)
        await pilot.press(*"!", "ctrl+j", "x")
        editor = pilot.app.focused
        assert isinstance(editor, BlockEditor) and editor.text == value + "!\nx"
        title = views[1].query_one(".memory-title").render()
        assert f"{len(value) + 3:,}" in str(title)  # counted as typed
        await pilot.press("escape")  # something was typed: the first Esc only warns
        assert editor.is_attached and "Esc again discards" in str(
            views[1].query_one(".memory-error").render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: not editor.is_attached, what="discarded")
        assert views[1].block.value == value and f"{len(value):,}" in str(
            views[1].query_one(".memory-title").render())
        assert not views[1].query_one(".memory-error").display


def blocks_held(screen: ChatScreen, monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Reads of the blocks wait until the event returned is set."""
    release = asyncio.Event()
    list_blocks = screen.session.client.list_blocks

    async def slow(agent_id: str) -> list[Block]:
        await release.wait()
        return await list_blocks(agent_id)

    monkeypatch.setattr(screen.session.client, "list_blocks", slow)
    return release


async def test_blocks_read_after_the_user_moved_on_leave_the_focus_where_it_is(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        release = blocks_held(screen, monkeypatch)
        await pilot.press("f2")
        await pilot.press("tab")  # the user goes on before the blocks arrive
        moved_to = app.focused
        release.set()
        await wait_until(pilot, lambda: set(blocks(screen.memory)) == {"human", "persona"})
        await pilot.pause()
        assert app.focused is moved_to and not isinstance(moved_to, BlockView)


class SlowToGo(BlockView):
    """A block view whose unmounting takes a while (a busy machine)."""

    leaving = gone = False

    async def on_unmount(self) -> None:
        self.leaving = True
        await asyncio.sleep(0.3)
        self.gone = True


async def test_a_read_made_while_the_last_one_removes_its_blocks_leaves_none_half_gone(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_panel, "BlockView", SlowToGo)
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press("f2")
        await wait_until(pilot, lambda: set(blocks(screen.memory)) == {"human", "persona"})
        first = list(screen.memory.query(SlowToGo))
        screen.memory.reload()
        while not any(view.leaving for view in first):
            await asyncio.sleep(0.01)
        screen.memory.reload()  # cancels the read that is removing the first views
        await wait_until(pilot, lambda: all(view.gone and not view.is_attached
                                            for view in first), what="the first views gone")
        await wait_until(pilot, lambda: set(blocks(screen.memory)) == {"human", "persona"})
        await pilot.press("f2")
        assert not screen.memory.display


async def stored(base_url: str, agent: str, label: str, value: str | None = None) -> str:
    """The value of the block ``label`` on the server (first set to ``value``, as another
    client would)."""
    async with httpx.AsyncClient(base_url=base_url) as other:
        path = f"/v1/agents/{agent}/core-memory/blocks"
        if value is not None:
            (await other.patch(f"{path}/{label}", json={"value": value})).raise_for_status()
        return next(block["value"] for block in (await other.get(path)).json()
                    if block["label"] == label)


@contextlib.asynccontextmanager
async def human_edited(demo_server, make_app, wait_until
                       ) -> AsyncIterator[tuple[Pilot[None], ChatScreen, BlockView, str]]:
    """The block ``human`` open in its editor, `` mine`` typed at its end (also yields what
    the user typed: the whole value)."""
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        human = blocks(screen.memory)["human"]
        human.focus()
        editor = await edit(pilot, wait_until)
        at_end(human)
        await pilot.press(*" mine")
        yield pilot, screen, human, editor.text


def note(view: BlockView) -> str:
    error = view.query_one(".memory-error")
    return str(error.render()) if error.display else ""


async def save_refused(pilot: Pilot[None], screen: ChatScreen, view: BlockView, base_url: str,
                       wait_until) -> str:
    """Change the edited block elsewhere, press Ctrl+S and wait for the refusal; the agent's
    id."""
    agent = screen.session.agent.id
    await stored(base_url, agent, view.block.label, "Changed elsewhere.")
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: "changed on the server" in note(view), what="the refusal")
    return agent


async def test_a_save_refused_for_a_newer_block_keeps_what_was_typed_to_save_it_again(
        demo_server, make_app, wait_until) -> None:
    """The newer value is shown above the editor, which stays open with the user's text;
    only a second Ctrl+S, after that, writes it over the newer value."""
    async with human_edited(demo_server, make_app, wait_until) as (pilot, screen, human, mine):
        agent = await save_refused(pilot, screen, human, demo_server.base_url, wait_until)
        editor = human.query_one(BlockEditor)
        assert pilot.app.focused is editor and editor.text == mine  # nothing typed is lost
        assert "Changed elsewhere." in str(human.query_one(".memory-value").render())
        assert "Ctrl+S saves yours" in note(human)
        assert await stored(demo_server.base_url, agent, "human") == "Changed elsewhere."
        await pilot.press("ctrl+s")  # seen: now the user's text goes over it
        await wait_until(pilot, lambda: blocks(screen.memory)["human"].block.value == mine,
                         what="the value saved")
        assert await stored(demo_server.base_url, agent, "human") == mine


async def test_esc_after_a_refused_save_discards_what_was_typed_for_the_newer_value(
        demo_server, make_app, wait_until) -> None:
    async with human_edited(demo_server, make_app, wait_until) as (pilot, screen, human, _):
        agent = await save_refused(pilot, screen, human, demo_server.base_url, wait_until)
        assert "Esc discards yours" in note(human)
        await pilot.press("escape")  # the note said what Esc does: once is enough
        await wait_until(pilot, lambda: not any(view.editing for view in blocks(
            screen.memory).values()), what="the editor closed")
        shown = blocks(screen.memory)["human"]
        assert shown.block.value == "Changed elsewhere."
        assert str(shown.query_one(".memory-value").render()) == "Changed elsewhere."
        assert await stored(demo_server.base_url, agent, "human") == "Changed elsewhere."


async def test_a_block_the_agent_changes_while_it_is_edited_shows_the_change_there(
        demo_server, make_app, wait_until) -> None:
    """A turn that ends while the block is edited: the change appears above the editor at
    once (the user's text kept, nothing written); Ctrl+S then saves the user's text."""
    async with human_edited(demo_server, make_app, wait_until) as (pilot, screen, human, mine):
        agent = screen.session.agent.id
        screen.prompt.focus()
        await send(pilot, screen, "remember my name is Ana", wait_until)
        await wait_until(pilot, lambda: "changed on the server" in note(human),
                         what="the change noted in the open editor")
        editor = human.query_one(BlockEditor)
        assert editor.text == mine and human.block.value.endswith("my name is Ana")
        assert "my name is Ana" in str(human.query_one(".memory-value").render())
        assert (await stored(demo_server.base_url, agent, "human")).endswith("my name is Ana")
        editor.focus()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: blocks(screen.memory)["human"].block.value == mine,
                         what="the value saved")
        assert await stored(demo_server.base_url, agent, "human") == mine


async def test_toasts_show_beside_the_panel_not_over_it(demo_server, make_app, wait_until) -> None:
    """With the panel beside the chat, a toast shows at the chat's top right, the panel's
    heading in sight; with the panel closed, at the screen's."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press("f2")
        await wait_until(pilot, lambda: "human" in blocks(screen.memory))
        app.notify("Copied 2 lines.", title="Copy")
        await wait_until(pilot, lambda: screen.query("Toast"), what="the toast")
        toast = screen.query_one("Toast")
        await wait_until(pilot, lambda: toast.region.width > 0, what="the toast placed")
        assert toast.region.right <= screen.memory.region.x
        beside = toast.region.right
        await pilot.press("f2")
        await wait_until(pilot, lambda: toast.region.right == beside + 52,
                         what="the toast at the screen's right")


async def test_opening_the_panel_restyles_no_message_of_the_chat(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    """(The screen's class that places the toasts restyled every widget of the screen.)"""
    async with demo_chat(make_app, demo_server.base_url, wait_until, SIZE) as (app, pilot,
                                                                               screen):
        await send(pilot, screen, "hello", wait_until)
        messages = [widget for item in screen.session.transcript.items
                    if (widget := screen.view.widget_for(item)) is not None]
        assert messages
        styled = restyled(app, monkeypatch)
        await pilot.press("f2")
        await wait_until(pilot, lambda: "human" in blocks(screen.memory))
        assert screen.has_class("-memory-beside") and screen in styled
        assert not any(node in styled for message in messages
                       for node in message.walk_children(with_self=True))


async def test_toasts_under_the_panel_above_the_chat_leave_it_and_the_prompt_in_sight(
        demo_server, make_app, wait_until) -> None:
    """At 90 columns the panel is above the chat: a toast shows under it, at the chat's top
    right, over neither the panel nor the prompt."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=(90, 35), notifications=True) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press("f2")
        await wait_until(pilot, lambda: "human" in blocks(screen.memory))
        app.notify("Mode: accept edits. Reads, writes and edits inside the working directory "
                   "run without asking; commands still ask.", title="Local tools")
        await wait_until(pilot, lambda: screen.query("Toast"), what="the toast")
        toast = screen.query_one("Toast")
        await wait_until(pilot, lambda: toast.region.width > 0, what="the toast placed")
        for kept in (screen.memory, screen.prompt, screen.status):
            assert not toast.region.overlaps(kept.region), kept


@pytest.mark.parametrize("size", [(90, 35), (120, 40)])
async def test_the_panels_status_line_shows_above_the_key_bar(
        demo_server, make_app, wait_until, size: tuple[int, int]) -> None:
    async with panel_focused(demo_server, make_app, wait_until, size) as (pilot, screen):
        status = screen.memory.query_one(".memory-status")
        await wait_until(pilot, lambda: "2 blocks" in str(status.visual), what="the status")
        assert status.region.bottom <= screen.query_one(KeyBar).region.y


async def test_keys_typed_right_after_f2_all_go_to_the_prompt_and_enter_sends(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    """Typing before the blocks arrive: the focus stays in the prompt when they do."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        release = blocks_held(screen, monkeypatch)
        await pilot.press("f2", *"quick after F2")
        release.set()
        await wait_until(pilot, lambda: set(blocks(screen.memory)) == {"human", "persona"})
        await pilot.pause()
        assert app.focused is screen.prompt and screen.prompt.text == "quick after F2"
        await pilot.press("enter")
        await wait_until(pilot, lambda: [item.text for item in screen.session.transcript.items
                                         if isinstance(item, UserItem)] == ["quick after F2"],
                         what="the message sent")


async def test_a_message_typed_and_sent_before_the_blocks_arrive_keeps_the_focus_in_the_prompt(
        demo_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    """The prompt is as empty after the message went as before it was typed: the user typed
    all the same, and goes on typing there."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        release = blocks_held(screen, monkeypatch)
        asked = asyncio.Event()
        held = screen.session.client.list_blocks

        async def noted(agent_id: str) -> list[Block]:
            asked.set()
            return await held(agent_id)

        monkeypatch.setattr(screen.session.client, "list_blocks", noted)
        await pilot.press("f2")
        await wait_until(pilot, asked.is_set, what="the blocks asked for")
        assert screen.memory is not None  # (the turn's own read of the blocks left out)
        monkeypatch.setattr(screen.memory, "turn_ended", lambda: None)
        await pilot.press(*"hello", "enter")
        assert screen.prompt.text == ""  # sent
        release.set()
        await wait_until(pilot, lambda: set(blocks(screen.memory)) == {"human", "persona"})
        await pilot.pause()
        assert app.focused is screen.prompt


async def test_a_value_over_the_limit_is_counted_in_red_and_saved_only_at_a_second_ctrl_s(
        demo_server, make_app, wait_until) -> None:
    """The server does not refuse a block over its limit: the first Ctrl+S says by how much
    and keeps the editor open with the text; a second saves it; nothing typed is lost."""
    async with panel_focused(demo_server, make_app, wait_until) as (pilot, screen):
        human = blocks(screen.memory)["human"]
        human.block = human.block.model_copy(update={"limit": len(human.block.value) + 3})
        human.focus()
        editor = await edit(pilot, wait_until)
        at_end(human)
        await pilot.press(*" too long")
        title = human.query_one(".memory-title")
        await wait_until(pilot, lambda: "6 over the limit" in str(title.render()),
                         what="the count over the limit")
        assert any("error" in str(span.style) for span in title.render().spans)  # red
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: "Over the limit by 6 characters" in note(human),
                         what="the question")
        assert pilot.app.focused is editor and editor.text.endswith(" too long")
        agent = screen.session.agent.id
        assert not (await stored(demo_server.base_url, agent, "human")).endswith("too long")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not human.editing, what="saved")
        assert (await stored(demo_server.base_url, agent, "human")).endswith(" too long")
