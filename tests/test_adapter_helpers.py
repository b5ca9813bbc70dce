"""``agentcore.adapters``: the client bookkeeping every adapter shares, a whole
response as one update, and a tool result's media as an API can send them."""

from __future__ import annotations

import pytest

from agentcore import (
    ChatResponse,
    DataContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    TextContent,
    UriContent,
    Usage,
)
from agentcore.adapters import (
    OwnedClient,
    describe_media,
    own_client,
    response_update,
    tool_result_contents,
)


class _Sdk:
    def __init__(self, name: str) -> None:
        self.name = name
        self.closes = 0


async def _close(sdk: _Sdk) -> None:
    sdk.closes += 1


@pytest.mark.anyio
async def test_a_built_client_is_closed_once(anyio_backend: str) -> None:
    owned = own_client("Demo", None, lambda: _Sdk("built"), close=_close, settings={"api_key": "k"})
    assert (owned.client.name, owned.owned, owned.closed) == ("built", True, False)
    await owned.aclose()
    await owned.aclose()
    assert owned.client.closes == 1
    assert owned.closed


@pytest.mark.anyio
async def test_a_given_client_is_left_open(anyio_backend: str) -> None:
    given = _Sdk("given")
    owned: OwnedClient[_Sdk] = own_client("Demo", given, lambda: _Sdk("never"), close=_close)
    await owned.aclose()
    assert owned.client is given
    assert (given.closes, owned.owned, owned.closed) == (0, False, False)


def test_a_client_and_settings_together_are_refused_naming_both() -> None:
    with pytest.raises(ValueError, match=r"Demo: pass either client= or api_key=, base_url="):
        own_client(
            "Demo",
            _Sdk("given"),
            lambda: _Sdk("never"),
            close=_close,
            settings={"api_key": "k", "base_url": "http://x", "timeout": None},
        )


def test_settings_left_none_do_not_count() -> None:
    owned = own_client("Demo", _Sdk("given"), lambda: _Sdk("x"), close=_close, settings={"k": None})
    assert owned.client.name == "given"


def test_the_update_of_a_response_folds_back_to_it() -> None:
    response = ChatResponse(
        messages=(
            Message(
                "assistant",
                [TextContent("Sunny."), FunctionCallContent("c1", "get_weather", '{"a": 1}')],
                message_id="m1",
            ),
        ),
        response_id="r1",
        conversation_id="conv",
        model="m",
        finish_reason="tool_calls",
        usage=Usage(input_tokens=3, output_tokens=4, total_tokens=7),
        created_at="2026-01-01T00:00:00+00:00",
        additional_properties={"rate_limit": {"remaining_requests": 5}},
    )
    folded = ChatResponse.from_updates([response_update(response)])
    assert folded.messages == response.messages
    assert (folded.response_id, folded.conversation_id, folded.model) == ("r1", "conv", "m")
    assert (folded.finish_reason, folded.usage, folded.created_at) == (
        "tool_calls",
        response.usage,
        response.created_at,
    )


def test_the_update_of_an_empty_response_has_no_role() -> None:
    update = response_update(ChatResponse(messages=(), finish_reason="stop"))
    assert (update.contents, update.role, update.message_id) == ((), None, None)


def _images_only(item: DataContent | UriContent) -> bool:
    return (item.media_type or "").startswith("image/")


def test_media_an_api_cannot_take_become_text_saying_what_they_were() -> None:
    png = DataContent(b"\x89PNG", "image/png")
    web = UriContent("https://example.org/cat.png", "image/png")
    result = FunctionResultContent(
        "c1",
        result=(
            TextContent("found:"),
            png,
            web,
            UriContent("demo://resource/1", "text/markdown", name="one.md"),
            DataContent(b"\x1f\x8b\x08\x00", "application/gzip", name="a.gz"),
        ),
    )

    contents = tool_result_contents(result, _images_only)

    assert contents == (
        TextContent("found:"),
        png,
        web,
        TextContent(
            "[Link 'one.md' (text/markdown): demo://resource/1; not opened, as this model "
            "API cannot take it]"
        ),
        TextContent(
            "[File 'a.gz' (application/gzip, 4 bytes); not shown, as this model API cannot "
            "take that media type]"
        ),
    )


def test_a_link_no_service_can_open_is_text_even_when_the_api_takes_its_type() -> None:
    # An image at file:// or at an MCP server's own scheme cannot be fetched by a model
    # service, whatever its media type says.
    result = FunctionResultContent("c1", result=UriContent("file:///tmp/cat.png", "image/png"))

    assert tool_result_contents(result, _images_only) == (
        TextContent(
            "[Link (image/png): file:///tmp/cat.png; not opened, as this model API cannot take it]"
        ),
    )


def test_text_data_is_described_and_shown() -> None:
    notes = DataContent("Grüße\n".encode(), "text/csv", name="notes.csv")
    binary = DataContent(b"\xff\xfe", "text/plain")

    assert describe_media(notes) == TextContent("[File 'notes.csv' (text/csv, 8 bytes):]\nGrüße\n")
    assert describe_media(binary).text == (
        "[File (text/plain, 2 bytes); not shown, as this model API cannot take that media type]"
    )


@pytest.mark.parametrize("value", ["text", {"a": 1}, None, (), (TextContent("a"), 3)])
def test_a_result_that_is_not_contents_has_none(value: object) -> None:
    result = FunctionResultContent("c1", result=value)

    assert tool_result_contents(result, _images_only) is None
