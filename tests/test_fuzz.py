"""Fuzz: no mutation of a real capture makes openletta raise anything but its typed errors.

The mutations and pipelines are in ``tests/mutations.py``; ``bench/fuzz.py`` runs the same
cases by the hundred thousand and prints how many there were and how many crashed.
"""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutations import (
    FIXTURES,
    PAGES,
    STREAMS,
    TYPED_ERRORS,
    deep,
    mutate_page,
    mutate_stream,
    run_page,
    run_stream,
)

from openletta.api.json_text import JSONTextError

FUZZ = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.sampled_from(STREAMS), st.randoms(use_true_random=False))
def test_a_broken_stream_never_crashes(capture: str, rng: random.Random) -> None:
    body = mutate_stream((FIXTURES / capture).read_bytes(), rng)
    with contextlib.suppress(TYPED_ERRORS):
        run_stream(body)


@FUZZ
@given(st.sampled_from(PAGES), st.sampled_from(PAGES), st.randoms(use_true_random=False))
def test_broken_history_pages_never_crash(newest: str, older: str, rng: random.Random) -> None:
    pages = [mutate_page((FIXTURES / name).read_bytes(), rng) for name in (newest, older)]
    with contextlib.suppress(TYPED_ERRORS):
        run_page(*pages)


def test_the_fuzzer_reaches_every_capture() -> None:
    assert len(STREAMS) > 40 and len(PAGES) > 8


@pytest.mark.parametrize("depth", [65, 1000, 100_000])
def test_deep_nesting_anywhere_in_a_stream_is_survived(depth: int) -> None:
    nested = deep(depth, random.Random(depth))
    body = "".join([
        f"data: {nested}\n\n",
        'data: {"message_type": "tool_call_message", "id": "m", "otid": "o", "tool_call": '
        f'{{"tool_call_id": "t", "name": "bash", "arguments": {json_string(nested)}}}}}\n\n',
        'data: {"message_type": "tool_return_message", "id": "r", "tool_call_id": "t", '
        f'"status": "success", "tool_return": {json_string(nested)}}}\n\n',
        f"event: error\ndata: {nested}\n\n",
    ])
    run_stream(body.encode())
    with pytest.raises(JSONTextError, match="nested more than"):
        run_page(nested.encode())


def json_string(text: str) -> str:
    """``text`` as a JSON string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
