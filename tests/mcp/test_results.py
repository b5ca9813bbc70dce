"""What the model sees of an MCP result under each ``result_mode`` (no server needed)."""

from __future__ import annotations

import base64

import pytest
from agentcore_mcp import ResultMode, to_tool_result
from mcp import types

from agentcore import DataContent, TextContent, UriContent

TEXT = types.TextContent(type="text", text='{"celsius": 12}')
STRUCTURED = {"celsius": 12}


def result(*blocks: types.ContentBlock, structured: object = None) -> types.CallToolResult:
    return types.CallToolResult(content=list(blocks), structured_content=structured)


@pytest.mark.parametrize(
    ("mode", "value"),
    [
        ("content_first", '{"celsius": 12}'),
        ("content_only", '{"celsius": 12}'),
        ("structured_first", STRUCTURED),
        ("structured_only", STRUCTURED),
        ("both", (TextContent('{"celsius": 12}'), TextContent('{"celsius":12}'))),
    ],
)
def test_each_mode_chooses_what_the_model_sees(mode: ResultMode, value: object) -> None:
    mapped = to_tool_result(result(TEXT, structured=STRUCTURED), mode)

    assert mapped.value == value
    assert mapped.structured == STRUCTURED


def test_content_first_falls_back_to_structured_content_when_the_content_is_empty() -> None:
    blank = types.TextContent(type="text", text="  ")

    assert to_tool_result(result(blank, structured=STRUCTURED), "content_first").value == (
        STRUCTURED
    )


def test_blocks_map_to_contents() -> None:
    png = base64.b64encode(b"\x89PNG").decode()
    wav = base64.b64encode(b"RIFF").decode()
    mapped = to_tool_result(
        result(
            types.ImageContent(type="image", data=png, mime_type="image/png"),
            types.AudioContent(type="audio", data=wav, mime_type="audio/wav"),
            types.ResourceLink(
                type="resource_link", uri="file:///a.pdf", name="a", mime_type="application/pdf"
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(uri="file:///b.bin", blob=png),
            ),
        ),
        "content_first",
    )

    assert mapped.value == (
        DataContent(b"\x89PNG", "image/png"),
        DataContent(b"RIFF", "audio/wav"),
        UriContent("file:///a.pdf", "application/pdf", name="a"),
        DataContent(b"\x89PNG", "application/octet-stream", name="b.bin"),
    )


def test_an_error_result_keeps_its_flag_and_text() -> None:
    failed = types.CallToolResult(
        content=[types.TextContent(type="text", text="no such city")], is_error=True
    )

    mapped = to_tool_result(failed, "content_first")

    assert mapped.is_error
    assert mapped.value == "no such city"
