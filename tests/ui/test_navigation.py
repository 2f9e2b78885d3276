"""Finding things in a long conversation: Ctrl+F, prompt jumps and copying (demo server)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from chat_helpers import open_chat
from textual import events
from textual.app import App
from textual.widgets import Input, OptionList, Static

from openletta.api import http
from openletta.api.client import LettaClient
from openletta.api.errors import ConnectError
from openletta.api.resources import Agent, RunUsage
from openletta.demo import DemoServer
from openletta.transcript import AssistantItem, ToolCallItem, TurnFooterItem, UserItem
from openletta.ui.screens import agents as agents_screen
from openletta.ui.screens.agents import AgentChooserScreen
from openletta.ui.search_bar import MATCH_CLASS
from openletta.ui.widgets.code_block import CodeBlock
from openletta.ui.widgets.user import UserMessage

SIZE = (100, 30)
HISTORY = 300  # six pages of 50; rounds 0 (newest) … 29 (oldest)


@pytest.fixture
async def history_server() -> AsyncIterator[str]:
    server = DemoServer(speed=0, history_messages=HISTORY)
    try:
        yield await server.start()
    finally:
        await server.stop()


def top_item(screen):
    """The item whose widget starts at the top line of the chat view."""
    view = screen.view
    for item in view.mounted_items:
        widget = view.widget_for(item)
        if widget is not None and widget.display and \
                widget.virtual_region.y >= view.scroll.scroll_y:
            return item
    return None


def near_top(screen, item: object) -> bool:
    """``item``'s widget starts in the top quarter of the chat view (a found match's line goes
    there, with what leads to it above)."""
    widget, scroll = screen.view.widget_for(item), screen.view.scroll
    return widget is not None and \
        0 <= widget.virtual_region.y - scroll.scroll_y <= scroll.page_height // 4


def jumped_from(screen, before: object) -> bool:
    """An item other than ``before`` starts exactly at the top line: the view jumped to it."""
    item = top_item(screen)
    widget = screen.view.widget_for(item) if item is not None else None
    return item is not before and widget is not None \
        and widget.virtual_region.y == screen.view.scroll.scroll_y


def view_state(screen) -> tuple[object, ...]:
    """Where the chat view is and what it shows: a page key changes at least one of these."""
    view = screen.view
    mounted = view.mounted_items
    return (view.scroll.scroll_y, mounted[0] if mounted else None, len(mounted),
            len(screen.session.transcript.items), str(view.query_one("#earlier").render()))


def marked(screen) -> list[object]:
    return [widget.item for widget in screen.view.scroll.query(f".{MATCH_CLASS}")]


async def test_find_steps_through_matches_and_loads_older_pages(
        history_server, make_app, wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(base_url=history_server, agent="demo-agent")
    asked: set[str] = set()
    usage = LettaClient.get_run_usage

    async def counted(client: LettaClient, run_id: str) -> RunUsage:
        asked.add(run_id)
        return await usage(client, run_id)

    monkeypatch.setattr(LettaClient, "get_run_usage", counted)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await pilot.press("ctrl+f", *"ROUND 2?")
        assert screen.search.display and app.focused is screen.search.query_one("#search-input")
        newest, older = screen.search.matches[-1], screen.search.matches[-2]
        assert all("round 2?" in item.text for item in screen.search.matches)

        await pilot.press("enter")
        await wait_until(pilot, lambda: marked(screen) == [newest], what="newest match")
        await wait_until(pilot, lambda: near_top(screen, newest), what="match near the top")
        await pilot.press("up")
        await wait_until(pilot, lambda: marked(screen) == [older], what="older match")
        await wait_until(pilot, lambda: near_top(screen, older), what="match near the top")
        await pilot.press("down")
        await wait_until(pilot, lambda: marked(screen) == [newest], what="newer again")

        await pilot.press("home", "ctrl+k", *"round 25?")  # only on an older page
        assert screen.search.matches == []
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(marked(screen)) == 1, what="match on an older page",
                         timeout=10)
        (found,) = marked(screen)
        assert isinstance(found, UserItem) and "round 25?" in found.text
        await wait_until(pilot, lambda: near_top(screen, found), what="scrolled to it")
        runs = {run for item in screen.session.transcript.items
                if isinstance(item, TurnFooterItem) for run in item.run_ids}
        await wait_until(pilot, lambda: runs <= asked, what="the usage of the turns' runs "
                         "on the pages search loaded (for their footers' tokens)")

        await pilot.press("escape")
        assert not screen.search.display and app.focused is screen.prompt
        assert marked(screen) == []


async def test_alt_arrows_jump_between_prompts(history_server, make_app, wait_until) -> None:
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        prompts = [item for item in screen.session.transcript.items if isinstance(item, UserItem)]
        newest = screen.view.widget_for(prompts[-1])
        assert newest is not None and screen.view.scroll.shows(newest)
        before = top_item(screen)
        await pilot.press("alt+up")  # the newest, in sight below the top: it goes there first
        await wait_until(pilot, lambda: app.focused is newest, what="the newest prompt focused")
        assert top_item(screen) is before  # (the view cannot bring it to the top)
        visited = []
        for _ in range(3):
            before = top_item(screen)
            await pilot.press("alt+up")
            await wait_until(pilot, lambda before=before: jumped_from(screen, before),
                             what="a jump to the previous prompt")
            visited.append(top_item(screen))
        assert all(isinstance(item, UserItem) for item in visited)
        assert prompts[-1] not in visited
        assert [prompts.index(item) for item in visited] == sorted(
            (prompts.index(item) for item in visited), reverse=True)
        assert len(set(visited)) == 3
        await pilot.press("alt+down")
        await wait_until(pilot, lambda: jumped_from(screen, visited[2]),
                         what="a jump to the next prompt")
        assert top_item(screen) is visited[1]
        for _ in range(5):
            await pilot.press("alt+down")
        await wait_until(pilot, lambda: screen.view.following, what="back at the bottom")


async def test_page_keys_scroll_the_chat_from_the_prompt_and_ctrl_end_comes_back(
        history_server, make_app, wait_until) -> None:
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        view, transcript = screen.view, screen.session.transcript
        await pilot.press(*"draft")
        bottom = view.scroll.scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        assert view.scroll.scroll_y < bottom and not view.following
        first_page = len(transcript.items)
        for _ in range(40):  # on up through the loaded items and into an older page
            before = view_state(screen)
            await pilot.press("pageup")
            await wait_until(pilot, lambda before=before: view_state(screen) != before,
                             what="PageUp to move the view, mount more or load more")
            if len(transcript.items) > first_page:
                break
        assert len(transcript.items) > first_page
        assert transcript.items[-1] not in view.mounted_items  # the newest went out below
        await pilot.press("pagedown")
        await pilot.pause()
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: view.following, what="following again")
        assert view.mounted_items[-1] is transcript.items[-1]
        assert app.focused is screen.prompt and screen.prompt.text == "draft"


async def test_c_copies_the_focused_message_code_block_or_tool_output(
        history_server, make_app, wait_until) -> None:
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        items = screen.session.transcript.items
        user = next(item for item in reversed(items) if isinstance(item, UserItem))
        reply = next(item for item in reversed(items) if isinstance(item, AssistantItem))
        call = next(item for item in reversed(items)
                    if isinstance(item, ToolCallItem) and item.result)

        for item, expected in [(user, user.text), (reply, reply.text),
                               (call, "\n".join(call.stdout) or call.result)]:
            widget = await screen.view.scroll_to_item(item)
            assert widget is not None
            widget.focus()
            await pilot.press("c")
            await wait_until(pilot, lambda expected=expected: app.clipboard == expected,
                             what="copied")

        fence = screen.view.scroll.query(CodeBlock).last()
        fence.focus()
        await pilot.press("c")
        await wait_until(pilot, lambda: app.clipboard.startswith("./build.sh --round "),
                         what="the code copied")
        await pilot.pause()
        assert any("code block" in str(toast.message) for toast in app._notifications)


async def test_export_writes_every_page_of_the_conversation(
        history_server, make_app, wait_until, tmp_path) -> None:
    app = make_app(base_url=history_server, agent="demo-agent")
    target = tmp_path / "all.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        assert screen.view.more_on_server  # only the newest page is loaded
        await pilot.press(*f"/export {target}", "enter")
        await wait_until(pilot, target.exists, what="export file", timeout=10)
    exported = target.read_text(encoding="utf-8")
    assert "Question 1: what changed in round 29?" in exported  # the very first message
    assert f"Question {HISTORY - 1}: what changed in round 0?" in exported
    assert exported.count("## You") == sum(1 for position in range(1, HISTORY + 1)
                                           if f"Question {position}:" in exported)


async def test_the_agent_chooser_pages_and_ctrl_a_opens_it(
        demo_server, make_app, wait_until, monkeypatch) -> None:
    monkeypatch.setattr(agents_screen, "LIST_LIMIT", 2)
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
        await pilot.press("ctrl+a")
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen)
                         and app.screen.agents, what="chooser")
        chooser = app.screen
        assert len(chooser.agents) == 2
        await pilot.press("down")  # the last row of the page: the next page comes
        await wait_until(pilot, lambda: len(chooser.agents) == 3, what="second page")
        names = [agent.name for agent in chooser.agents]
        assert len(set(names)) == 3
        assert chooser.query_one("#agent-list").option_count == 3


async def test_a_match_in_a_folded_message_opens_it(demo_server, make_app, wait_until) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        screen.prompt.load_text("\n".join(f"pasted {n}" for n in range(20)) + "\nneedle here")
        await pilot.press("enter")
        transcript = screen.session.transcript
        await wait_until(pilot, lambda: transcript.stop_reason and not screen.busy,
                         what="the reply")
        (pasted,) = [item for item in transcript.items if isinstance(item, UserItem)]
        widget = screen.view.widget_for(pasted)
        assert isinstance(widget, UserMessage) and not widget.expanded
        await pilot.press("ctrl+f", *"needle", "enter")
        await wait_until(pilot, lambda: marked(screen) == [pasted], what="the match")
        assert widget.expanded


class OfflineClient:
    """Cannot reach the server for the first ``down`` listings."""

    def __init__(self, agent: Agent, down: int) -> None:
        self.agent, self.down, self.listings = agent, down, 0

    async def list_agents(self, query: str | None = None, **_paging: object) -> list[Agent]:
        self.listings += 1
        if self.listings <= self.down:
            raise ConnectError("http://127.0.0.1:9")
        return [self.agent]


async def test_the_agent_chooser_lists_again_by_itself_once_the_server_is_back(
        wait_until, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "REACH_AGAIN_PAUSES", (0.05, 0.1))
    client = OfflineClient(Agent(id="agent-1", name="back",
                                 last_run_completion=datetime(2026, 11, 27, tzinfo=UTC)), down=2)
    chooser = AgentChooserScreen(client, lambda _agent: None)  # type: ignore[arg-type]
    app = App[None]()
    async with app.run_test(size=(100, 30)) as pilot:
        await app.push_screen(chooser)
        empty = chooser.query_one("#agents-empty", Static)
        await wait_until(pilot, lambda: agents_screen.TRYING_AGAIN in str(empty.render()),
                         what="the failure, and that it tries again")
        await wait_until(pilot, lambda: chooser.agents, what="the agents, with no key pressed")
        assert client.listings == 3 and not empty.display


class OrderedClient:
    """Agents as a server orders them: ``by_run`` when asked to order by the last run's
    completion (Letta 0.16.8 records none: its order is then no order), ``by_change`` when
    asked to order by when they changed."""

    def __init__(self, by_run: list[Agent], by_change: list[Agent]) -> None:
        self.by_run, self.by_change = by_run, by_change
        self.asked: list[str] = []

    async def list_agents(self, query: str | None = None, *, order_by: str,
                          **_paging: object) -> list[Agent]:
        self.asked.append(order_by)
        return list(self.by_run if order_by == "last_run_completion" else self.by_change)


def agents_named(*names: str, ran: bool = False) -> list[Agent]:
    return [Agent(id=f"agent-{name}", name=name,
                  last_run_completion=datetime(2026, 11, 27, tzinfo=UTC) if ran else None)
            for name in names]


async def chooser_shows(client: OrderedClient, wait_until, recent: str | None = None
                        ) -> tuple[list[str], str]:
    """The agents the chooser lists and the one highlighted."""
    chooser = AgentChooserScreen(client, lambda _agent: None,  # type: ignore[arg-type]
                                 recent=recent)
    app = App[None]()
    async with app.run_test(size=(100, 30)) as pilot:
        await app.push_screen(chooser)
        await wait_until(pilot, lambda: chooser.agents, what="the agents")
        highlighted = chooser.query_one(OptionList).highlighted
        assert highlighted is not None
        return [agent.name for agent in chooser.agents], chooser.agents[highlighted].name


async def test_agents_no_run_of_which_is_recorded_are_listed_latest_changed_first(
        wait_until) -> None:
    client = OrderedClient(agents_named("old", "new"), agents_named("new", "old"))
    assert await chooser_shows(client, wait_until) == (["new", "old"], "new")
    assert client.asked == ["last_run_completion", "updated_at"]


async def test_agents_listed_by_their_last_run_stay_in_that_order(wait_until) -> None:
    client = OrderedClient(agents_named("ran-last", "ran-first", ran=True), [])
    assert await chooser_shows(client, wait_until) == (["ran-last", "ran-first"], "ran-last")
    assert client.asked == ["last_run_completion"]


async def test_the_agent_of_the_chat_last_opened_heads_the_list(wait_until) -> None:
    client = OrderedClient(agents_named("a", "b", "last", ran=True), [])
    assert await chooser_shows(client, wait_until, recent="agent-last") == (
        ["last", "a", "b"], "last")


async def test_ctrl_c_twice_quits_from_the_chooser_with_a_search_typed(
        demo_server, make_app, wait_until) -> None:
    """The search field selects its text (a name from the command line) and took Ctrl+C to
    copy it: neither Ctrl+C quit, and the key bar showed no way out."""
    app = make_app(base_url=demo_server.base_url, agent="no-such-agent")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentChooserScreen),
                         what="the chooser, searching for the name")
        chooser = app.screen
        assert chooser.query_one("#agent-filter", Input).value == "no-such-agent"
        assert "Ctrl+Q quits" in str(chooser.query_one("#agents-hint", Static).render())
        await pilot.press("ctrl+c", "ctrl+c")
        await wait_until(pilot, lambda: app.return_code is not None, what="the app to quit")


async def test_the_focus_follows_the_view_off_an_item_it_left(
        history_server, make_app, wait_until) -> None:
    """An item with the focus that the view leaves passes the focus to the item in view
    nearest it: PageUp from the newest item, End from an older one; ``c`` then copies what
    is shown."""
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        scroll = screen.view.scroll

        def focus_in_view() -> bool:
            focused = app.focused
            return focused is not None and screen.in_chat(focused) and scroll.shows(focused)

        await pilot.press("tab")
        newest = app.focused
        assert newest is not None and screen.in_chat(newest)
        await pilot.press("pageup")
        await wait_until(pilot, lambda: not scroll.shows(newest) and app.focused is not newest,
                         what="the view and the focus gone up")
        assert focus_in_view()
        for _ in range(2):
            before = view_state(screen)
            await pilot.press("pageup")
            await wait_until(pilot, lambda before=before: view_state(screen) != before,
                             what="another page up")
        await wait_until(pilot, focus_in_view, what="the focus in view")
        older = app.focused
        await pilot.press("end")
        await wait_until(pilot, lambda: scroll.at_bottom and not scroll.shows(older),
                         what="back at the bottom")
        await wait_until(pilot, focus_in_view, what="the focus in view")


async def test_home_in_the_chat_goes_to_the_start_of_the_conversation(
        history_server, make_app, wait_until) -> None:
    """Home on an item loads every older page and shows the first message, the row above it
    that says the conversation begins there too; in the prompt it stays the start of the
    line."""
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        session = screen.session
        await pilot.press(*"draft", "home")
        assert session.has_more_history and screen.prompt.cursor_location == (0, 0)
        await pilot.press("tab", "home")
        await wait_until(pilot, lambda: not session.has_more_history, what="every page loaded")
        first = next(item for item in session.transcript.items if not item.internal)
        await wait_until(pilot, lambda: (widget := screen.view.widget_for(first)) is not None
                         and screen.view.scroll.shows(widget), what="the first message shown")
        assert screen.prompt.text == "draft"
        await wait_until(pilot, lambda: screen.view.scroll.scroll_y == 0,
                         what="the very top: 'beginning of the conversation' above it shown")


async def test_the_focus_is_never_lost_when_the_view_jumps_away_from_it(
        history_server, make_app, wait_until) -> None:
    """Ctrl+End (or End) from an item far up takes the view to the newest, and the focus
    with it: keys typed or pasted next reach the prompt."""
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        session = screen.session
        for key in ("ctrl+end", "end"):
            await pilot.press("tab", "home")
            await wait_until(pilot, lambda: not session.has_more_history
                             and screen.view.scroll.scroll_y < 5, what="at the start")
            await pilot.press(key)
            await wait_until(pilot, lambda: screen.view.following
                             and screen.view.mounted_items[-1] is session.transcript.items[-1],
                             what=f"{key}: at the newest")
            await wait_until(pilot, lambda: app.focused is not None, what="something focused")
            await pilot.press("x")
            await wait_until(pilot, lambda: screen.prompt.text.endswith("x"),
                             what=f"{key}: typing reaches the prompt")
            screen.prompt.clear()
            screen.prompt.focus()


async def item_focused(pilot, wait_until):
    """The chat, Tab pressed in it: the newest item in view has the focus."""
    screen = await open_chat(pilot, wait_until)
    await pilot.press("tab")
    item = pilot.app.focused
    assert item is not None and screen.in_chat(item)
    return screen, item


async def test_a_paste_on_a_message_goes_to_the_prompt(
        history_server, make_app, wait_until) -> None:
    """A paste with the focus on a message is the message's, as typing there is."""
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen, item = await item_focused(pilot, wait_until)
        item.post_message(events.Paste("pasted\nlines"))
        await wait_until(pilot, lambda: screen.prompt.text == "pasted\nlines",
                         what="the paste in the prompt")
        assert app.focused is screen.prompt


async def test_nothing_focused_in_the_chat_gives_the_focus_back(
        history_server, make_app, wait_until) -> None:
    """When the item that had the focus goes with the view (the window of items moved on:
    Ctrl+End, Home), the focus goes to an item in view, or the prompt: keys never vanish."""
    app = make_app(base_url=history_server, agent="demo-agent")
    async with app.run_test(size=SIZE) as pilot:
        screen, _ = await item_focused(pilot, wait_until)
        screen.set_focus(None)
        await wait_until(pilot, lambda: app.focused is not None and app.focused.display,
                         what="the focus on something shown")
        assert screen.in_chat(app.focused) and screen.view.scroll.shows(app.focused)
        await pilot.press("q")
        await wait_until(pilot, lambda: screen.prompt.text == "q", what="typing reaches it")
