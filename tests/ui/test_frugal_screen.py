"""The chat screen's layouts ask for no second layout, and place every widget as Textual does.

Textual sets the virtual size of each widget a layout resized, and its ``virtual_size``
reactive then asks for another layout of the whole screen, which changes nothing.
:class:`~openletta.ui.textual_internals.FrugalScreen` keeps those from asking.
"""

from __future__ import annotations

from test_repaint import Terminal
from textual.app import App, ComposeResult
from textual.color import Color
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Markdown, Static

from openletta.ui.chat_scroll import ChatScroll
from openletta.ui.textual_internals import FrugalScreen

REPLY = """# A reply

| name | size |
|------|------|
| a.txt | 1 kB |
| b.txt | 22 kB |

> quoted *text* that wraps when the window is narrow enough to wrap it

```python
print("hello")
```

- one
- two
"""


class ReplyApp(App[None]):
    """A screen of ``kind`` with a scrolling Markdown reply on it."""

    def __init__(self, kind: type[Screen[None]]) -> None:
        super().__init__()
        self.kind = kind

    def on_mount(self) -> None:
        class ReplyScreen(self.kind):  # type: ignore[name-defined,misc]
            def compose(self) -> ComposeResult:
                with VerticalScroll():
                    yield Markdown(REPLY)

        self.push_screen(ReplyScreen())


async def layouts_of_a_resize(kind: type[Screen[None]], wait_until
                              ) -> tuple[int, list[tuple[str, Region]]]:
    """How many layouts a resize of the window makes, and where every widget ends up."""
    app = ReplyApp(kind)
    async with app.run_test(size=(60, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("MarkdownTableCellContents")
                         and app.screen.query_one(Markdown).region.height > 10,
                         what="the reply laid out")
        await pilot.pause()
        layouts: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, layouts.append,
                                                          immediate=True)
        await pilot.resize_terminal(44, 24)
        for _ in range(5):
            await pilot.pause()
        regions = [(type(widget).__name__, widget.region)
                   for widget in app.screen.walk_children()]
        return len(layouts), regions


async def test_a_layout_asks_for_no_second_one_and_places_widgets_as_textual_does(
        wait_until) -> None:
    textuals, textual_regions = await layouts_of_a_resize(Screen, wait_until)
    ours, our_regions = await layouts_of_a_resize(FrugalScreen, wait_until)
    assert our_regions == textual_regions
    assert [region.width for name, region in our_regions if name == "Markdown"] == [44]
    assert ours < textuals


class StreamApp(App[None]):
    """A chat-like scroller (``layout: stream``) on a frugal screen: a card (a title and a
    body), then a line below it."""

    CSS = ".-stream { layout: stream; } Vertical { height: auto; }"

    def on_mount(self) -> None:
        class StreamScreen(FrugalScreen[None]):
            def compose(self) -> ComposeResult:
                with VerticalScroll(classes="-stream"):
                    with Vertical(id="card"):
                        yield Static("the card's title")
                        yield Static("one line", id="body")
                    yield Static("below the card", id="below")

        self.push_screen(StreamScreen())


async def card_laid_out(pilot: Pilot[None], wait_until) -> Widget:
    """The card of a :class:`StreamApp`, once laid out and the screen has settled."""
    app = pilot.app
    await wait_until(pilot, lambda: app.screen.query("#below"), what="the screen")
    card = app.screen.query_one("#card")
    await wait_until(pilot, lambda: card.region.height == 2, what="the card laid out")
    await settle(pilot)
    return card


async def test_a_card_that_grows_as_a_widget_below_it_changes_gets_its_room(
        wait_until) -> None:
    """A card's body that grows as a widget below it changes (a call's "not run" reason
    shown as the turn's reply arrives) gets its lines: the card is placed again, not kept
    at the height the stream layout placed it at before."""
    app = StreamApp()
    async with app.run_test(size=(60, 12)) as pilot:
        card = await card_laid_out(pilot, wait_until)
        app.screen.query_one("#body", Static).update("two\nlines")
        app.screen.query_one("#below", Static).update("below the card, changed")
        await wait_until(pilot, lambda: card.region.height == 3, what="the card grown")


async def test_a_widget_that_grew_before_a_layout_for_another_gets_its_room(wait_until) -> None:
    """A widget asks for a layout as it idles (its containers forget their arrangement then)
    and the screen hears of it later. A layout that ran in between, for a widget below it
    (a reply streaming at the chat's end), kept the grown card's old place and stored that
    arrangement; the layout the card's body asked for then used it, and the card kept its
    old height (replies of a history loaded on a busy machine were left with no lines)."""
    app = StreamApp()
    async with app.run_test(size=(60, 12)) as pilot:
        screen, card = app.screen, await card_laid_out(pilot, wait_until)
        body = screen.query_one("#body", Static)
        body.update("two\nlines")
        body._check_refresh()  # it idles: asks the screen for a layout, which hears of it later
        scroll = screen.query_one(VerticalScroll)
        screen._layout_widgets.setdefault(scroll, set()).add(screen.query_one("#below"))
        screen._refresh_layout()  # the layout the widget below asked for runs first
        await wait_until(pilot, lambda: card.region.height == 3, what="the card grown")


async def test_a_layout_asked_for_before_one_runs_is_part_of_it(wait_until) -> None:
    """A widget asks for a layout as it idles; the screen's layout, run by a timer, can come
    before the screen reads that request. The layout arranges the widget anew all the same,
    and the request read after it laid out the screen again for nothing (once a turn: the
    reply whose first paragraph had just mounted). A request is part of the first layout
    that runs after it, and no layout follows."""
    app = StreamApp()
    async with app.run_test(size=(60, 12)) as pilot:
        screen, card = app.screen, await card_laid_out(pilot, wait_until)
        layouts: list[object] = []
        screen.screen_layout_refresh_signal.subscribe(screen, layouts.append, immediate=True)
        screen._layout_required = True  # a request the screen has read
        body = screen.query_one("#body", Static)
        body.update("two\nlines")
        body._check_refresh()  # it idles: asks for a layout
        screen._on_timer_update()  # the screen's timer: a layout, before it reads the request
        assert card.region.height == 3
        await settle(pilot)
        assert len(layouts) == 1


async def test_a_layout_asked_for_right_after_another_is_not_lost(wait_until) -> None:
    """Textual keeps only the last of the layout requests queued one right after the other
    (``Layout.can_replace``): a card whose body grew, followed at once by a widget below it
    that asked for a layout alone, was never noted in the scroller and kept its old height."""
    app = StreamApp()
    async with app.run_test(size=(60, 12)) as pilot:
        screen, card = app.screen, await card_laid_out(pilot, wait_until)
        body, below = screen.query_one("#body", Static), screen.query_one("#below", Static)
        body.update("two\nlines")
        body._check_refresh()  # it idles: asks for a repaint, then a layout
        below.refresh(repaint=False, layout=True)
        below._check_refresh()  # a layout alone, queued right after the body's
        await wait_until(pilot, lambda: card.region.height == 3, what="the card grown")


class ChatLikeScreen(FrugalScreen[None]):
    """A scroller anchored to its bottom, taller than the window (a chat under way)."""

    def compose(self) -> ComposeResult:
        with ChatScroll():
            for number in range(30):
                yield Static(f"item {number}")

    def on_mount(self) -> None:
        self.query_one(ChatScroll).anchor()


class ChatLikeApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(ChatLikeScreen())


async def test_a_widget_added_at_the_bottom_paints_in_one_frame(wait_until) -> None:
    """Mounting a widget lays the screen out, which paints it and the scroll bar whose thumb
    moved; the repaints they asked for (the widget's content set before it was mounted, the
    thumb's new place) then reached the screen, and it painted again what was on screen: a
    frame that changes no cell, or none, after each item the chat added."""
    app = ChatLikeApp()
    async with app.run_test(size=(40, 12)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatLikeScreen)
                         and app.screen.query_one(ChatScroll).max_scroll_y > 0,
                         what="the scroller laid out")
        scroll = app.screen.query_one(ChatScroll)
        await settle(pilot)
        terminal = Terminal(app.screen._compositor)
        for number in range(3):
            item = Static()
            item.update(f"new item {number}", layout=False)  # as the chat fills a new widget
            await scroll.mount(item)
            await wait_until(pilot, lambda item=item: scroll.shows(item), what="shown")
            await settle(pilot)
        assert terminal.changed == [True] * 3
        assert terminal.matches_a_full_render()


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the screen has nothing left to lay out or paint."""
    screen = pilot.app.screen
    for _ in range(5):
        await pilot.pause()
        while screen._layout_required or screen._dirty_widgets or any(
                widget._repaint_required for widget in screen.walk_children()):
            await pilot.pause()


class CoveredApp(App[None]):
    """A frugal screen with a line on it in the theme's accent."""

    CSS = "#line { color: $accent; }"

    def on_mount(self) -> None:
        class LineScreen(FrugalScreen[None]):
            def compose(self) -> ComposeResult:
                yield Static("a line", id="line")

        self.push_screen(LineScreen())


async def test_a_screen_shown_the_first_time_is_styled_once(wait_until, monkeypatch) -> None:
    """Its first frame needs no second styling of every widget it just mounted: they were
    styled as they mounted (the accent of the theme, here)."""
    restyled: list[object] = []
    update_styles = App.update_styles

    def counted(app: App[None], node: object, **options: object) -> None:
        restyled.append(node)
        update_styles(app, node, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "update_styles", counted)
    app = CoveredApp()
    async with app.run_test(size=(40, 8)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("#line"), what="the screen")
        await pilot.pause()
        assert app.screen not in restyled
        accent = app.current_theme.accent
        assert accent is not None
        shown, wanted = app.screen.query_one("#line").styles.color.rgb, Color.parse(accent).rgb
        assert all(abs(a - b) <= 1 for a, b in zip(shown, wanted, strict=True))  # (rounding)


async def test_what_is_painted_while_updates_are_held_reaches_the_terminal_after(
        wait_until) -> None:
    """A layout while the app holds its updates (the chat mounting its history as it opens:
    ``ChatScroll.mount_held``) painted a frame Textual then dropped, and what it painted was
    not painted again: the chat's first frame showed no prompt. The terminal shows all of
    it in the first frame after the hold."""
    app = CoveredApp()
    async with app.run_test(size=(40, 8)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("#line"), what="the screen")
        screen = app.screen
        await settle(pilot)
        terminal = Terminal(screen._compositor, app)
        with app.batch_update():
            screen.query_one("#line", Static).update("b line")
            await pilot.pause()  # the screen hears of the repaint
            screen._refresh_layout()  # as a resize or the first layout of a screen does
            await pilot.pause()  # its paint, while the updates are held
        screen.check_idle()  # as the chat's hold ends
        await settle(pilot)
        assert terminal.matches_a_full_render()
        assert "b line" in "".join(text for text, _style in terminal.rows[0])

