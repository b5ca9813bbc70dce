"""The positional constructions of agentcore._fastpaths build what keywords build.

They pass their arguments in the classes' field order; a field added to or moved in
one of those classes makes its test here fail until the fast path follows.
"""

from __future__ import annotations

from typing import Any

import attrs

from agentcore import (
    AgentResponse,
    ChatResponse,
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
