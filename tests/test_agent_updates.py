"""The per-chunk conversion of an agent's stream: chat updates become agent updates."""

from __future__ import annotations

import copy
import pickle

import attrs
from hypothesis import given
from hypothesis import strategies as st

from agentcore import AgentResponseUpdate, ChatResponseUpdate, Message, TextContent
from agentcore._fastpaths import agent_updates

from .strategies import agent_updates as agent_update_values
from .strategies import chat_updates, optional_texts


def built(update: ChatResponseUpdate, agent_name: str | None) -> AgentResponseUpdate:
    """The conversion written out field by field, through the public constructor."""
    return AgentResponseUpdate(
        contents=update.contents,
        role=update.role,
        author_name=update.author_name,
        agent_name=agent_name,
        response_id=update.response_id,
        message_id=update.message_id,
        finish_reason=update.finish_reason,
        created_at=update.created_at,
        additional_properties=update.additional_properties,
    )


@given(update=chat_updates, agent_name=optional_texts)
def test_a_chat_update_becomes_the_agent_update_with_the_same_fields(
    update: ChatResponseUpdate, agent_name: str | None
) -> None:
    converted = agent_updates(agent_name)(update)
    expected = built(update, agent_name)
    assert type(converted) is AgentResponseUpdate
    assert attrs.asdict(converted, recurse=False) == attrs.asdict(expected, recurse=False)
    assert converted == expected
    assert converted.text == update.text
    assert repr(converted) == repr(expected)


@given(update=agent_update_values)
def test_agent_updates_pass_through_unchanged(update: AgentResponseUpdate) -> None:
    assert agent_updates("someone")(update) is update


def test_converted_updates_are_frozen_and_evolve_like_any_other() -> None:
    converted = agent_updates("bot")(ChatResponseUpdate(contents=(TextContent("hi"),)))
    try:
        converted.role = "user"  # type: ignore[misc]  # proving the instance is frozen
    except attrs.exceptions.FrozenInstanceError:
        pass
    else:  # pragma: no cover  # reached only if the instance were mutable
        raise AssertionError("a converted update must be frozen")
    assert attrs.evolve(converted, role="assistant").role == "assistant"


class TaggedUpdate(ChatResponseUpdate):
    """A provider's own update subclass (no fast path for it)."""


def test_a_subclass_of_chat_update_is_converted_through_the_constructor() -> None:
    update = TaggedUpdate(contents=(TextContent("x"),), role="assistant", message_id="m1")
    assert agent_updates("bot")(update) == built(update, "bot")


@given(texts=st.lists(st.text(max_size=5), max_size=4))
def test_text_joins_the_text_contents_whatever_their_number(texts: list[str]) -> None:
    contents = tuple(TextContent(t) for t in texts)
    assert ChatResponseUpdate(contents=contents).text == "".join(texts)
    assert Message("assistant", contents).text == "".join(texts)


def test_converted_updates_hash_copy_and_pickle_like_constructed_ones() -> None:
    update = ChatResponseUpdate(contents=(TextContent("hi"),), role="assistant", message_id="m")
    converted = agent_updates("bot")(update)
    expected = built(update, "bot")
    assert hash(converted) == hash(expected)
    assert copy.copy(converted) == expected
    assert copy.deepcopy(converted) == expected
    restored = pickle.loads(pickle.dumps(converted))
    assert type(restored) is AgentResponseUpdate
    assert restored == expected
