"""The fixture server over streamable HTTP, refusing an unknown session the way the
reference TypeScript servers (``@modelcontextprotocol/server-everything`` 2026.8.31, the
SDK's examples) do: status 400 and ``{"error": {"code": -32000, "message": "Bad Request:
No valid session ID provided"}, "id": <the request's id>}``, where the Python SDK
answers 404.

Run ``python session_server.py PORT`` (bound to 127.0.0.1).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import uvicorn

sys.path.insert(0, str(Path(__file__).parents[2]))  # the checkout, when run as a script

from tests.mcp.fixture_server import server  # needs the path above


def refusal(request_id: object) -> bytes:
    error = {"code": -32000, "message": "Bad Request: No valid session ID provided"}
    return json.dumps({"jsonrpc": "2.0", "error": error, "id": request_id}).encode()


def refusing_unknown_sessions_with_400(app: Any) -> Any:
    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or [])
        if scope["type"] != "http" or b"mcp-session-id" not in headers:
            await app(scope, receive, send)
            return
        body = b""
        while True:  # read the request to answer with its id, then replay it to the app
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            request_id = json.loads(body).get("id") if body else None
        except (ValueError, AttributeError):
            request_id = None
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        refused = False

        async def sending(message: Any) -> None:
            nonlocal refused
            if message["type"] == "http.response.start" and message["status"] == 404:
                refused = True
                await send(
                    {
                        "type": "http.response.start",
                        "status": 400,
                        "headers": [(b"content-type", b"application/json")],
                    }
                )
                await send({"type": "http.response.body", "body": refusal(request_id)})
            elif not refused:
                await send(message)

        await app(scope, replay, sending)

    return wrapped


if __name__ == "__main__":
    app = refusing_unknown_sessions_with_400(server.streamable_http_app())
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
