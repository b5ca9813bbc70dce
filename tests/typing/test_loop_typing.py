"""Static types of the tool loop: a ``ToolLoop`` is a chat client."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import pytest
from typing_extensions import assert_type

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    Message,
    ResponseStream,
    SupportsGetResponse,
    ToolLoop,
)
from agentcore.testing import ScriptedChatClient

_loop: SupportsGetResponse = ToolLoop(ScriptedChatClient([]))
_nested: SupportsGetResponse = ToolLoop(ToolLoop(ScriptedChatClient([])))


def test_tool_loop_is_a_chat_client_at_run_time() -> None:
    assert isinstance(_loop, SupportsGetResponse)
    assert isinstance(_nested, SupportsGetResponse)


@pytest.mark.anyio
async def test_streaming_flag_selects_the_return_type() -> None:
    client: SupportsGetResponse = ToolLoop(ScriptedChatClient(["one", "two"]))
    messages = [Message("user", "hi")]

    pending = client.get_response(messages)
    assert_type(pending, Awaitable[ChatResponse[Any]])
    stream = client.get_response(messages, stream=True)
    assert_type(stream, ResponseStream[ChatResponseUpdate, ChatResponse[Any]])

    assert (await pending).text == "one"
    assert (await stream).text == "two"
