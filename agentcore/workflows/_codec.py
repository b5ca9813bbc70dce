"""Reading and writing a run's state as JSON, with the definition's type registry.

Every type that can be stored (executors' input, send, yield, request, response and
state types) is collected at ``build()`` and given a *type key*
(``"module:QualName"``, generic aliases by their normalized form, or the name given
to ``builder.register_type``). Values are written by the kernel's converter as
``{"type": key, "value": ...}``. Reading finds classes only through the registry:
an unknown key is a :class:`CheckpointError`, never an import and never a raw dict.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, get_args, get_origin

import attrs

from agentcore._types.usage import Usage
from agentcore.workflows._requests import PendingRequest, sub_workflow_messages
from agentcore.workflows._state import (
    Buffered,
    Envelope,
    Finished,
    FrozenState,
    PendingEntry,
    RunState,
)
from agentcore.workflows._typeexpr import members, runtime_class, with_article
from agentcore.workflows.errors import CheckpointError, WorkflowBuildError

if TYPE_CHECKING:
    from agentcore.workflows._subtypes import SubWorkflowRequest, SubWorkflowResponse

__all__ = [
    "FAN_IN_KEY",
    "TypeRegistry",
    "decode_pending_write",
    "decode_state",
    "encode_entry",
    "encode_envelope",
    "encode_parts",
    "encode_pending_write",
    "encode_state",
    "type_key",
]

FAN_IN_KEY = "agentcore.workflows:fan_in"
"""The key of a fired fan-in's tuple (each item is stored with its own key)."""


def type_key(tp: Any) -> str:
    """The default key of a type expression."""
    if tp is Any:
        return "typing:Any"
    if tp is None or tp is type(None):
        return "builtins:NoneType"
    origin = get_origin(tp)
    if origin is Literal:
        return "Literal[" + ",".join(repr(a) for a in get_args(tp)) + "]"
    parts = members(tp)
    if len(parts) > 1:
        return "|".join(type_key(p) for p in parts)
    if origin is not None:
        args = ",".join("..." if a is Ellipsis else type_key(a) for a in get_args(tp))
        return f"{type_key(origin)}[{args}]"
    if isinstance(tp, type):
        return f"{tp.__module__}:{tp.__qualname__}"
    return repr(tp)


class TypeRegistry:
    """Type keys to type expressions and back, fixed at build."""

    __slots__ = ("_by_key", "_classes", "_keys")

    def __init__(
        self,
        types: Iterable[Any],
        names: Mapping[Any, str] | None = None,
        aliases: Mapping[Any, Sequence[str]] | None = None,
    ) -> None:
        names = names or {}
        self._by_key: dict[str, Any] = {}
        self._keys: dict[Any, str] = {}
        self._classes: dict[type[Any], str] = {}
        problems: list[str] = []
        for tp in types:
            if tp in self._keys:
                continue
            key = names.get(tp) or type_key(tp)
            known = self._by_key.get(key)
            if known is not None and known != tp:
                problems.append(
                    f"two types have the checkpoint key {key!r}: {known!r} and {tp!r}; give one "
                    f"another name with builder.register_type(cls, name=...)"
                )
                continue
            self._by_key[key] = tp
            self._keys[tp] = key
            if isinstance(tp, type):
                self._classes.setdefault(tp, key)
        # aliases last: an old key must not hide (or be hidden by) another type's key
        for tp, old_keys in (aliases or {}).items():
            for alias in old_keys:
                known = self._by_key.get(alias)
                if known is not None and known != tp:
                    problems.append(
                        f"the alias {alias!r} of {tp!r} is already the checkpoint key of "
                        f"{known!r}; a stored {alias!r} could not tell them apart: drop the "
                        f"alias, or rename one with builder.register_type(cls, name=...)"
                    )
                else:
                    self._by_key[alias] = tp
        if problems:
            raise WorkflowBuildError(problems)

    def key(self, tp: Any, value: object) -> str:
        """The key to store ``value`` under, declared as ``tp``."""
        key = self._keys.get(tp)
        if key is not None:
            return key
        for base in type(value).__mro__:
            key = self._classes.get(base)
            if key is not None:
                return key
        raise CheckpointError(
            f"cannot store {with_article(type(value).__qualname__)}: the workflow does not know "
            f"its type; "
            f"declare it on an executor or register it with builder.register_type(...)"
        )

    def keys(self) -> dict[Any, str]:
        """Every registered type expression and its key."""
        return dict(self._keys)

    def lookup(self, key: str) -> Any:
        try:
            return self._by_key[key]
        except KeyError:
            raise CheckpointError(
                f"the checkpoint stores a value of type {key!r}, which this workflow does not "
                f"know; register it (builder.register_type(cls, aliases=[{key!r}])) if it was "
                f"renamed"
            ) from None

    def encode(self, value: Any, declared: Any) -> dict[str, Any]:
        if declared is tuple and isinstance(value, tuple):
            items = cast("tuple[object, ...]", value)
            return {"type": FAN_IN_KEY, "value": [self.encode(v, None) for v in items]}
        key = self.key(declared, value)
        sub_workflow = sub_workflow_messages()
        if sub_workflow is None:
            return {"type": key, "value": _unstructure(value)}
        if isinstance(value, sub_workflow[0]):
            asked: SubWorkflowRequest[Any, Any] = value
            return {"type": key, "value": self._encode_asked(asked)}
        if isinstance(value, sub_workflow[1]):
            answer: SubWorkflowResponse[Any] = value
            return {
                "type": key,
                "value": {
                    "request_id": answer.request_id,
                    "executor_id": answer.executor_id,
                    "child_run_id": answer.child_run_id,
                    "data": self.encode(answer.data, None),
                },
            }
        return {"type": key, "value": _unstructure(value)}

    # A sub-workflow's messages hold a child request (whose response type is a type, not
    # data) and the child's values: both are written with this registry's keys, which
    # include the child definitions' types (added at build), never as importable names.

    def _encode_asked(self, asked: SubWorkflowRequest[Any, Any]) -> dict[str, Any]:
        request = asked.request
        return {
            "request": {
                "id": request.id,
                "executor_id": request.executor_id,
                "superstep": request.superstep,
                "path": list(request.path),
                "data": self.encode(request.data, None),
                "response_type": self.key(request.response_type, None),
            },
            "executor_id": asked.executor_id,
            "child_run_id": asked.child_run_id,
        }

    def _decode_special(self, cls: type[Any], data: Mapping[str, Any]) -> Any:
        from agentcore.workflows._subtypes import SubWorkflowRequest, SubWorkflowResponse

        if cls is SubWorkflowResponse:
            return SubWorkflowResponse(
                str(data["request_id"]),
                str(data["executor_id"]),
                str(data["child_run_id"]),
                self.decode(data["data"])[0],
            )
        stored: Mapping[str, Any] = data["request"]
        request: PendingRequest[Any, Any] = PendingRequest(
            str(stored["id"]),
            str(stored["executor_id"]),
            self.decode(stored["data"])[0],
            self.lookup(str(stored["response_type"])),
            int(stored["superstep"]),
            tuple(stored.get("path", ())),
        )
        return SubWorkflowRequest(request, str(data["executor_id"]), str(data["child_run_id"]))

    def decode(self, stored: Any) -> tuple[Any, Any]:
        """A stored value and the type expression it was declared as."""
        if not isinstance(stored, Mapping) or "type" not in stored or "value" not in stored:
            raise CheckpointError(
                f"a stored value must be {{'type': ..., 'value': ...}}, got {stored!r}"
            )
        data = cast("Mapping[str, Any]", stored)
        key = str(data["type"])
        if key == FAN_IN_KEY:
            items: list[Any] = list(data["value"])
            return tuple(self.decode(item)[0] for item in items), tuple
        tp = self.lookup(key)
        cls = runtime_class(tp)
        from agentcore.serialization import structure

        try:
            # a stored sub-workflow message's class is in the registry: its module is loaded
            sub_workflow = sub_workflow_messages()
            if sub_workflow is not None and cls in sub_workflow:
                value = self._decode_special(cls, data["value"])
            else:
                value = structure(data["value"], tp)
        except (ValueError, TypeError, KeyError) as exc:
            raise CheckpointError(f"a stored {key} cannot be read: {exc!r}") from exc
        if cls is not None and cls is not Any and not isinstance(value, cls):
            raise CheckpointError(f"a stored {key} was read back as {type(value).__qualname__}")
        return value, tp


_UNSTRUCTURE: list[Callable[[Any], Any]] = []


def _unstructure(value: Any) -> Any:
    """``agentcore.serialization.unstructure(value)``: imported with the first value
    encoded (it loads the converter, which ``import agentcore.workflows`` does not),
    then kept: an import statement per value cost half of encoding a message (6.9k
    of 13.7k instructions, callgrind)."""
    if not _UNSTRUCTURE:
        from agentcore.serialization import unstructure

        _UNSTRUCTURE.append(unstructure)
    return _UNSTRUCTURE[0](value)


def encode_entry(registry: TypeRegistry, entry: PendingEntry) -> dict[str, Any]:
    """A pending request as a checkpoint stores it."""
    request = entry.request
    return {
        "id": request.id,
        "executor_id": request.executor_id,
        "superstep": request.superstep,
        "path": list(request.path),
        "data": registry.encode(request.data, None),
        "response_type": registry.key(request.response_type, None),
        "key": list(entry.key),
        "context": entry.context,
    }


def _decode_entry(registry: TypeRegistry, data: Mapping[str, Any]) -> PendingEntry:
    value, _ = registry.decode(data["data"])
    request: PendingRequest[Any, Any] = PendingRequest(
        data["id"],
        data["executor_id"],
        value,
        registry.lookup(data["response_type"]),
        data["superstep"],
        tuple(data.get("path", ())),
    )
    return PendingEntry(request, _key(data["key"]), data.get("context"))


def _key(data: Any) -> tuple[int, int, int]:
    a, b, c = data
    return (int(a), int(b), int(c))


def _encode_finished(registry: TypeRegistry, ordinal: int, done: Finished) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    for ident, name, data in done.events:
        try:
            json.dumps(data, allow_nan=False)
            event: dict[str, Any] = {"name": name, "json": data}
        except (TypeError, ValueError):
            event = {"name": name, "data": registry.encode(data, None)}
        if ident != done.executor_id:  # a sub-workflow node's child event: "node/child"
            event["executor_id"] = ident
        events.append(event)
    item: dict[str, Any] = {
        "ordinal": ordinal,
        "executor_id": done.executor_id,
        "key": list(done.key),
        "sends": [
            {"message": registry.encode(m, declared), "target": target}
            for m, declared, target in done.sends
        ],
        "outputs": [registry.encode(v, None) for v in done.outputs],
        "requests": [
            encode_entry(registry, PendingEntry(request, (0, 0, 0), context))
            for request, context in done.requests
        ],
        "shared": dict(done.shared),
        "deleted": list(done.deleted),
        "events": events,
    }
    if done.state_set:
        item["state"] = registry.encode(done.state, type(done.state))
    if done.usage is not None:
        item["usage"] = encode_usage(done.usage)
    return item


def _decode_finished(registry: TypeRegistry, data: Mapping[str, Any]) -> tuple[int, Finished]:
    sends: list[tuple[Any, Any, str | None]] = []
    for send in data.get("sends", ()):
        message, declared = registry.decode(send["message"])
        sends.append((message, declared, send.get("target")))
    requests = tuple(
        (entry.request, entry.context)
        for entry in (_decode_entry(registry, r) for r in data.get("requests", ()))
    )
    executor_id = str(data["executor_id"])
    events = tuple(
        (
            str(e.get("executor_id", executor_id)),
            e["name"],
            e["json"] if "json" in e else registry.decode(e["data"])[0],
        )
        for e in data.get("events", ())
    )
    stored_state = data.get("state")
    done = Finished(
        executor_id,
        _key(data["key"]),
        tuple(sends),
        tuple(registry.decode(v)[0] for v in data.get("outputs", ())),
        requests,
        None if stored_state is None else registry.decode(stored_state)[0],
        stored_state is not None,
        dict(data.get("shared", {})),
        tuple(data.get("deleted", ())),
        events,
        decode_usage(data.get("usage")),
    )
    return int(data["ordinal"]), done


def encode_pending_write(registry: TypeRegistry, ordinal: int, done: Finished) -> str | None:
    """One finished invocation's effects as JSON text (``None`` when something in them
    has no stored type: that invocation simply runs again on resume)."""
    try:
        item = _encode_finished(registry, ordinal, done)
        return json.dumps(item, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (CheckpointError, TypeError, ValueError):  # the barrier names the executor
        return None


def decode_pending_write(registry: TypeRegistry, payload: str) -> tuple[int, Finished]:
    """What :func:`encode_pending_write` wrote (``CheckpointError`` when it cannot be
    read with this definition's types)."""
    try:
        return _decode_finished(registry, json.loads(payload))
    except CheckpointError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"a pending write is malformed: {exc!r}") from exc


def encode_state(registry: TypeRegistry, state: FrozenState) -> dict[str, Any]:
    return {
        "inbox": [encode_envelope(registry, env) for env in state.inbox],
        **encode_parts(registry, state, state.buffers),
    }


def encode_envelope(registry: TypeRegistry, env: Envelope) -> dict[str, Any]:
    """One inbox item of :func:`encode_state`'s document."""
    item: dict[str, Any] = {
        "target": env.target,
        "sources": list(env.sources),
        "key": list(env.key),
        "message": registry.encode(env.message, env.declared),
    }
    if env.request is not None:
        item["answers"] = encode_entry(registry, env.request)
    return item


def encode_parts(
    registry: TypeRegistry,
    state: FrozenState | RunState,
    buffers: Mapping[str, Sequence[Buffered]],
) -> dict[str, Any]:
    """The fields of :func:`encode_state`'s document after ``inbox``, of a frozen state
    or of a live one (whose ``buffers``, given apart, must hold no empty group: a
    frozen copy drops them)."""
    finished: list[dict[str, Any]] = []
    if state.finished:
        for ordinal, done in sorted(state.finished.items()):
            try:
                finished.append(_encode_finished(registry, ordinal, done))
            except CheckpointError:
                continue  # not storable: that invocation simply runs again on resume
    # each part built only when it holds something: most barriers keep nothing but the
    # inbox, and a comprehension over nothing still costs a call
    return {
        "finished": finished,
        "fan_in": {
            gid: [
                {
                    "source": b.source,
                    "key": list(b.key),
                    "message": registry.encode(b.message, b.declared),
                }
                for b in buffered
            ]
            for gid, buffered in buffers.items()
        }
        if buffers
        else {},
        "executor_state": {
            ident: registry.encode(value, type(value)) for ident, value in state.states.items()
        }
        if state.states
        else {},
        "shared": dict(state.shared),
        "requests": [encode_entry(registry, e) for e in state.pending.values()]
        if state.pending
        else [],
        "answered": list(state.answered),
        **({} if state.usage is None else {"usage": encode_usage(state.usage)}),
    }


def decode_state(
    registry: TypeRegistry, run_id: str, superstep: int, data: Mapping[str, Any]
) -> FrozenState:
    inbox: list[Envelope] = []
    for item in data.get("inbox", ()):
        message, declared = registry.decode(item["message"])
        answers = item.get("answers")
        inbox.append(
            Envelope(
                item["target"],
                _key(item["key"]),
                message,
                tuple(item.get("sources", ())),
                declared,
                None if answers is None else _decode_entry(registry, answers),
            )
        )
    buffers: dict[str, tuple[Buffered, ...]] = {}
    for gid, items in data.get("fan_in", {}).items():
        decoded: list[Buffered] = []
        for b in items:
            message, declared = registry.decode(b["message"])
            decoded.append(Buffered(b["source"], _key(b["key"]), message, declared))
        buffers[gid] = tuple(decoded)
    pending = {
        e.request.id: e for e in (_decode_entry(registry, d) for d in data.get("requests", ()))
    }
    return FrozenState(
        run_id,
        superstep,
        tuple(inbox),
        buffers,
        {ident: registry.decode(v)[0] for ident, v in data.get("executor_state", {}).items()},
        dict(data.get("shared", {})),
        pending,
        tuple(data.get("answered", ())),
        dict(_decode_finished(registry, d) for d in data.get("finished", ())),
        decode_usage(data.get("usage")),
    )


def encode_usage(usage: Usage) -> dict[str, int]:
    """Usage as a JSON object of its counted fields."""
    return {k: v for k, v in attrs.asdict(usage).items() if v is not None}


def decode_usage(data: Any) -> Usage | None:
    """The usage :func:`encode_usage` wrote (``None``: none recorded)."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise CheckpointError(f"a checkpoint's usage must be a JSON object, got {data!r}")
    fields = {f.name for f in attrs.fields(Usage)}
    counts = cast("Mapping[str, Any]", data)
    unknown = sorted(set(counts) - fields)
    if unknown or not all(isinstance(v, int) for v in counts.values()):
        raise CheckpointError(f"a checkpoint's usage has unknown or non-integer counts: {data!r}")
    return Usage(**counts)
