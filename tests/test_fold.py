"""The fold: streamed updates become the response a non-streamed call gives."""

from __future__ import annotations

import itertools
import json
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import (
    AgentResponse,
    AgentResponseUpdate,
    Annotation,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    CustomEvent,
    DataContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ReasoningContent,
    TextContent,
    UriContent,
    Usage,
    UsageContent,
)
from agentcore._types.responses import _Fold  # pyright: ignore[reportPrivateUsage]  # the fold's slow path is the oracle
from agentcore.testing import chunk_response
from tests.strategies import finish_reasons, ids, json_objects, optional_ids, texts, usages


def _split(draw: st.DrawFn, text: str) -> list[str]:
    """Cut ``text`` at random points (empty pieces included)."""
    cuts = draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=5))
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _interleave(draw: st.DrawFn, queues: list[list[Content]]) -> list[Content]:
    """Merge the queues in a random order that keeps each queue's own order."""
    pending = [list(q) for q in queues if q]
    merged: list[Content] = []
    while pending:
        i = draw(st.integers(min_value=0, max_value=len(pending) - 1))
        merged.append(pending[i].pop(0))
        if not pending[i]:
            pending.pop(i)
    return merged


@st.composite
def streamed_turns(draw: st.DrawFn) -> tuple[ChatResponse[Any], list[ChatResponseUpdate]]:
    """A non-streamed answer and one adversarial way a provider might stream it."""
    reasoning = draw(
        st.none()
        | st.builds(
            ReasoningContent,
            text=texts,
            provider=st.just("acme"),
            id=optional_ids,
            protected_data=st.none() | st.text(min_size=1, max_size=8),
        )
    )
    text = draw(st.none() | texts)
    call_ids = draw(st.lists(ids, max_size=4, unique=True))
    calls = [
        FunctionCallContent(
            call_id=call_id,
            name=draw(st.text(min_size=1, max_size=8)),
            arguments=json.dumps(draw(json_objects)),
            index=index,
        )
        for index, call_id in enumerate(call_ids)
    ]
    if reasoning is None and text is None and not calls:
        text = ""
    contents: list[Content] = [
        *([reasoning] if reasoning is not None else []),
        *([TextContent(text)] if text is not None else []),
        *calls,
    ]
    message_id = draw(optional_ids)
    original: ChatResponse[Any] = ChatResponse(
        messages=[Message("assistant", contents, message_id=message_id)],
        response_id=draw(optional_ids),
        model=draw(st.none() | st.just("model-1")),
        finish_reason=draw(finish_reasons),
        usage=draw(st.none() | usages),
        created_at=draw(st.none() | st.just("2025-01-01T00:00:00Z")),
    )

    pieces: list[Content] = []
    if reasoning is not None:
        parts = _split(draw, reasoning.text)
        pieces += [
            ReasoningContent(
                text=part,
                provider=reasoning.provider,
                id=reasoning.id,
                protected_data=reasoning.protected_data if i == len(parts) - 1 else None,
            )
            for i, part in enumerate(parts)
        ]
    if text is not None:
        pieces += [TextContent(part) for part in _split(draw, text)]
    call_queues: list[list[Content]] = []
    for call in calls:
        assert isinstance(call.arguments, str)
        parts = _split(draw, call.arguments)
        queue: list[Content] = [
            FunctionCallContent(call.call_id, name=call.name, arguments=parts[0], index=call.index)
        ]
        queue += [FunctionCallContent(call.call_id, arguments=part) for part in parts[1:]]
        call_queues.append(queue)
    pieces += _interleave(draw, call_queues)

    # The first update says who speaks; later ones may or may not repeat it.
    updates = [
        ChatResponseUpdate(
            contents=[piece],
            role="assistant" if i == 0 else draw(st.sampled_from(["assistant", None])),
            message_id=message_id if i == 0 else draw(st.sampled_from([message_id, None])),
            response_id=original.response_id,
            model=original.model,
        )
        for i, piece in enumerate(pieces)
    ]
    if original.usage is not None:
        usage_content = UsageContent(original.usage)
        at = draw(st.integers(min_value=0, max_value=len(updates)))
        if draw(st.booleans()) and at < len(updates):
            updates[at] = attrs.evolve(updates[at], contents=(*updates[at].contents, usage_content))
        else:
            updates.insert(at, ChatResponseUpdate(contents=[usage_content]))
    # Metadata that is set once may arrive on any update.
    at = draw(st.integers(min_value=0, max_value=len(updates) - 1))
    updates[at] = attrs.evolve(updates[at], finish_reason=original.finish_reason)
    at = draw(st.integers(min_value=0, max_value=len(updates) - 1))
    updates[at] = attrs.evolve(updates[at], created_at=original.created_at)
    return original, updates


@given(turn=streamed_turns())
def test_fold_of_adversarially_chunked_stream_equals_the_unstreamed_response(
    turn: tuple[ChatResponse[Any], list[ChatResponseUpdate]],
) -> None:
    original, updates = turn

    assert ChatResponse.from_updates(updates) == original


def test_interleaved_parallel_calls_are_ordered_by_index() -> None:
    updates = [
        ChatResponseUpdate([FunctionCallContent("b", "second", '{"x"', index=1)], role="assistant"),
        ChatResponseUpdate([FunctionCallContent("a", "first", '{"y":', index=0)]),
        ChatResponseUpdate([FunctionCallContent("b", arguments=": 1}")]),
        ChatResponseUpdate([FunctionCallContent("a", arguments=" 2}")]),
    ]

    message = ChatResponse.from_updates(updates).messages[0]

    assert message.contents == (
        FunctionCallContent("a", "first", '{"y": 2}'),
        FunctionCallContent("b", "second", '{"x": 1}'),
    )


def test_call_name_and_index_may_arrive_after_the_first_piece() -> None:
    updates = [
        ChatResponseUpdate([FunctionCallContent("b", arguments="{")], role="assistant"),
        ChatResponseUpdate([FunctionCallContent("a", "first", "{}", index=0)]),
        ChatResponseUpdate([FunctionCallContent("b", "second", "}", index=1)]),
    ]

    message = ChatResponse.from_updates(updates).messages[0]

    assert message.contents == (
        FunctionCallContent("a", "first", "{}"),
        FunctionCallContent("b", "second", "{}"),
    )


def test_role_change_starts_a_new_message() -> None:
    call = FunctionCallContent("c1", "lookup", "{}")
    result = FunctionResultContent("c1", result={"ok": True})
    updates = [
        ChatResponseUpdate([call], role="assistant"),
        ChatResponseUpdate([result], role="tool"),
        ChatResponseUpdate([TextContent("Done")], role="assistant"),
    ]

    response = ChatResponse.from_updates(updates)

    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
    assert response.messages[1].contents == (result,)
    assert response.messages[2].text == "Done"


def test_new_message_id_starts_a_new_message_of_the_same_role() -> None:
    updates = [
        ChatResponseUpdate([TextContent("one")], role="assistant", message_id="m1"),
        ChatResponseUpdate([TextContent(" more")], message_id="m1"),
        ChatResponseUpdate([TextContent("two")], role="assistant", message_id="m2"),
    ]

    response = ChatResponse.from_updates(updates)

    assert [(m.message_id, m.text) for m in response.messages] == [
        ("m1", "one more"),
        ("m2", "two"),
    ]


def test_message_without_id_adopts_the_first_id_it_sees() -> None:
    updates = [
        ChatResponseUpdate([TextContent("a")], role="assistant"),
        ChatResponseUpdate([TextContent("b")], message_id="m9"),
    ]

    response = ChatResponse.from_updates(updates)

    assert [(m.message_id, m.text) for m in response.messages] == [("m9", "ab")]


def test_usage_of_several_updates_is_summed() -> None:
    updates = [
        ChatResponseUpdate([TextContent("hi"), UsageContent(Usage(input_tokens=10))]),
        ChatResponseUpdate([UsageContent(Usage(output_tokens=3))]),
        ChatResponseUpdate([UsageContent(Usage(output_tokens=2, cache_read_tokens=4))]),
    ]

    usage = ChatResponse.from_updates(updates).usage

    assert usage == Usage(input_tokens=10, output_tokens=5, cache_read_tokens=4)


def test_usage_only_update_does_not_create_an_empty_message() -> None:
    response = ChatResponse.from_updates([ChatResponseUpdate([UsageContent(Usage(1, 2))])])

    assert response.messages == ()
    assert response.usage == Usage(1, 2)


def test_usage_between_messages_stays_out_of_them() -> None:
    updates = [
        ChatResponseUpdate([TextContent("q")], role="user"),
        ChatResponseUpdate([UsageContent(Usage(input_tokens=1))]),
        ChatResponseUpdate([TextContent("a")], role="assistant"),
    ]

    response = ChatResponse.from_updates(updates)

    assert [(m.role, m.contents) for m in response.messages] == [
        ("user", (TextContent("q"),)),
        ("assistant", (TextContent("a"),)),
    ]


def test_update_without_contents_only_sets_metadata() -> None:
    updates = [
        ChatResponseUpdate([TextContent("x")], role="assistant", response_id="r1"),
        ChatResponseUpdate(
            finish_reason="stop", response_id="r2", conversation_id="conv", model="m"
        ),
    ]

    response = ChatResponse.from_updates(updates)

    assert len(response.messages) == 1
    assert (response.finish_reason, response.response_id) == ("stop", "r2")
    assert (response.conversation_id, response.model) == ("conv", "m")


def test_first_created_at_wins() -> None:
    updates = [
        ChatResponseUpdate([TextContent("x")], created_at="t1"),
        ChatResponseUpdate([TextContent("y")], created_at="t2"),
    ]

    assert ChatResponse.from_updates(updates).created_at == "t1"


def test_additional_properties_of_updates_are_merged() -> None:
    updates = [
        ChatResponseUpdate([TextContent("x")], additional_properties={"a": 1, "b": 1}),
        ChatResponseUpdate(additional_properties={"b": 2}),
    ]

    assert ChatResponse.from_updates(updates).additional_properties == {"a": 1, "b": 2}


def test_reasoning_pieces_of_different_items_stay_apart() -> None:
    updates = [
        ChatResponseUpdate([ReasoningContent("think ", id="r1")], role="assistant"),
        ChatResponseUpdate([ReasoningContent("more", id="r1", protected_data="sig")]),
        ChatResponseUpdate([ReasoningContent("other", id="r2")]),
    ]

    contents = ChatResponse.from_updates(updates).messages[0].contents

    assert contents == (
        ReasoningContent("think more", id="r1", protected_data="sig"),
        ReasoningContent("other", id="r2"),
    )


def test_annotated_text_is_kept_whole() -> None:
    cited = TextContent("source", annotations=(Annotation(url="https://example.org"),))
    updates = [
        ChatResponseUpdate([TextContent("See ")], role="assistant"),
        ChatResponseUpdate([cited]),
        ChatResponseUpdate([TextContent(".")]),
    ]

    contents = ChatResponse.from_updates(updates).messages[0].contents

    assert contents == (TextContent("See "), cited, TextContent("."))


def test_call_with_mapping_arguments_keeps_the_mapping() -> None:
    updates = [ChatResponseUpdate([FunctionCallContent("c1", "f", {"x": 1})], role="assistant")]

    call = ChatResponse.from_updates(updates).messages[0].contents[0]

    assert call == FunctionCallContent("c1", "f", {"x": 1})


def test_other_contents_pass_through_in_order() -> None:
    data = DataContent(b"png", "image/png")
    uri = UriContent("https://example.org/a.png", "image/png")
    updates = [ChatResponseUpdate([data], role="user"), ChatResponseUpdate([uri])]

    assert ChatResponse.from_updates(updates).messages[0].contents == (data, uri)


# -- chunk_response ---------------------------------------------------------------------------


@st.composite
def chunkable_responses(draw: st.DrawFn) -> ChatResponse[Any]:
    """Responses whose messages fold back unambiguously (distinct ids, no adjacent texts)."""
    message_ids = draw(st.lists(ids, max_size=3, unique=True))
    messages: list[Message] = []
    for message_id in message_ids:
        contents: list[Content] = []
        if draw(st.booleans()):
            contents.append(TextContent(draw(texts)))
        call_ids = draw(st.lists(ids, max_size=3, unique=True))
        contents += [
            FunctionCallContent(cid, draw(st.text(min_size=1, max_size=6)), json.dumps({"n": i}))
            for i, cid in enumerate(call_ids)
        ]
        if draw(st.booleans()):
            contents.append(DataContent(draw(st.binary(max_size=8)), "image/png"))
        if not contents:
            contents.append(TextContent("x"))
        messages.append(
            Message(draw(st.sampled_from(["assistant", "tool"])), contents, message_id=message_id)
        )
    return ChatResponse(
        messages=messages,
        response_id=draw(optional_ids),
        conversation_id=draw(optional_ids),
        model=draw(st.none() | st.just("m")),
        finish_reason=draw(finish_reasons),
        usage=draw(st.none() | usages),
        created_at=draw(st.none() | st.just("2025-01-01")),
    )


@given(response=chunkable_responses(), size=st.integers(min_value=1, max_value=6))
def test_chunk_response_folds_back_to_the_response(response: ChatResponse[Any], size: int) -> None:
    assert ChatResponse.from_updates(chunk_response(response, size=size)) == response


def test_chunk_response_cuts_text_into_pieces_of_size() -> None:
    response = ChatResponse(messages=[Message("assistant", ["abcdefgh"])])

    updates = chunk_response(response, size=3)

    assert [u.text for u in updates] == ["abc", "def", "gh", ""]


# -- the short path for plain text chunks ---------------------------------------------------


def _fold_one_at_a_time(updates: list[ChatResponseUpdate]) -> ChatResponse[None]:
    """The fold without its short path: every update through ``_Fold.add``."""
    fold = _Fold()
    for update in updates:
        fold.add(update)
    return fold.chat_response()


class _SubclassedUpdate(ChatResponseUpdate):
    """A provider's own update class: never taken by the short path."""


_FIELD_VALUES: dict[str, list[Any]] = {
    "role": ["assistant", "user"],
    "author_name": ["ann"],
    "response_id": ["r1", "r2"],
    "message_id": ["m1", "m2"],
    "conversation_id": ["c1"],
    "model": ["m-1", "m-2"],
    "finish_reason": ["stop"],
    "created_at": ["t1", "t2"],
    "additional_properties": [{}, {"k": 1}],
}


@st.composite
def mixed_updates(draw: st.DrawFn) -> list[ChatResponseUpdate]:
    """Mostly plain text chunks, each with at most a field or two set that could end
    (or leave alone) the text run the short path extends."""
    piece = st.one_of(
        st.builds(TextContent, st.sampled_from(["a", "b", ""])),
        st.builds(TextContent, st.just("n"), annotations=st.just((Annotation(),))),
        st.builds(ReasoningContent, st.just("r"), id=st.sampled_from([None, "r1"])),
        st.builds(FunctionCallContent, st.sampled_from(["c1", "c2"]), st.just("f")),
        st.builds(UsageContent, st.builds(Usage, output_tokens=st.integers(0, 3))),
    )
    text = st.sampled_from([TextContent("a"), TextContent("b"), TextContent("n", [Annotation()])])
    updates: list[ChatResponseUpdate] = []
    for _ in range(draw(st.integers(min_value=0, max_value=12))):
        if draw(st.integers(min_value=0, max_value=3)):  # three in four: one piece of text
            contents: list[Content] = [draw(text)]
        else:
            contents = draw(st.lists(piece, max_size=2))
        fields = draw(st.lists(st.sampled_from(sorted(_FIELD_VALUES)), max_size=1))
        values: dict[str, Any] = {
            name: draw(st.sampled_from(_FIELD_VALUES[name])) for name in fields
        }
        kind = draw(st.sampled_from([ChatResponseUpdate, ChatResponseUpdate, _SubclassedUpdate]))
        updates.append(kind(contents=contents, **values))
    return updates


@settings(max_examples=400)  # the interesting runs are long: plain chunks, then one field
@given(updates=mixed_updates())
def test_the_short_path_for_text_chunks_agrees_with_folding_each_update(
    updates: list[ChatResponseUpdate],
) -> None:
    folded = ChatResponse.from_updates(updates)

    assert folded == _fold_one_at_a_time(updates)
    assert folded.additional_properties == _fold_one_at_a_time(updates).additional_properties


def test_text_chunks_repeating_the_response_metadata_stay_one_text() -> None:
    # What an OpenAI-style stream sends: the same id, model and time on every chunk.
    updates = [
        ChatResponseUpdate(
            [TextContent(t)], response_id="r1", model="m-1", created_at="t1", message_id="m1"
        )
        for t in ("a", "b", "c")
    ]

    folded = ChatResponse.from_updates([ChatResponseUpdate(role="assistant"), *updates])

    assert folded.messages == (Message("assistant", [TextContent("abc")], message_id="m1"),)
    assert (folded.response_id, folded.model, folded.created_at) == ("r1", "m-1", "t1")


# -- AgentResponse ----------------------------------------------------------------------------


def test_agent_fold_collects_events_in_order() -> None:
    first, second = CustomEvent("progress", 1), CustomEvent("progress", 2)
    updates = [
        AgentResponseUpdate(event=first),
        AgentResponseUpdate([TextContent("hi")], role="assistant", agent_name="helper"),
        AgentResponseUpdate(event=second),
        AgentResponseUpdate([UsageContent(Usage(output_tokens=1))], finish_reason="stop"),
    ]

    response = AgentResponse.from_updates(updates)

    assert response.events == (first, second)
    assert response.text == "hi"
    assert response.agent_name == "helper"
    assert (response.finish_reason, response.usage) == ("stop", Usage(output_tokens=1))


def test_agent_fold_of_events_only_has_no_messages() -> None:
    response = AgentResponse.from_updates([AgentResponseUpdate(event=CustomEvent("tick"))])

    assert response.messages == ()
    assert response.events == (CustomEvent("tick"),)
