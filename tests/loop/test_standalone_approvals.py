"""A standalone ToolLoop acts on approval responses in its input.

A loop has no session: its caller passes the conversation back with the approval
requests the loop returned and the caller's responses. The loop runs what was
approved, rejects the rest, declines what the caller moved past, and never sends
approval contents to the model.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import (
    FunctionApprovalRequestContent,
    Message,
    ToolLoop,
    tool,
)
from agentcore.errors import RunStateError
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, one_call, results, run_loop, text

pytestmark = pytest.mark.anyio


class Disk:
    def __init__(self) -> None:
        self.ran: list[str] = []

        @tool(approval_mode="always_require")
        def delete(path: str) -> str:
            """Delete a file."""
            self.ran.append(path)
            return f"deleted {path}"

        self.tools: list[Any] = [delete]


def _requests(messages: tuple[Message, ...]) -> list[FunctionApprovalRequestContent]:
    return [
        c for m in messages for c in m.contents if isinstance(c, FunctionApprovalRequestContent)
    ]


async def _paused(
    stream: bool, *after: Any
) -> tuple[Disk, ScriptedChatClient, ToolLoop, list[Message], FunctionApprovalRequestContent]:
    disk = Disk()
    client = ScriptedChatClient([one_call("delete", '{"path": "x"}'), *after])
    loop = ToolLoop(client)
    asked = [Message("user", "delete x")]
    response, _ = await run_loop(loop, asked, stream=stream, options={"tools": disk.tools})
    [request] = _requests(response.messages)
    assert disk.ran == []
    return disk, client, loop, [*asked, *response.messages], request


@pytest.mark.parametrize("stream", [False, True])
async def test_an_approval_in_the_input_runs_the_call(stream: bool) -> None:
    disk, client, loop, conversation, request = await _paused(stream, text("gone"))

    response, _ = await run_loop(
        loop,
        [*conversation, Message("user", [request.create_response(True)])],
        stream=stream,
        options={"tools": disk.tools},
    )

    assert disk.ran == ["x"]
    assert [r.result for r in results(response.messages)] == ["deleted x"]
    assert response.text == "gone"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_rejection_in_the_input_tells_the_model(stream: bool) -> None:
    disk, client, loop, conversation, request = await _paused(stream, text("kept it"))

    response, _ = await run_loop(
        loop,
        [*conversation, Message("user", [request.create_response(False, reason="no")])],
        stream=stream,
        options={"tools": disk.tools},
    )

    assert disk.ran == []
    assert [r.error for r in results(response.messages)] == ["rejected"]
    assert response.text == "kept it"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_moving_on_declines_the_open_request(stream: bool) -> None:
    disk, client, loop, conversation, _request = await _paused(stream, text("ok"))

    await run_loop(
        loop,
        [*conversation, Message("user", "never mind")],
        stream=stream,
        options={"tools": disk.tools},
    )

    assert disk.ran == []
    sent = client.requests[-1].messages
    assert [m.role for m in sent] == ["user", "assistant", "tool", "user"]
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_response_without_its_request_is_refused(stream: bool) -> None:
    disk, client, loop, _conversation, request = await _paused(stream)

    with pytest.raises(RunStateError, match="no request they answer"):
        await run_loop(
            loop,
            [Message("user", "delete x"), Message("user", [request.create_response(True)])],
            stream=stream,
            options={"tools": disk.tools},
        )
    assert disk.ran == []
    assert len(client.requests) == 1
