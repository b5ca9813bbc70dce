"""group_messages cuts a transcript into atomic groups and marks the protected ones."""

from __future__ import annotations

from agentcore import Message, ReasoningContent
from agentcore.compaction import group_messages, summary_note
from agentcore.tokens import estimate_tokens
from tests.compaction._conversations import call, conversation, result


def _tokens(message: Message) -> int:
    return estimate_tokens([message])


def test_a_turn_is_user_step_answer_with_reasoning_inside_its_group() -> None:
    messages = conversation(2)

    groups = group_messages(messages, tokens=_tokens)

    assert [(g.kind, g.start, g.end) for g in groups] == [
        ("system", 0, 1),
        ("user", 1, 2),
        ("step", 2, 6),
        ("answer", 6, 7),
        ("user", 7, 8),
        ("step", 8, 12),
        ("answer", 12, 13),
    ]
    assert groups[2].call_ids == ("c0a", "c0b")
    assert [g.turn for g in groups] == [-1, 1, 1, 1, 4, 4, 4]
    assert groups[2].tokens == sum(_tokens(m) for m in messages[2:6])
    assert groups[2].result_tokens == sum(_tokens(m) for m in messages[4:6])


def test_protected_groups() -> None:
    messages = [*conversation(2), Message("user", "latest")]

    groups = group_messages(messages, tokens=_tokens, keep_first=2)

    assert [(g.index, g.reason) for g in groups if g.protected] == [
        (0, "system"),
        (1, "keep_first"),
        (7, "latest user message"),
    ]
    answered = group_messages(messages[:-1], tokens=_tokens)
    assert [(g.index, g.reason) for g in answered if g.protected] == [
        (0, "system"),
        (4, "latest user message"),
        (6, "latest group"),
    ]


def test_context_messages_and_summaries_are_groups_of_their_own() -> None:
    context = Message("user", "recalled notes")
    note = summary_note("earlier: the user wants a refund")
    messages = [note, Message("assistant", "ok"), context, Message("user", "go")]

    groups = group_messages(
        messages, tokens=_tokens, origin=lambda m: "context" if m is context else "run"
    )

    assert [g.kind for g in groups] == ["summary", "answer", "context", "user"]
    assert groups[2].protected


def test_a_tool_message_answering_no_call_before_it_is_an_orphan() -> None:
    messages = [
        Message("user", "q"),
        Message("assistant", [call("c1")]),
        Message("tool", [result("c1")]),
        Message("tool", [result("zz")]),
        Message("user", "next"),
    ]

    groups = group_messages(messages, tokens=_tokens)

    assert [(g.kind, g.start, g.end) for g in groups] == [
        ("user", 0, 1),
        ("step", 1, 3),
        ("orphan", 3, 4),
        ("user", 4, 5),
    ]
    assert groups[2].call_ids == ("zz",)
    assert not groups[2].protected


def test_trailing_reasoning_is_an_answer() -> None:
    messages = [Message("user", "q"), Message("assistant", [ReasoningContent("hm")])]

    groups = group_messages(messages, tokens=_tokens)

    assert [(g.kind, g.start, g.end) for g in groups] == [("user", 0, 1), ("answer", 1, 2)]
