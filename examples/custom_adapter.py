"""A chat adapter for any OpenAI-compatible Chat Completions server, in under 120 lines.

``OpenAICompatibleChatClient`` talks to vLLM, llama.cpp's ``llama-server``, Ollama,
LM Studio or any other server that answers ``POST <base_url>/chat/completions``. It has
no agentcore base class: it is a chat client because it has the shape of
:class:`agentcore.SupportsGetResponse`. ``docs/provider-guide.md`` walks through it.

``python examples/custom_adapter.py`` runs offline: it starts a tiny server in this file
that answers like such a service, then runs an agent with a Python tool through the
adapter, once whole and once streamed. Set ``COMPATIBLE_BASE_URL`` (for example
``http://localhost:8000/v1``), ``COMPATIBLE_MODEL`` and, if needed, ``COMPATIBLE_API_KEY``
to run it against a real server instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import AsyncIterator, Generator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, TypeAlias, get_args

import anyio
import httpx2

from agentcore import (
    Agent,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    ErrorContent,
    FinishReason,
    FunctionCallContent,
    FunctionResultContent,
    HostedTool,
    Message,
    ResponseStream,
    SupportsGetResponse,
    TextContent,
    ToolChoice,
    Usage,
    UsageContent,
    tool,
)
from agentcore.adapters import GetResponseResult, get_response_method
from agentcore.errors import TransientError, error_for_status
from agentcore.protocols import ToolDeclaration
from agentcore.sse import close_body, server_sent_events
from agentcore.structured import json_schema_for

# -- the adapter ----------------------------------------------------------------------

PROVIDER = "openai-compatible"

Opts: TypeAlias = "ChatOptions[Any] | None"


class OpenAICompatibleChatClient:
    """A chat client for a server that speaks OpenAI's Chat Completions API.

    ``base_url`` is where ``/chat/completions`` hangs (``http://localhost:8000/v1``);
    ``api_key`` is sent as a bearer token when given. ``aclose()`` closes the connections.
    """

    def __init__(self, model: str, *, base_url: str, api_key: str | None = None) -> None:
        self.model = model
        self._url = base_url.rstrip("/") + "/chat/completions"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0, connect=5.0))

    @get_response_method  # gives callers the precise type for each value of stream
    def get_response(
        self, messages: Sequence[Message], *, options: Opts = None, stream: bool = False
    ) -> GetResponseResult:
        """Send one request: a whole response, or a stream of updates when ``stream``.

        Content the service cannot take raises ``ValueError`` here, before any request.
        A whole response is the fold of the same updates a stream would give.
        """
        body = self._body(messages, options, stream)
        updates = ResponseStream(self._updates(body), finalizer=ChatResponse.from_updates)
        return updates if stream else updates.get_final_response()

    def _body(self, messages: Sequence[Message], options: Opts, stream: bool) -> dict[str, Any]:
        options = options or {}
        wire = [{"role": "system", "content": i} for i in [options.get("instructions")] if i]
        wire += [item for message in messages for item in _wire_messages(message)]
        body: dict[str, Any] = {"model": options.get("model") or self.model, "messages": wire}
        sampling = ("temperature", "top_p", "max_tokens", "stop", "seed")
        body |= {key: options.get(key) for key in sampling if options.get(key) is not None}
        if tools := [_wire_tool(tool) for tool in options.get("tools") or ()]:
            body["tools"] = tools
            if (choice := options.get("tool_choice")) is not None:
                body["tool_choice"] = _wire_tool_choice(choice)
        if (response_format := options.get("response_format")) is not None:
            name, schema = json_schema_for(response_format)  # a type or a JSON schema
            json_schema = {"name": name, "schema": schema}
            body["response_format"] = {"type": "json_schema", "json_schema": json_schema}
        if stream:  # and ask for a last chunk with the usage
            body |= {"stream": True, "stream_options": {"include_usage": True}}
        return body

    async def _updates(self, body: dict[str, Any]) -> AsyncIterator[ChatResponseUpdate]:
        call_ids: dict[int, str] = {}  # a call's later pieces carry only its index
        try:
            async with self._http.stream("POST", self._url, json=body) as response:
                if response.is_error or not body.get("stream"):  # an error or a whole answer
                    await response.aread()
                    response.raise_for_status()  # HTTPStatusError for an error status
                    yield _update(response.json(), call_ids)  # a whole completion: one update
                    return
                chunks = response.aiter_bytes()
                try:
                    async for event in server_sent_events(chunks):
                        if event.data != "[DONE]":  # the end, in OpenAI's dialect
                            yield _update(json.loads(event.data), call_ids)
                finally:
                    await close_body(response.aclose, chunks)  # also when the consumer left
        except httpx2.HTTPStatusError as exc:  # mapped by status, body and headers
            failed = exc.response
            status, text, headers = failed.status_code, failed.text, failed.headers
            raise error_for_status(status, text, provider=PROVIDER, headers=headers) from exc
        except httpx2.TransportError as exc:
            raise TransientError(f"{self._url}: {exc!r}", provider=PROVIDER) from exc

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._http.aclose()


# Contents a plain Chat Completions server cannot take (images would need "image_url").
_UNSUPPORTED = {"data", "uri", "hosted_tool_call", "hosted_tool_result"}


def _wire_messages(message: Message) -> list[dict[str, Any]]:
    """A message in Chat Completions form; function results become ``tool`` messages."""
    wire: dict[str, Any] = {"role": message.role, "content": message.text or None}
    results: list[dict[str, Any]] = []
    for content in message.contents:
        if isinstance(content, FunctionCallContent):
            function = {"name": content.name, "arguments": content.arguments_json()}
            call = {"id": content.call_id, "type": "function", "function": function}
            wire.setdefault("tool_calls", []).append(call)
        elif isinstance(content, FunctionResultContent):
            result = content.result
            result = result if isinstance(result, str) else json.dumps(result, default=str)
            results.append({"role": "tool", "tool_call_id": content.call_id, "content": result})
        elif content.type in _UNSUPPORTED:
            raise ValueError(f"OpenAICompatibleChatClient cannot send {type(content).__name__}")
    return ([wire] if wire["content"] or "tool_calls" in wire else []) + results


def _wire_tool(tool: ToolDeclaration | HostedTool | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(tool, Mapping):
        return dict(tool)  # a raw Chat Completions tool definition, sent as it is
    if isinstance(tool, ToolDeclaration):  # a function tool: name, description, parameters
        spec = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
        return {"type": "function", "function": spec}
    raise ValueError(f"OpenAICompatibleChatClient has no hosted {tool.kind!r} tool")


def _wire_tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    if isinstance(choice, str):  # "auto", "none" or "required"
        return choice
    name = choice.get("required_function_name")
    return {"type": "function", "function": {"name": name}} if name else "required"


# Chat Completions names its finish reasons the way agentcore does.
_FINISH: dict[str | None, FinishReason] = {r: r for r in get_args(FinishReason)}


def _update(chunk: dict[str, Any], call_ids: dict[int, str]) -> ChatResponseUpdate:
    """One streamed chunk, or a whole completion, as an update."""
    if error := chunk.get("error"):  # the server failed after the stream had started
        content = ErrorContent(str(error.get("message")), code=error.get("type"))
        return ChatResponseUpdate(contents=[content], role="assistant", finish_reason="error")
    choice: dict[str, Any] = chunk["choices"][0] if chunk.get("choices") else {}
    delta: dict[str, Any] = choice.get("delta") or choice.get("message") or {}
    contents: list[Content] = [TextContent(delta["content"])] if delta.get("content") else []
    for position, call in enumerate(delta.get("tool_calls") or ()):
        index = call.get("index", position)
        call_id = call_ids.setdefault(index, call.get("id") or f"call_{index}")
        name, args = call["function"].get("name") or "", call["function"].get("arguments") or ""
        contents.append(FunctionCallContent(call_id, name, args, index=index))
    if usage := chunk.get("usage"):
        tokens = [usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")]
        contents.append(UsageContent(Usage(*tokens)))
    return ChatResponseUpdate(
        contents=contents,
        role="assistant",
        response_id=chunk.get("id"),
        model=chunk.get("model"),
        finish_reason=_FINISH.get(choice.get("finish_reason")),
    )


if TYPE_CHECKING:  # static conformance: mypy and pyright check the shape right here
    _: SupportsGetResponse = OpenAICompatibleChatClient("model", base_url="http://localhost")

# -- the demo -------------------------------------------------------------------------


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return {"paris": "sunny, 21°C", "oslo": "snowing, -3°C"}.get(city.lower(), "cloudy, 15°C")


def _completion(request: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """What the offline server answers: a call of the first declared tool, then text."""
    last = request["messages"][-1]
    if last["role"] == "tool":
        return {"role": "assistant", "content": f"It is {last['content']} in Paris."}, "stop"
    name = request["tools"][0]["function"]["name"]
    function = {"name": name, "arguments": json.dumps({"city": "Paris"})}
    call = {"id": "call_1", "type": "function", "function": function}
    return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"


def _chunks(message: dict[str, Any], finish_reason: str) -> list[dict[str, Any]]:
    """The same answer as Chat Completions stream chunks: word by word, arguments in two."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    for i, word in enumerate((message["content"] or "").split(" ")):
        deltas.append({"content": word if i == 0 else " " + word})
    for index, call in enumerate(message.get("tool_calls", [])):
        start = {"index": index, "id": call["id"], "type": "function"}
        arguments: str = call["function"]["arguments"]
        half = len(arguments) // 2
        function = {"name": call["function"]["name"], "arguments": arguments[:half]}
        deltas.append({"tool_calls": [{**start, "function": function}]})
        deltas.append(
            {"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]}
        )
    choices: list[dict[str, Any]] = [
        {"index": 0, "delta": delta, "finish_reason": None} for delta in deltas
    ]
    choices.append({"index": 0, "delta": {}, "finish_reason": finish_reason})
    return [{"choices": [choice]} for choice in choices]


class _ChatCompletionsServer(BaseHTTPRequestHandler):
    """A stand-in for a local model server: ``POST /v1/chat/completions`` only."""

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        message, finish_reason = _completion(request)
        base = {"id": "chatcmpl-demo", "created": 1767225600, "model": request["model"]}
        usage = {"prompt_tokens": 42, "completion_tokens": 9, "total_tokens": 51}
        if request.get("stream"):
            chunks: list[dict[str, Any]] = [*_chunks(message, finish_reason)]
            chunks.append({"choices": [], "usage": usage})
            events = [{**base, "object": "chat.completion.chunk", **chunk} for chunk in chunks]
            lines = [f"data: {json.dumps(event)}\n\n" for event in events]
            body, content_type = "".join([*lines, "data: [DONE]\n\n"]), "text/event-stream"
        else:
            choice = {"index": 0, "message": message, "finish_reason": finish_reason}
            completion = {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            body, content_type = json.dumps(completion), "application/json"
        payload = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def local_server() -> Generator[str, None, None]:
    """Run the stand-in server on a free port of 127.0.0.1; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ChatCompletionsServer)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _tokens(usage: Usage | None) -> str:
    if usage is None:
        return "no usage reported"
    return f"{usage.input_tokens} tokens in, {usage.output_tokens} out, over both calls"


async def main() -> None:
    with contextlib.ExitStack() as stack:
        base_url = os.environ.get("COMPATIBLE_BASE_URL") or stack.enter_context(local_server())
        client = OpenAICompatibleChatClient(
            os.environ.get("COMPATIBLE_MODEL", "local-model"),
            base_url=base_url,
            api_key=os.environ.get("COMPATIBLE_API_KEY"),
        )
        agent = Agent(client, "Answer in one short sentence.", tools=[get_weather])
        try:
            response = await agent.run("What is the weather like in Paris?")
            print(response.text)
            print(f"  ({_tokens(response.usage)})")
            stream = agent.run("And once more, streamed: the weather in Paris?", stream=True)
            async for update in stream:
                print(update.text, end="", flush=True)
            final = await stream.get_final_response()
            print(f"\n  (finish reason {final.finish_reason!r}, {_tokens(final.usage)})")
        finally:
            await client.aclose()


if __name__ == "__main__":
    anyio.run(main)
