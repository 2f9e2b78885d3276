"""What a reply's Markdown shows as text, without Textual: the words a reader sees.

A reply is drawn by Textual's Markdown widget from the tokens of :func:`reply_parser`. This
reads the same tokens the same way, keeping the text each block draws and leaving out what
it does not draw: emphasis marks, a link's address, a heading's ``#``, backticks, table
pipes, HTML tags. Each block's text is a line (or lines) of its own, so a query with no line
break matches within one block, as it does on screen. Bullets, list numbers and the lines
of a table are drawn as decoration, not text, and are left out too.
"""

from __future__ import annotations

import functools
import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

#: Runs of white space a paragraph draws as one space.
_SPACES = re.compile(r"\s+")


@functools.cache
def reply_parser() -> MarkdownIt:
    """The one Markdown parser of every reply: Textual makes a new one (its rules and link
    patterns compiled again) for every write of a stream, which costs most of a parse.

    Only addresses with a scheme are links: ``main.py``, ``build.sh`` or ``README.md`` name
    files, not the hosts of Paraguay, Saint Helena or Moldova."""
    parser = MarkdownIt("gfm-like")
    if parser.linkify is not None:  # (linkify-it comes with Textual)
        parser.linkify.set({"fuzzy_link": False})
    return parser


def markdown_text(markdown: str) -> str:
    """The text ``markdown`` shows once rendered, a block to a line."""
    blocks = [block_text(token) for token in reply_parser().parse(markdown)
              if token.type in ("inline", "fence", "code_block")]
    return "\n".join(blocks)


def block_text(token: Token) -> str:
    """The text of a block's content: a code block's code, or its inline text."""
    if token.type in ("fence", "code_block"):
        return token.content.rstrip()
    return "".join(inline_texts(token.children or []))


def inline_texts(children: list[Token]) -> list[str]:
    """The text of inline tokens, as Textual's Markdown blocks draw it (text with its white
    space made single spaces, code without backticks, an image as 🖼 and its alt text)."""
    parts = []
    for child in children:
        kind = child.type
        if kind == "text":
            parts.append(_SPACES.sub(" ", child.content))
        elif kind == "hardbreak":
            parts.append("\n")
        elif kind == "softbreak":
            parts.append(" ")
        elif kind == "code_inline":
            parts.append(child.content)
        elif kind == "image":
            alt = child.attrs.get("alt", "")
            parts.append("🖼  " + (f"({alt})" if alt else ""))
            parts.extend(grandchild.content for grandchild in child.children or [])
    return parts
