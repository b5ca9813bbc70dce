"""merge_plain_text: the fold's text merge, public for adapters that build a whole
response from separate text parts."""

from __future__ import annotations

import pytest

from agentcore import (
    Annotation,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    ReasoningContent,
    TextContent,
    UriContent,
    merge_plain_text,
)

CITED = TextContent("[1]", annotations=(Annotation(url="https://example.com"),))
IMAGE = UriContent("https://example.com/a.png", "image/png")

CASES: list[list[Content]] = [
    [],
    [TextContent("one")],
    [TextContent("a"), TextContent("b"), TextContent("c")],
    [TextContent("a"), CITED, TextContent("b"), TextContent("c")],
    [TextContent("a"), IMAGE, TextContent("b")],
    [CITED, CITED],
    [TextContent("a"), ReasoningContent("why"), TextContent("b"), TextContent("")],
]


def test_adjacent_plain_text_becomes_one_text() -> None:
    assert merge_plain_text([TextContent("a"), TextContent("b"), CITED, TextContent("c")]) == [
        TextContent("ab"),
        CITED,
        TextContent("c"),
    ]


def test_a_lone_text_is_kept_as_it_is() -> None:
    lone = TextContent("one")
    assert merge_plain_text([IMAGE, lone])[1] is lone


@pytest.mark.parametrize("contents", CASES)
def test_it_equals_the_fold_of_the_same_contents_streamed(contents: list[Content]) -> None:
    updates = [ChatResponseUpdate(contents=(c,), role="assistant") for c in contents]
    folded = ChatResponse.from_updates(updates)
    expected = folded.messages[0].contents if folded.messages else ()
    assert tuple(merge_plain_text(contents)) == expected
