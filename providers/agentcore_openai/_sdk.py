"""Building the SDK's async client the way every OpenAI adapter wants it."""

from __future__ import annotations

import openai

from agentcore.errors import AuthenticationError
from agentcore_openai._errors import PROVIDER

__all__ = ["build_client"]


def build_client(
    client: openai.AsyncOpenAI | None, api_key: str | None, base_url: str | None
) -> openai.AsyncOpenAI:
    """``client`` as given, or a new ``AsyncOpenAI`` with ``max_retries=0``.

    Retrying belongs to agentcore's retry middleware, so a client the adapter
    builds never retries on its own. A missing key raises
    :class:`~agentcore.errors.AuthenticationError` naming ``OPENAI_API_KEY``.
    """
    if client is not None:
        if api_key is not None or base_url is not None:
            raise ValueError(
                "pass either client=... or api_key=/base_url=, not both: a given client "
                "already carries its key and base URL"
            )
        return client
    try:
        return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0)
    except openai.OpenAIError as exc:
        raise AuthenticationError(
            "no OpenAI API key: pass api_key=... or set the OPENAI_API_KEY environment variable",
            provider=PROVIDER,
        ) from exc
