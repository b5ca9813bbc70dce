"""What every adapter shares: taking or building its client, closing it, its typed
``get_response``, and the limits it reads a service's answers with.

An adapter accepts a ready SDK (or HTTP) client, or the settings to build one
(``api_key``, ``base_url``, ...), never both; it closes a client it built and leaves
a given one open for its owner. :func:`own_client` and :class:`OwnedClient` do that
bookkeeping, and :func:`get_response_method` gives the one ``get_response`` an adapter
writes its two ``@overload`` signatures, so an adapter's constructor, entry point and
lifecycle come down to::

    class MyChatClient:
        def __init__(self, model, *, client=None, api_key=None, base_url=None):
            self._owned = own_client(
                "MyChatClient",
                client,
                lambda: MySdkClient(api_key=api_key, base_url=base_url),
                close=MySdkClient.close,
                settings={"api_key": api_key, "base_url": base_url},
            )
            self.client = self._owned.client

        def _get_response(self, messages, *, options: MyOptions | None = None, stream=False):
            request = build_request(messages, options)  # bad input raises here
            if stream:
                return ResponseStream(self._stream(request), finalizer=ChatResponse.from_updates)
            return self._respond(request)

        get_response = get_response_method(_get_response)

        async def aclose(self) -> None:
            await self._owned.aclose()

        async def __aenter__(self) -> Self:
            return self

        async def __aexit__(self, *exc_info: object) -> None:
            await self.aclose()

No base class: the result is an ordinary class that matches
:class:`~agentcore.SupportsGetResponse` by its shape.

:data:`DEFAULT_READ_TIMEOUT` and :data:`DEFAULT_MAX_EVENT_SIZE` are the first-party
adapters' defaults for how long to wait for the next bytes of an answer and how large
one streamed event may grow (see :class:`agentcore.sse.SseDecoder`).
:func:`response_update` turns a whole response into the one update a stream yields
when a service answers a streamed request with a plain JSON body.

:func:`tool_result_contents` gives the text and media a tool returned as an API can
send them: what the API cannot take (an MCP resource link such as ``demo://...``, a
gzip file) becomes text saying what it was (:func:`describe_media`), so a result that
came back from a tool that already ran never fails the next request.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Literal, Protocol, TypeAlias, TypeVar, cast, final, overload

from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import (
    Content,
    DataContent,
    FunctionResultContent,
    TextContent,
    UriContent,
    UsageContent,
)
from agentcore._types.messages import Message
from agentcore._types.responses import ChatResponse, ChatResponseUpdate

__all__ = [
    "DEFAULT_MAX_EVENT_SIZE",
    "DEFAULT_READ_TIMEOUT",
    "GetResponse",
    "GetResponseImpl",
    "GetResponseResult",
    "OwnedClient",
    "describe_media",
    "get_response_method",
    "option_keys",
    "own_client",
    "refuse_sync_client",
    "response_update",
    "tool_result_contents",
    "warn_unknown_options",
]

DEFAULT_READ_TIMEOUT = 600.0
"""Seconds an adapter waits for the next bytes of an answer (its headers, the next piece
of a body or a stream) before it gives up with a :class:`~agentcore.errors.TransientError`.
Long enough for a reasoning model that thinks before its first byte; a stalled stream
ends after this much silence instead of hanging."""

DEFAULT_MAX_EVENT_SIZE = 64 * 1024 * 1024
"""Bytes one streamed event may take (64 MiB: room for an event carrying generated
images); a larger one is a :class:`~agentcore.errors.MalformedResponseError`."""

ClientT = TypeVar("ClientT")
OptionsT_contra = TypeVar("OptionsT_contra", contravariant=True)

GetResponseResult: TypeAlias = (
    Awaitable[ChatResponse[Any]] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]]
)
"""What a ``get_response`` implementation returns: an awaitable response, or a stream."""


class GetResponse(Protocol[OptionsT_contra]):
    """A bound ``get_response``: a call gives an awaitable of the whole response, a call
    with ``stream=True`` a :class:`~agentcore.ResponseStream` at once."""

    @overload
    def __call__(
        self,
        messages: Sequence[Message],
        *,
        options: OptionsT_contra | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[ChatResponse[Any]]: ...

    @overload
    def __call__(
        self,
        messages: Sequence[Message],
        *,
        options: OptionsT_contra | None = None,
        stream: Literal[True],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...


class GetResponseImpl(Protocol[OptionsT_contra]):
    """The one function an adapter writes: ``stream`` says which of the two to return."""

    def __call__(
        self,
        client: Any,
        messages: Sequence[Message],
        /,
        *,
        options: OptionsT_contra | None = ...,
        stream: bool = ...,
    ) -> GetResponseResult: ...


def get_response_method(impl: GetResponseImpl[OptionsT_contra]) -> GetResponse[OptionsT_contra]:
    """``impl`` as an adapter's ``get_response``, typed with its two overloads.

    Write ``get_response = get_response_method(_get_response)`` in the class body, after
    a plain ``def _get_response(self, messages, *, options=None, stream=False)`` that
    returns an awaitable response, or a :class:`~agentcore.ResponseStream` when
    ``stream`` is true. Callers then get ``Awaitable[ChatResponse]`` or the stream type
    from the value of ``stream``, and the options type from ``impl``'s ``options``.

    At run time this returns ``impl`` itself, a plain function and so an ordinary
    method: a call costs what it did. (Read it from an instance: the static type is the
    bound method's.) An ``async def`` is refused here, since it could
    not hand back a stream before awaiting.
    """
    if inspect.iscoroutinefunction(impl) or inspect.isasyncgenfunction(impl):
        name = getattr(impl, "__qualname__", repr(impl))
        raise TypeError(
            f"get_response_method({name}): the implementation must be a plain def that "
            "returns an awaitable response, or a ResponseStream when stream=True; an async "
            "def cannot return a stream before it is awaited"
        )
    return cast("GetResponse[OptionsT_contra]", impl)


@final
class OwnedClient(Generic[ClientT]):
    """The client an adapter talks through, and whether closing it is the adapter's job.

    ``close`` closes a client (``AsyncOpenAI.close``, ``httpx2.AsyncClient.aclose``,
    ...); :meth:`aclose` calls it once, and only for a client the adapter built.
    :func:`own_client` makes one.
    """

    __slots__ = ("_close", "_closed", "client", "owned")

    def __init__(
        self, client: ClientT, *, owned: bool, close: Callable[[ClientT], Awaitable[object]]
    ) -> None:
        self.client: ClientT = client
        self.owned: bool = owned
        self._close = close
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` closed the client."""
        return self._closed

    async def aclose(self) -> None:
        """Close the client if the adapter built it; a second call does nothing."""
        if self.owned and not self._closed:
            self._closed = True
            await self._close(self.client)


def own_client(
    adapter: str,
    client: ClientT | None,
    build: Callable[[], ClientT],
    *,
    close: Callable[[ClientT], Awaitable[object]],
    settings: Mapping[str, object] | None = None,
) -> OwnedClient[ClientT]:
    """``client`` as given (the caller closes it), or ``build()`` (the adapter does).

    ``settings`` are the constructor arguments ``build`` uses (``api_key``,
    ``base_url``, ...): giving any of them that is not ``None`` together with
    ``client`` raises ``ValueError`` naming ``adapter``, since a ready client
    already carries its own. What ``build`` raises propagates.
    """
    given = [name for name, value in (settings or {}).items() if value is not None]
    if client is not None:
        if given:
            names = ", ".join(f"{name}=" for name in given)
            raise ValueError(
                f"{adapter}: pass either client= or {names}, not both: a ready client "
                "already carries its own settings"
            )
        return OwnedClient(client, owned=False, close=close)
    return OwnedClient(build(), owned=True, close=close)


def refuse_sync_client(
    adapter: str, client: object, sync_types: tuple[type[Any], ...], use: str
) -> None:
    """Raise ``TypeError`` when ``client`` is an instance of one of ``sync_types``.

    An adapter awaits its SDK client's calls; a synchronous client would only fail at
    the first request, with a message about ``await`` that names neither. ``use`` says
    what to pass instead (``"openai.AsyncOpenAI(...)"``).
    """
    if isinstance(client, sync_types):
        cls = type(client)
        raise TypeError(
            f"{adapter} needs an async SDK client, got the synchronous "
            f"{cls.__module__.split('.')[0]}.{cls.__qualname__}; pass {use} instead"
        )


def option_keys(options_type: type[Any]) -> frozenset[str]:
    """Every key of an options ``TypedDict`` (its own and inherited ones)."""
    keys: Iterable[str] = getattr(options_type, "__optional_keys__", ())
    required: Iterable[str] = getattr(options_type, "__required_keys__", ())
    return frozenset((*keys, *required))


def warn_unknown_options(
    adapter: str,
    options: Mapping[str, Any],
    known: frozenset[str],
    *,
    options_type: str,
    passthrough: str | None = "extra_body",
    sent: bool = False,
) -> None:
    """Warn (``UserWarning``) about each option key not in ``known``.

    An adapter does not send a key it does not know; a misspelling would vanish
    without a word. A warning, not an error: one options dict may serve several
    adapters (a fallback chain), each reading its own keys. The message names the
    key, the closest known key, ``options_type`` (the ``TypedDict`` that lists the
    keys) and, when the adapter has one, the ``passthrough`` option for service
    fields it does not know; ``sent`` says the key goes on anyway (a test double
    records it). Build ``known`` once with :func:`option_keys`.
    """
    unknown = options.keys() - known
    if not unknown:
        return
    import difflib
    import warnings

    extra = (
        f"; send a service field the adapter does not know in {passthrough}={{...}}"
        if passthrough
        else ""
    )
    for key in sorted(unknown):
        close = difflib.get_close_matches(key, sorted(known), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        warnings.warn(
            f"{adapter} does not know the option {key!r}{hint}"
            f"{'' if sent else ' and does not send it'}: its options are the keys of "
            f"{options_type}{extra}",
            UserWarning,
            stacklevel=3,
        )


def response_update(response: ChatResponse[Any]) -> ChatResponseUpdate:
    """``response`` as a single update whose fold gives the same response back.

    For a service that answers a streamed request with a whole JSON body: the adapter
    reads the body as the response it is and yields this one update.
    """
    contents: list[Content] = [c for message in response.messages for c in message.contents]
    if response.usage is not None:
        contents.append(UsageContent(response.usage))
    message_id = response.messages[-1].message_id if response.messages else None
    return ChatResponseUpdate(
        contents=tuple(contents),
        role="assistant" if contents else None,
        response_id=response.response_id,
        message_id=message_id,
        conversation_id=response.conversation_id,
        model=response.model,
        finish_reason=response.finish_reason,
        created_at=response.created_at,
        additional_properties=response.additional_properties,
    )


_FETCHABLE = ("http://", "https://", "data:")
"""URI schemes a model service can open; any other (``file:``, ``demo:``, an MCP
server's own) names something only the tool's side can reach."""

_TEXT_TYPES = ("application/json", "application/xml", "application/yaml", "application/x-yaml")


def _text_like(media_type: str) -> bool:
    base = media_type.split(";", 1)[0].strip().lower()
    return base.startswith("text/") or base in _TEXT_TYPES or base.endswith(("+json", "+xml"))


def describe_media(content: DataContent | UriContent) -> TextContent:
    """Text the model can read in place of ``content``, for an API that cannot send it.

    A link gives its name, media type and URI (the model can pass the URI to a tool
    that reads it, such as an MCP server's resource reader); data gives its name,
    media type and size, followed by the text itself when it is text in UTF-8.
    """
    name = f" {content.name!r}" if content.name else ""
    if isinstance(content, UriContent):
        kind = f" ({content.media_type})" if content.media_type else ""
        return TextContent(
            f"[Link{name}{kind}: {content.uri}; not opened, as this model API cannot take it]"
        )
    size = f"{len(content.data):,} bytes"
    if _text_like(content.media_type):
        try:
            text = content.data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return TextContent(f"[File{name} ({content.media_type}, {size}):]\n{text}")
    return TextContent(
        f"[File{name} ({content.media_type}, {size}); not shown, as this model API cannot "
        "take that media type]"
    )


def tool_result_contents(
    result: FunctionResultContent, carries: Callable[[DataContent | UriContent], bool]
) -> tuple[TextContent | DataContent | UriContent, ...] | None:
    """The text and media a tool returned, as the API can send them; ``None`` when the
    tool returned something else (a string, a JSON value, nothing).

    The tool has already run, so what the API cannot take must not fail the request:
    each item ``carries`` refuses (the adapter's rule for what its API takes in a tool
    result), and every link with a scheme no service can open (anything but ``http``,
    ``https`` and ``data``), becomes the text :func:`describe_media` gives. The
    adapter then sends the items as it would any text and media::

        def _carries(item: DataContent | UriContent) -> bool:
            return (item.media_type or "").startswith("image/")

        contents = tool_result_contents(result, _carries)
        if contents is not None:
            parts = [to_part(item) for item in contents]  # nothing here can raise
    """
    value: object = result.result
    if isinstance(value, (DataContent, UriContent)):
        items: tuple[object, ...] = (value,)
    elif isinstance(value, (tuple, list)) and value:
        items = tuple(cast("Sequence[object]", value))
    else:
        return None
    if not all(isinstance(item, (TextContent, DataContent, UriContent)) for item in items):
        return None
    checked = cast("tuple[TextContent | DataContent | UriContent, ...]", items)
    return tuple(
        item
        if isinstance(item, TextContent)
        or (
            (not isinstance(item, UriContent) or item.uri.lower().startswith(_FETCHABLE))
            and carries(item)
        )
        else describe_media(item)
        for item in checked
    )
