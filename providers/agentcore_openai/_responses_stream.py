"""Responses API stream events -> agentcore updates.

Text, refusals, function-call arguments and reasoning summaries stream as
deltas; everything else of an item arrives when the item is done (hosted tool
calls and results, encrypted reasoning, annotations). When an item is done the
reader also sends whatever part of it no delta carried, so a server that skips
deltas still gives the full answer. Folding the updates equals the
non-streamed response, except that annotations arrive in a separate empty
:class:`~agentcore.TextContent` after the text they belong to.

Arguments streamed for a function call whose ``response.output_item.added`` never
came are dropped with a logged warning (logger ``agentcore_openai``): without the
announcement the call has no name, and a call without a name cannot run. The
call's ``response.output_item.done`` still brings it whole.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, cast

from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseIncompleteEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseRefusalDeltaEvent,
    ResponseStreamEvent,
    ResponseTextDeltaEvent,
)
from openai.types.responses.response_output_text import ResponseOutputText

from agentcore import (
    ChatResponseUpdate,
    Content,
    ErrorContent,
    FinishReason,
    FunctionCallContent,
    ReasoningContent,
    TextContent,
    UsageContent,
)
from agentcore_openai._content_parts import iso_timestamp
from agentcore_openai._errors import PROVIDER
from agentcore_openai._responses_items import (
    annotations_of,
    finish_reason_of,
    is_function_call,
    is_message,
    is_reasoning,
    item_contents,
    message_text,
    reasoning_text,
    responses_usage,
)
from agentcore_openai._sse import read_model

__all__ = ["EventReader", "parse_event"]

_log = logging.getLogger("agentcore_openai")

# The events the reader uses; others (progress, part boundaries, done-texts) are skipped.
_EVENT_TYPES: dict[str, type[ResponseStreamEvent]] = {
    "response.created": ResponseCreatedEvent,
    "response.completed": ResponseCompletedEvent,
    "response.incomplete": ResponseIncompleteEvent,
    "response.failed": ResponseFailedEvent,
    "response.output_text.delta": ResponseTextDeltaEvent,
    "response.refusal.delta": ResponseRefusalDeltaEvent,
    "response.function_call_arguments.delta": ResponseFunctionCallArgumentsDeltaEvent,
    "response.reasoning_summary_text.delta": ResponseReasoningSummaryTextDeltaEvent,
    "response.output_item.added": ResponseOutputItemAddedEvent,
    "response.output_item.done": ResponseOutputItemDoneEvent,
    "error": ResponseErrorEvent,
}


def parse_event(payload: Mapping[str, Any]) -> ResponseStreamEvent | None:
    """The SDK event for one SSE ``data`` object, or ``None`` for events not used.

    Validated when the event fits the SDK's type, else built leniently like the SDK
    builds them (``model_construct``), so a field the service adds or leaves out does
    not break the stream.
    """
    kind = payload.get("type")
    if kind is None and isinstance(payload.get("error"), Mapping):
        error = cast("Mapping[str, Any]", payload["error"])
        payload = {"type": "error", "message": error.get("message", ""), "code": error.get("code")}
        kind = "error"
    cls = _EVENT_TYPES.get(str(kind))
    return None if cls is None else read_model(cls, dict(payload))


def _remainder(full: str, streamed: str) -> str:
    """What ``full`` has beyond what was ``streamed`` already."""
    return full[len(streamed) :] if full.startswith(streamed) else ""


class EventReader:
    """Reads the events of one streamed response; :attr:`done` once it ended."""

    def __init__(self, *, store: bool, rate_limit: dict[str, Any] | None) -> None:
        self.done = False
        self._store = store
        self._pending_properties = {"rate_limit": rate_limit} if rate_limit else None
        self._response_id: str | None = None
        self._model: str | None = None
        self._created_at: str | None = None
        self._call_ids: dict[str, str] = {}  # item id -> call_id
        self._streamed: dict[str, str] = {}  # item id -> text/arguments sent so far
        self._summary_index: dict[str, int] = {}
        self._unannounced: set[str] = set()  # items whose arguments were dropped

    def read(self, event: ResponseStreamEvent) -> ChatResponseUpdate | None:
        """The update for one event, or ``None`` when it adds nothing."""
        if isinstance(
            event,
            (
                ResponseCreatedEvent,
                ResponseCompletedEvent,
                ResponseIncompleteEvent,
                ResponseFailedEvent,
            ),
        ):
            return self._lifecycle(event.response, final=event.type != "response.created")
        if isinstance(event, (ResponseTextDeltaEvent, ResponseRefusalDeltaEvent)):
            return self._text(event.item_id, event.delta)
        if isinstance(event, ResponseFunctionCallArgumentsDeltaEvent):
            return self._arguments(event)
        if isinstance(event, ResponseReasoningSummaryTextDeltaEvent):
            return self._summary(event)
        if isinstance(event, ResponseOutputItemAddedEvent):
            return self._item_added(event)
        if isinstance(event, ResponseOutputItemDoneEvent):
            return self._item_done(event)
        if isinstance(event, ResponseErrorEvent):
            self.done = True
            return self._update([ErrorContent(event.message, code=event.code)], "error")
        return None

    def _lifecycle(self, response: Response, *, final: bool) -> ChatResponseUpdate | None:
        self._response_id = getattr(response, "id", None) or self._response_id
        self._model = getattr(response, "model", None) or self._model
        if self._created_at is None:
            self._created_at = iso_timestamp(getattr(response, "created_at", None))
        if not final:
            return self._update([], None) if self._pending_properties else None
        self.done = True
        contents: list[Content] = []
        error = getattr(response, "error", None)
        if getattr(response, "status", None) == "failed" and error is not None:
            contents.append(ErrorContent(error.message, code=error.code))
        usage = getattr(response, "usage", None)
        if usage is not None:
            contents.append(UsageContent(responses_usage(usage, response.output or ())))
        return self._update(contents, finish_reason_of(response))

    def _text(self, item_id: str, delta: str) -> ChatResponseUpdate | None:
        if not delta:
            return None
        self._streamed[item_id] = self._streamed.get(item_id, "") + delta
        return self._update([TextContent(delta)], None)

    def _arguments(
        self, event: ResponseFunctionCallArgumentsDeltaEvent
    ) -> ChatResponseUpdate | None:
        call_id = self._call_ids.get(event.item_id)
        if call_id is None:
            if event.item_id not in self._unannounced:  # once an item
                self._unannounced.add(event.item_id)
                _log.warning(
                    "OpenAI streamed arguments for output item %r, which no "
                    "response.output_item.added announced: dropped (a call needs its "
                    "name); the item's response.output_item.done brings the call whole",
                    event.item_id,
                )
            return None
        self._streamed[event.item_id] = self._streamed.get(event.item_id, "") + event.delta
        piece = FunctionCallContent(
            call_id=call_id, arguments=event.delta, index=event.output_index
        )
        return self._update([piece], None)

    def _summary(self, event: ResponseReasoningSummaryTextDeltaEvent) -> ChatResponseUpdate:
        item_id = event.item_id
        text = event.delta
        last = self._summary_index.get(item_id)
        if last is not None and event.summary_index != last:
            text = "\n\n" + text  # summary parts are joined by blank lines
        self._summary_index[item_id] = event.summary_index
        self._streamed[item_id] = self._streamed.get(item_id, "") + text
        return self._update([ReasoningContent(text=text, provider=PROVIDER, id=item_id)], None)

    def _item_added(self, event: ResponseOutputItemAddedEvent) -> ChatResponseUpdate | None:
        item = event.item
        if not is_function_call(item):
            return None
        item_id = item.id or item.call_id
        self._call_ids[item_id] = item.call_id
        self._streamed[item_id] = item.arguments
        piece = FunctionCallContent(
            call_id=item.call_id, name=item.name, arguments=item.arguments, index=event.output_index
        )
        return self._update([piece], None)

    def _item_done(self, event: ResponseOutputItemDoneEvent) -> ChatResponseUpdate | None:
        item = event.item
        contents: list[Content] = []
        if is_message(item):
            rest = _remainder(message_text(item), self._streamed.get(item.id, ""))
            if rest:
                contents.append(TextContent(rest))
            annotations = tuple(
                a
                for part in item.content or ()
                if isinstance(part, ResponseOutputText) and part.type == "output_text"
                for a in annotations_of(part)
            )
            if annotations:
                contents.append(TextContent("", annotations=annotations))
        elif is_function_call(item):
            item_id = item.id or item.call_id
            if item_id not in self._call_ids:
                contents.extend(item_contents(item, event.output_index))
            else:
                rest = _remainder(item.arguments, self._streamed.get(item_id, ""))
                if rest:
                    contents.append(
                        FunctionCallContent(
                            call_id=item.call_id, arguments=rest, index=event.output_index
                        )
                    )
        elif is_reasoning(item):
            rest = _remainder(reasoning_text(item), self._streamed.get(item.id, ""))
            contents.append(
                ReasoningContent(
                    text=rest, provider=PROVIDER, id=item.id, protected_data=item.encrypted_content
                )
            )
        else:
            contents.extend(item_contents(item, event.output_index))
        return self._update(contents, None) if contents else None

    def _update(
        self, contents: list[Content], finish_reason: FinishReason | None
    ) -> ChatResponseUpdate:
        properties, self._pending_properties = self._pending_properties, None
        return ChatResponseUpdate(
            contents=tuple(contents),
            role="assistant" if contents else None,
            response_id=self._response_id,
            conversation_id=self._response_id if self._store else None,
            model=self._model,
            finish_reason=finish_reason,
            created_at=self._created_at,
            additional_properties=properties,
        )
