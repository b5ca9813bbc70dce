"""Building (or taking) the SDK's async client the way every OpenAI adapter wants it."""

from __future__ import annotations

from typing import Any

import httpx2
import openai

from agentcore.adapters import (
    DEFAULT_READ_TIMEOUT,
    OwnedClient,
    own_client,
    refuse_sync_client,
)
from agentcore.errors import AuthenticationError
from agentcore_openai._errors import PROVIDER

__all__ = ["CONNECT_TIMEOUT", "open_client", "request_options"]

CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection (the SDK's own default)."""


def _close(client: openai.AsyncOpenAI) -> Any:
    return client.close()


def open_client(
    adapter: str,
    client: openai.AsyncOpenAI | None,
    *,
    api_key: str | None,
    base_url: str | None,
    read_timeout: float | None,
) -> OwnedClient[openai.AsyncOpenAI]:
    """``client`` as given, or a new ``AsyncOpenAI`` with ``max_retries=0``.

    Retrying belongs to agentcore's retry middleware, so a client the adapter
    builds never retries on its own; it waits ``read_timeout`` seconds
    (:data:`~agentcore.adapters.DEFAULT_READ_TIMEOUT` unless given) for the next
    bytes of an answer. A missing key raises
    :class:`~agentcore.errors.AuthenticationError` naming ``OPENAI_API_KEY``.
    """
    if read_timeout is not None and not read_timeout > 0:
        raise ValueError(f"{adapter}: read_timeout must be a positive number of seconds")
    refuse_sync_client(adapter, client, (openai.OpenAI,), "openai.AsyncOpenAI(...)")

    def build() -> openai.AsyncOpenAI:
        idle = DEFAULT_READ_TIMEOUT if read_timeout is None else read_timeout
        try:
            return openai.AsyncOpenAI(
                api_key=api_key,
                base_url=base_url,
                max_retries=0,
                timeout=httpx2.Timeout(idle, connect=CONNECT_TIMEOUT),
            )
        except openai.OpenAIError as exc:
            raise AuthenticationError(
                "no OpenAI API key: pass api_key=... or set the OPENAI_API_KEY environment "
                "variable",
                provider=PROVIDER,
            ) from exc

    return own_client(
        adapter, client, build, close=_close, settings={"api_key": api_key, "base_url": base_url}
    )


def request_options(read_timeout: float | None) -> dict[str, Any]:
    """The per-request SDK arguments that apply ``read_timeout`` to a given client too."""
    if read_timeout is None:
        return {}
    return {"timeout": httpx2.Timeout(read_timeout, connect=CONNECT_TIMEOUT)}
