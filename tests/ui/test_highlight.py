"""Highlighting code that grows: what Textual gives for the whole code at every step, while
lexing only the new end."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexer import Lexer
from textual.highlight import ANSIDarkHighlightTheme, HighlightTheme
from textual.highlight import highlight as textual_highlight

from openletta.ui import highlight as growing
from openletta.ui.highlight import CHECKED_LINES, highlight

#: Code in languages whose lexers carry state over lines: strings, comments, heredocs, a C
#: function's body, YAML's indents, script inside HTML, tabs (Textual lexes them expanded).
SAMPLES = {
    "python": ('@dataclass\nclass A:\n    """Doc\nat the left edge\n"""\n    x: int = 1\n'
               'def f(a,\nb):\n    s = f"{a}\\\n{b}"\n    return (a +\nb)\n'
               "t = '''\nx = 1\n'''\nimport os, \\\n    sys\n# done\n") * 10,
    "c": '#include <x.h>\nint main() {\n  /* multi\n line */\n  return 0;\n}\n' * 12,
    "rust": 'fn main() {\n    let s = "multi\nline";\n    /* a\n b */\n    f(s);\n}\n' * 12,
    "javascript": "const a = `one\n${x}\ntwo`;\n// note\nfunction f(x) {\n  return x / 2;\n}\n"
                  "/re/.test(a);\n" * 10,
    "html": "<html>\n<script>\nvar x = 1;\nfunction y() {\n return '<b>';\n}\n</script>\n"
            "<style>\nbody { color: red; }\n</style>\n<p>hi</p>\n</html>\n" * 6,
    "yaml": "a:\n  b: 1\n  c: |\n    text\nmore\n  d:\n    - x\n- y\n" * 12,
    "bash": 'for f in *; do\n  echo "$f\nx"\n  cat <<EOF\n$f\nEOF\ndone\n' * 12,
    "json": '{\n  "a": [1, 2,\n3],\n  "b": "x\\ny"\n}\n' * 12,
    "markdown": "# T\n\n```py\nx = '''\n```\n\n- a\n- b\n" * 12,
    "make": "all:\n\tcc -o x x.c\n\techo done\nclean:\n\trm x\n" * 12,
}


def grown(code: str, steps: list[int]) -> list[str]:
    """``code`` as it streams: a prefix longer by each of ``steps`` (cycled), to the end."""
    prefixes, end, index = [], 0, 0
    while end < len(code):
        end = min(len(code), end + steps[index % len(steps)])
        prefixes.append(code[:end])
        index += 1
    return prefixes


def assert_same(ours: object, textual: object, where: str) -> None:
    from textual.content import Content
    assert isinstance(ours, Content) and isinstance(textual, Content)
    assert ours.plain == textual.plain, where
    assert ours.spans == textual.spans, where


@pytest.mark.parametrize("language", sorted(SAMPLES))
@pytest.mark.parametrize("theme", [HighlightTheme, ANSIDarkHighlightTheme])
@settings(max_examples=6, deadline=None)
@given(steps=st.lists(st.integers(min_value=3, max_value=90), min_size=1, max_size=8))
def test_code_that_grows_is_highlighted_as_textual_highlights_it_whole(
        language: str, theme: type[HighlightTheme], steps: list[int]) -> None:
    growing._recent.clear()
    for code in grown(SAMPLES[language], steps):
        assert_same(highlight(code, language=language, theme=theme),
                    textual_highlight(code, language=language, theme=theme),
                    f"{language} at {len(code)}")


def test_another_code_or_language_in_between_is_highlighted_as_textual_does() -> None:
    growing._recent.clear()
    python, c = SAMPLES["python"], SAMPLES["c"]
    for code, language in [(python[:900], "python"), (c[:300], "c"), (python[:2000], "python"),
                           (python[:500], "python"), ("x = 1\n" + python, "python"),
                           (python[:1200], "")]:
        assert_same(highlight(code, language=language or None),
                    textual_highlight(code, language=language or None), language)


@pytest.fixture
def lexed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts given to a lexer from now on."""
    texts: list[str] = []
    get_tokens = Lexer.get_tokens

    def counted(self: Lexer, text: str, unfiltered: bool = False):  # type: ignore[no-untyped-def]
        texts.append(text)
        return get_tokens(self, text, unfiltered)

    monkeypatch.setattr(Lexer, "get_tokens", counted)
    growing._recent.clear()
    return texts


def test_code_that_grows_a_line_at_a_time_is_lexed_by_its_new_end(lexed: list[str]) -> None:
    lines = [f"def step_{n}(x: int) -> int:\n    return x + {n}\n" for n in range(150)]
    code = "".join(lines)
    for line in range(1, 2 * len(lines) + 1):
        highlight("".join(code.splitlines(keepends=True)[:line]), language="python")
    # Lexed whole at each write, it would be lexed 150 times over; here a few lines a write.
    assert sum(map(len, lexed)) < 10 * len(code)
    assert max(text.count("\n") for text in lexed[10:]) <= CHECKED_LINES + 4


def test_whole_lexes_all_of_the_code_again(lexed: list[str]) -> None:
    code = SAMPLES["python"]
    highlight(code[:1000], language="python")
    highlight(code, language="python", whole=True)
    assert lexed[-1] == code


def test_code_with_no_line_at_the_left_edge_is_lexed_whole(lexed: list[str]) -> None:
    body = "".join(f"    total += {n}\n" for n in range(40))
    highlight("def f():\n" + body, language="python")
    highlight("def f():\n" + body + "    return total\n", language="python")
    assert lexed[-1].startswith("def f():")  # no line to start from that is sure enough
