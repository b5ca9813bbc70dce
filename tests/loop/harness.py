"""Running a loop or an agent either way, scripted model turns, and the history check.

Every test of the loop runs in both modes through :func:`run_agent` or
:func:`run_loop`; in a streaming run they also check that the streamed updates
fold into the final response.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from agentcore import (
    Agent,
    AgentResponse,
    AgentResponseUpdate,
    AgentSession,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    FunctionResultContent,
    Message,
    ToolLoop,
    Usage,
)
from agentcore.middleware import Middleware
from agentcore.testing import ChatRequest

__all__ = [
    "assert_history_valid",
    "calls",
    "one_call",
    "results",
    "run_agent",
    "run_loop",
    "text",
]


def calls(*items: tuple[str, str, str], usage: Usage | None = None) -> ChatResponse[None]:
    """A model turn that calls tools: ``(call_id, name, arguments)`` each, in order."""
    contents = tuple(FunctionCallContent(cid, name, arguments) for cid, name, arguments in items)
    return ChatResponse(
        messages=(Message("assistant", contents),), usage=usage, finish_reason="tool_calls"
    )


def one_call(
    name: str, arguments: str = "{}", call_id: str = "c1", usage: Usage | None = None
) -> ChatResponse[None]:
    """A model turn with a single tool call."""
    return calls((call_id, name, arguments), usage=usage)


def text(answer: str, usage: Usage | None = None) -> ChatResponse[None]:
    """A model turn that answers in text."""
    return ChatResponse(messages=(Message("assistant", answer),), usage=usage, finish_reason="stop")


def results(messages: Sequence[Message]) -> list[FunctionResultContent]:
    """Every function result in ``messages``, in order."""
    return [c for m in messages for c in m.contents if isinstance(c, FunctionResultContent)]


async def run_agent(
    agent: Agent,
    messages: Any,
    *,
    stream: bool,
    session: AgentSession | None = None,
    options: Mapping[str, Any] | None = None,
    tool_loop: FunctionInvocationConfiguration | None = None,
    middleware: Sequence[Middleware] | None = None,
) -> tuple[AgentResponse[Any], list[AgentResponseUpdate]]:
    """Run ``agent`` once in the given mode: the response and the streamed updates."""
    opts = cast("ChatOptions[None] | None", options)
    if not stream:
        response = await agent.run(
            messages, session=session, options=opts, tool_loop=tool_loop, middleware=middleware
        )
        return response, []
    run = agent.run(
        messages,
        session=session,
        stream=True,
        options=opts,
        tool_loop=tool_loop,
        middleware=middleware,
    )
    updates = [update async for update in run]
    final = await run.get_final_response()
    assert AgentResponse.from_updates(updates) == final
    return final, updates


async def run_loop(
    loop: ToolLoop,
    messages: Sequence[Message],
    *,
    stream: bool,
    options: Mapping[str, Any] | None = None,
) -> tuple[ChatResponse[Any], list[ChatResponseUpdate]]:
    """Run a standalone loop once in the given mode: the response and the updates."""
    if not stream:
        return await loop.get_response(messages, options=options), []
    run = loop.get_response(messages, options=options, stream=True)
    updates = [update async for update in run]
    final = await run.get_final_response()
    assert ChatResponse.from_updates(updates) == final
    return final, updates


def _check_request(position: int, messages: Sequence[Message]) -> None:
    where = f"request {position}"
    answered: set[str] = set()
    issued: set[str] = set()
    for index, message in enumerate(messages):
        for content in message.contents:
            assert not isinstance(
                content, (FunctionApprovalRequestContent, FunctionApprovalResponseContent)
            ), f"{where}: message {index} hands approval run state to the model: {content!r}"
            if isinstance(content, FunctionResultContent):
                assert content.call_id in issued, (
                    f"{where}: message {index} has a result for {content.call_id!r}, "
                    "which no earlier message called"
                )
                assert content.call_id not in answered, (
                    f"{where}: {content.call_id!r} has more than one result"
                )
                answered.add(content.call_id)
        called = [c.call_id for c in message.contents if isinstance(c, FunctionCallContent)]
        if not called:
            continue
        issued.update(called)
        # The results of an assistant turn's calls come in the tool messages right after it.
        following: set[str] = set()
        for later in messages[index + 1 :]:
            if later.role != "tool":
                break
            following.update(c.call_id for c in results([later]))
        missing = [cid for cid in called if cid not in following]
        assert not missing, (
            f"{where}: calls {missing} of message {index} have no result before the next turn"
        )


def assert_history_valid(requests: Sequence[ChatRequest]) -> None:
    """Every request a client received is a valid conversation.

    Each function call has exactly one result, in the tool messages that follow
    its assistant turn (before any other message); no result answers a call the
    request does not contain; approval requests and responses (run state) never
    reach the model.
    """
    assert requests, "the client received no request"
    for position, request in enumerate(requests):
        _check_request(position, request.messages)
