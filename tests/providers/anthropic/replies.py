"""The wire server as these tests run it, its queued replies, and what was sent."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from tests.providers.anthropic.fixtures import sse_events
from tests.providers.wire_server import Reply, WireServer


class QuickWireServer(WireServer):
    """A :class:`WireServer` whose serve loop polls every 10 ms, so it stops at once.

    (``serve_forever``'s default 0.5 s poll would add half a second to every test.)
    """

    def start(self) -> QuickWireServer:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self


MESSAGES = "/v1/messages"
COUNT_TOKENS = "/v1/messages/count_tokens"


def json_reply(
    body: dict[str, Any], status: int = 200, *, headers: Mapping[str, str] | None = None
) -> Reply:
    """A whole-message (or error) reply."""
    return Reply(status=status, json_body=body, headers=dict(headers or {}))


def sse_reply(
    msg: dict[str, Any],
    *,
    chunk_size: int | None = None,
    piece: int = 5,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    """The streamed twin of ``msg``."""
    return Reply(
        sse=sse_events(msg, piece=piece), chunk_size=chunk_size, headers=dict(headers or {})
    )


def sent(server: WireServer, index: int = -1) -> dict[str, Any]:
    """The JSON body of a recorded request."""
    body: dict[str, Any] = server.requests[index].json
    return body
