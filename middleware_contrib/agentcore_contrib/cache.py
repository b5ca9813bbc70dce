"""Cache: answer identical model requests from a store instead of calling the model.

A request is identified by the canonical JSON of its messages, options and tool
declarations. A hit returns the stored response without calling inward; in a
streaming run the stored response is replayed as a stream. Failed calls are never
stored, and a streamed response is stored only once its stream completed.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Protocol, cast, runtime_checkable

import attrs

from agentcore import (
    ChatContext,
    ChatResponse,
    ChatResponseUpdate,
    ErrorContent,
    ResponseStream,
    StreamEnd,
)
from agentcore.middleware import CallNext
from agentcore.serialization import unstructure

__all__ = ["Cache", "CacheStore", "InMemoryCacheStore", "replay_response", "request_key"]

Clock = Callable[[], float]
ChatStream = ResponseStream[ChatResponseUpdate, ChatResponse[Any]]


@runtime_checkable
class CacheStore(Protocol):
    """Where :class:`Cache` keeps responses. Any object of this shape plugs in.

    ``ttl`` is in seconds; ``None`` means the entry does not expire.
    """

    async def get(self, key: str) -> ChatResponse[Any] | None: ...

    async def set(self, key: str, response: ChatResponse[Any], ttl: float | None) -> None: ...


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


class InMemoryCacheStore:
    """A bounded LRU store whose entries expire after their ``ttl``.

    ``clock`` (seconds, monotonic) is injectable so tests can move time on.
    """

    def __init__(self, max_entries: int = 1024, *, clock: Clock = time.monotonic) -> None:
        if not _is_int(max_entries) or max_entries < 1:
            raise ValueError(f"max_entries must be an int >= 1, got {max_entries!r}")
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, ChatResponse[Any]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, key: str) -> ChatResponse[Any] | None:
        """The live entry for ``key`` (now the most recently used), or ``None``."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, response = entry
        if self._clock() >= expires:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return response

    async def set(self, key: str, response: ChatResponse[Any], ttl: float | None) -> None:
        """Store ``response``; the least recently used entry goes when the store is full."""
        expires = math.inf if ttl is None else self._clock() + ttl
        self._entries[key] = (expires, response)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


def _canonical(value: object) -> Any:
    """``value`` as plain JSON data whose serialization does not depend on identity."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    declaration = getattr(value, "declaration", None)
    if callable(declaration):  # a function tool: what the model is told about it
        return _canonical(declaration())
    if attrs.has(type(value)):  # messages, contents, hosted tools
        return _canonical(unstructure(value))
    if isinstance(value, Mapping):
        items = cast("Mapping[object, object]", value)
        return {str(k): _canonical(v) for k, v in items.items()}
    if isinstance(value, AbstractSet):
        members = cast("AbstractSet[object]", value)
        return sorted((_canonical(v) for v in members), key=repr)
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in cast("Sequence[object]", value)]
    if isinstance(value, bytes):
        return value.hex()
    return repr(value)


def request_key(context: ChatContext) -> str:
    """The default cache key: a SHA-256 of the request's canonical JSON.

    Messages and contents are written with ``agentcore.serialization``, function
    tools by their declaration, hosted tools by their fields, and types (such as a
    ``response_format`` class) by their qualified name; keys are sorted. A value
    with no JSON form is keyed by its ``repr``.
    """
    payload = {
        "messages": [_canonical(m) for m in context.messages],
        "options": _canonical(context.options),
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def replay_response(response: ChatResponse[Any]) -> ChatStream:
    """A stream that replays a finished response: the same as
    :meth:`~agentcore.ResponseStream.from_response`, which new code should call directly."""
    return ResponseStream.from_response(response)


def _is_error(response: ChatResponse[Any]) -> bool:
    return response.finish_reason == "error" or any(
        isinstance(c, ErrorContent) for m in response.messages for c in m.contents
    )


class Cache:
    """Chat middleware that answers identical requests from ``store``.

    ``store`` defaults to an :class:`InMemoryCacheStore` of ``max_entries``
    (default 1024) whose clock is ``clock``; ``ttl`` (seconds, ``None`` for no
    expiry) is passed to every ``set``. ``key`` replaces :func:`request_key`.
    A hit sets ``context.metadata["cache_hit"] = True`` (a miss sets ``False``).
    Responses that failed (an exception, ``finish_reason="error"`` or an
    :class:`~agentcore.ErrorContent`) are not stored, nor is a stream the
    consumer left before its end.
    """

    def __init__(
        self,
        store: CacheStore | None = None,
        *,
        ttl: float | None = 300.0,
        max_entries: int | None = None,
        key: Callable[[ChatContext], str] | None = None,
        clock: Clock | None = None,
    ) -> None:
        if ttl is not None and not (_is_number(ttl) and ttl > 0):
            raise ValueError(f"ttl must be a positive number of seconds or None, got {ttl!r}")
        if store is None:
            self.store: CacheStore = InMemoryCacheStore(
                1024 if max_entries is None else max_entries, clock=clock or time.monotonic
            )
        else:
            if not isinstance(store, CacheStore):
                raise TypeError(
                    f"store must have async get(key) and set(key, response, ttl) methods, "
                    f"got {store!r}"
                )
            if max_entries is not None or clock is not None:
                raise ValueError(
                    "max_entries and clock configure the built-in in-memory store; "
                    "configure your own store directly instead"
                )
            self.store = store
        if key is not None and not callable(key):
            raise TypeError(f"key must be a callable (ChatContext) -> str, got {key!r}")
        self.ttl = ttl
        self._key = key or request_key

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        """Answer from the store, or call inward and store a successful answer."""
        key = self._key(context)
        cached = await self.store.get(key)
        if cached is not None:
            context.metadata["cache_hit"] = True
            context.result = ResponseStream.from_response(cached) if context.stream else cached
            return
        context.metadata["cache_hit"] = False
        await call_next()
        result = context.result
        if isinstance(result, ChatResponse):
            response: ChatResponse[Any] = result  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
            await self._save(key, response)
        elif isinstance(result, ResponseStream):

            async def save(end: StreamEnd[ChatResponse[Any]]) -> None:
                # Only a stream read to its end: never store a partial answer.
                if end.how == "completed" and end.final is not None:
                    await self._save(key, end.final)

            context.result = result.on_end(save)

    async def _save(self, key: str, response: ChatResponse[Any]) -> None:
        if not _is_error(response):
            await self.store.set(key, response, self.ttl)
