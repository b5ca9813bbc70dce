"""An MCP server (stdio, on the ``mcp`` SDK) whose tools ask the client's model.

- ``summarize`` asks through the SDK's ``Sample`` resolver, which works on both
  protocol eras: on 2026-07-28 the request rides an ``input_required`` result the
  client answers and retries; on handshake-era versions it is a server-to-client
  ``sampling/createMessage`` request.
- ``legacy_summarize`` sends ``sampling/createMessage`` itself (``create_message``),
  as servers written for handshake-era versions do; under 2026-07-28 that request
  has no back-channel and fails.

Run ``python sampling_server.py`` (stdio).
"""

from __future__ import annotations

import warnings
from typing import Annotated

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Resolve, Sample
from mcp.shared.exceptions import MCPDeprecationWarning

server = MCPServer("sampler", instructions="Prefer summarize for long texts.")
warnings.simplefilter("ignore", MCPDeprecationWarning)  # sampling is deprecated: tested anyway


def _message(text: str) -> types.SamplingMessage:
    return types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))


def _text(result: types.CreateMessageResult) -> str:
    content = result.content
    return content.text if isinstance(content, types.TextContent) else f"[{content.type}]"


def _ask(text: str) -> Sample:
    return Sample(
        [_message(f"Summarize: {text}")],
        max_tokens=40,
        system_prompt="Answer in one line.",
        temperature=0.25,
        stop_sequences=["END"],
    )


@server.tool()
def summarize(text: str, summary: Annotated[types.CreateMessageResult, Resolve(_ask)]) -> str:
    """Summarize a text with the client's model."""
    return f"summary of {len(text)} chars: {_text(summary)} ({summary.model})"


@server.tool()
async def legacy_summarize(text: str, ctx: Context) -> str:
    """Summarize a text with the client's model, the handshake-era way."""
    # deprecated since 2026-07-28, which is the point: servers written before still do this
    result = await ctx.session.create_message([_message(text)], max_tokens=40)  # pyright: ignore[reportDeprecated]
    return f"summary: {_text(result)}"


if __name__ == "__main__":
    server.run("stdio")
