"""Sampling, opted into: a server's ``sampling/createMessage`` answered by a chat client.

Off unless :class:`~agentcore_mcp.MCPToolset` gets ``sampling=client``. The request
becomes one plain ``get_response`` call: the server's messages as the conversation,
its system prompt as instructions, its ``maxTokens``, temperature and stop sequences
as options. Nothing else of the agent goes along: no tools, no history, no
instructions of yours. Tool-using sampling (MCP's ``tools``/``toolChoice``) is
declined, and so is anything the client's model fails on, with an error the server
sees (the exception's text stays here).
"""

from __future__ import annotations

from typing import Any

from mcp import types
from mcp.client.session import ClientRequestContext, SamplingFnT

from agentcore import ChatResponse, Message
from agentcore.protocols import SupportsGetResponse
from agentcore_mcp._results import to_contents

__all__ = ["sampling_callback"]

_STOP_REASONS = {"stop": "endTurn", "length": "maxTokens"}


def sampling_callback(client: SupportsGetResponse[Any], *, server: str) -> SamplingFnT:
    """The ``mcp`` SDK's sampling callback, answering with ``client``'s text."""

    async def sample(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        if params.tools or params.tool_choice is not None:
            return _declined("sampling with tools is not offered by this client")
        messages: list[Message] = []
        for message in params.messages:
            blocks = message.content if isinstance(message.content, list) else [message.content]
            if any(isinstance(b, (types.ToolUseContent, types.ToolResultContent)) for b in blocks):
                return _declined("sampling with tool use or tool results is not offered")
            messages.append(Message(message.role, to_contents(blocks)))
        options: dict[str, Any] = {"max_tokens": params.max_tokens}
        if params.system_prompt:
            options["instructions"] = params.system_prompt
        if params.temperature is not None:
            options["temperature"] = params.temperature
        if params.stop_sequences:
            options["stop"] = list(params.stop_sequences)
        try:
            response: ChatResponse[Any] = await client.get_response(messages, options=options)
        except Exception as exc:  # the server learns that it failed, not the details
            return types.ErrorData(
                code=types.INTERNAL_ERROR,
                message=f"the client's model failed to answer {server!r}'s sampling request "
                f"({type(exc).__name__})",
            )
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=response.text),
            model=response.model or "unknown",
            stop_reason=_STOP_REASONS.get(response.finish_reason or "stop"),
        )

    return sample


def _declined(why: str) -> types.ErrorData:
    return types.ErrorData(code=types.INVALID_REQUEST, message=why)
