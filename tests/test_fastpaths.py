"""The positional constructions of agentcore._fastpaths build what keywords build.

They pass their arguments in the classes' field order; a field added to or moved in
one of those classes makes its test here fail until the fast path follows.
"""

from __future__ import annotations

import weakref
from typing import Any

import attrs
import pytest

from agentcore import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
    CustomEvent,
    Message,
    TextContent,
    Usage,
    tool,
)
from agentcore._fastpaths import (
    LoopSummary,
    agent_context,
    agent_response,
    agent_updates,
    chat_context,
    function_context,
)
from agentcore._run_context import RunContext
from agentcore.middleware import AgentContext, ChatContext, FunctionInvocationContext
from agentcore.testing import ScriptedChatClient


def _fields(value: Any) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in attrs.fields(type(value))}


def test_agent_context_positional_matches_keywords() -> None:
    run = RunContext()
    messages = [Message("user", "hi")]
    values: dict[str, Any] = {
        "agent": object(),
        "messages": messages,
        "session": None,
        "instructions": "be brief",
        "tools": ["t"],
        "options": {"temperature": 0.5},
        "stream": True,
        "run": run,
    }
    fast = agent_context(*values.values())
    assert _fields(fast) == _fields(AgentContext(**values))


def test_chat_context_positional_matches_keywords() -> None:
    run = RunContext()
    transcript = [Message("user", "hi")]
    client = ScriptedChatClient(["x"])
    fast = chat_context(client, list(transcript), {"a": 1}, True, run, transcript)
    plain = ChatContext(
        client=client,
        messages=list(transcript),
        options={"a": 1},
        stream=True,
        run=run,
        transcript=transcript,
    )
    assert _fields(fast) == _fields(plain)


def test_function_context_positional_matches_keywords() -> None:
    @tool
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    run = RunContext()
    fast = function_context(lookup, {"city": "Oslo"}, "c1", run)
    plain = FunctionInvocationContext(
        function=lookup, arguments={"city": "Oslo"}, call_id="c1", run=run
    )
    assert _fields(fast) == _fields(plain)


def test_agent_response_positional_matches_keywords() -> None:
    values: dict[str, Any] = {
        "messages": (Message("assistant", "hi"),),
        "response_id": "r1",
        "agent_name": "bot",
        "finish_reason": "stop",
        "usage": Usage(input_tokens=1, output_tokens=2),
        "created_at": "2026-11-26T00:00:00Z",
        "value": {"answer": 1},
        "events": (CustomEvent("progress", {"step": 1}),),
        "additional_properties": {"k": "v"},
    }
    fast = agent_response(*values.values())
    plain = AgentResponse(**values)
    assert _fields(fast) == _fields(plain)


def test_loop_summary_is_chat_response_in_constructor_order() -> None:
    values: dict[str, Any] = {
        "messages": (Message("assistant", [TextContent("hi")]),),
        "response_id": "r1",
        "conversation_id": "c1",
        "model": "m",
        "finish_reason": "stop",
        "usage": Usage(total_tokens=3),
        "created_at": "2026-11-26T00:00:00Z",
        "value": None,
        "additional_properties": {"k": "v"},
    }
    summary = LoopSummary(**values)
    assert _fields(ChatResponse(*summary)) == _fields(ChatResponse(**values))


def test_agent_update_filled_by_hand_matches_keywords() -> None:
    # Every field of a chat update set, so a field the fill forgets (or one added to
    # AgentResponseUpdate later) shows up as a difference.
    chat = ChatResponseUpdate(
        contents=(TextContent("hi"),),
        role="assistant",
        author_name="writer",
        response_id="r1",
        message_id="m1",
        conversation_id="c1",
        model="m",
        finish_reason="stop",
        created_at="2026-11-26T00:00:00Z",
        additional_properties={"k": "v"},
    )
    fast = agent_updates("bot")(chat)
    plain = AgentResponseUpdate(
        contents=chat.contents,
        role=chat.role,
        author_name=chat.author_name,
        agent_name="bot",
        response_id=chat.response_id,
        message_id=chat.message_id,
        finish_reason=chat.finish_reason,
        created_at=chat.created_at,
        additional_properties=chat.additional_properties,
    )
    assert type(fast) is AgentResponseUpdate
    assert _fields(fast) == _fields(plain)
    assert fast == plain
    assert hash(fast) == hash(plain)
    assert weakref.ref(fast)() is fast  # the twin shares the class's layout, weakref slot too
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        fast.role = "user"  # type: ignore[misc]  # checking the frozen guard is back


def test_agent_updates_pass_agent_updates_and_convert_subclasses() -> None:
    convert = agent_updates("bot")
    event = AgentResponseUpdate(event=CustomEvent("progress", {"step": 1}))
    assert convert(event) is event

    class Tagged(ChatResponseUpdate):
        pass

    converted = convert(Tagged(contents=(TextContent("x"),), role="assistant"))
    assert type(converted) is AgentResponseUpdate
    assert (converted.text, converted.role, converted.agent_name) == ("x", "assistant", "bot")
