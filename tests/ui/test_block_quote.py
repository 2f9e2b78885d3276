"""A streamed block quote: drawn as the whole one, its blocks updated in place."""

from __future__ import annotations

from test_markdown_lists import WholeAndStreamed, streamed_beside_whole, styled_lines

QUOTED = """Before.

> The first quoted paragraph, long enough to wrap in a narrow column, **bold** too,
> and continued on a second line.
>
> - a list inside the quote
> - and its second item

After.
"""
QUOTED_PARAGRAPH = "BlockQuote > SteadyParagraph"


async def test_a_streamed_quote_is_drawn_as_the_whole_one_with_its_blocks_kept() -> None:
    app = WholeAndStreamed(QUOTED)
    async with app.run_test(size=(100, 24)) as pilot:
        first = await streamed_beside_whole(
            app, pilot, lambda document: next(iter(document.query(QUOTED_PARAGRAPH)), None))
        assert any("".join(text for text, _ in line).startswith("After.")
                   for line in styled_lines(app, left=False))
        # The quote's first paragraph took each word in place: never replaced.
        assert first is not None and first.is_mounted
        assert first is app.query_one("#streamed").query(QUOTED_PARAGRAPH).first()
