"""The chat screen's layouts ask for no second layout, and place every widget as Textual does.

Textual sets the virtual size of each widget a layout resized, and its ``virtual_size``
reactive then asks for another layout of the whole screen, which changes nothing.
:class:`~openletta.ui.textual_internals.FrugalScreen` keeps those from asking.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Markdown, Static

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


async def test_a_card_that_grows_as_a_widget_below_it_changes_gets_its_room(
        wait_until) -> None:
    """A card's body that grows as a widget below it changes (a call's "not run" reason
    shown as the turn's reply arrives) gets its lines: the card is placed again, not kept
    at the height the stream layout placed it at before."""
    app = StreamApp()
    async with app.run_test(size=(60, 12)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("#below"), what="the screen")
        card = app.screen.query_one("#card")
        await wait_until(pilot, lambda: card.region.height == 2, what="the card laid out")
        app.screen.query_one("#body", Static).update("two\nlines")
        app.screen.query_one("#below", Static).update("below the card, changed")
        await wait_until(pilot, lambda: card.region.height == 3, what="the card grown")
