"""Small conversations for the compaction tests."""

from __future__ import annotations

from agentcore import FunctionCallContent, FunctionResultContent, Message, ReasoningContent


def call(call_id: str, name: str = "search", arguments: str = "{}") -> FunctionCallContent:
    return FunctionCallContent(call_id=call_id, name=name, arguments=arguments)


def result(call_id: str, text: str = "found it") -> FunctionResultContent:
    return FunctionResultContent(call_id=call_id, result=text)


def turn(number: int, *, size: int = 40) -> list[Message]:
    """One finished turn: a question, a step with two parallel calls, an answer."""
    a, b = f"c{number}a", f"c{number}b"
    return [
        Message("user", f"question {number} " + "q" * size),
        Message("assistant", [ReasoningContent("thinking", id=f"rs_{number}")]),
        Message("assistant", [call(a), call(b)]),
        Message("tool", [result(a, "r" * size)]),
        Message("tool", [result(b, "s" * size)]),
        Message("assistant", f"answer {number} " + "a" * size),
    ]


def conversation(turns: int, *, size: int = 40) -> list[Message]:
    out: list[Message] = [Message("system", "be helpful")]
    for number in range(turns):
        out.extend(turn(number, size=size))
    return out
