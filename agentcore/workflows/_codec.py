"""Reading and writing a run's state as JSON, with the definition's type registry.

Every type that can be stored (executors' input, send, yield, request, response and
state types) is collected at ``build()`` and given a *type key*
(``"module:QualName"``, generic aliases by their normalized form, or the name given
to ``builder.register_type``). Values are written by the kernel's converter as
``{"type": key, "value": ...}``. Reading finds classes only through the registry:
an unknown key is a :class:`CheckpointError`, never an import and never a raw dict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, cast, get_args, get_origin

from agentcore.serialization import structure, unstructure
from agentcore.workflows._requests import PendingRequest
from agentcore.workflows._state import Buffered, Envelope, FrozenState, PendingEntry
from agentcore.workflows._typeexpr import members, runtime_class
from agentcore.workflows.errors import CheckpointError, WorkflowBuildError

__all__ = ["FAN_IN_KEY", "TypeRegistry", "decode_state", "encode_state", "type_key"]

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
            for alias in (aliases or {}).get(tp, ()):
                self._by_key.setdefault(alias, tp)
            if isinstance(tp, type):
                self._classes.setdefault(tp, key)
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
            f"cannot store a {type(value).__qualname__}: the workflow does not know its type; "
            f"declare it on an executor or register it with builder.register_type(...)"
        )

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
        return {"type": key, "value": unstructure(value)}

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
        try:
            value = structure(data["value"], tp)
        except (ValueError, TypeError) as exc:
            raise CheckpointError(f"a stored {key} cannot be read: {exc}") from exc
        cls = runtime_class(tp)
        if cls is not None and cls is not Any and not isinstance(value, cls):
            raise CheckpointError(f"a stored {key} was read back as {type(value).__qualname__}")
        return value, tp


def _encode_entry(registry: TypeRegistry, entry: PendingEntry) -> dict[str, Any]:
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


def encode_state(registry: TypeRegistry, state: FrozenState) -> dict[str, Any]:
    inbox: list[dict[str, Any]] = []
    for env in state.inbox:
        item: dict[str, Any] = {
            "target": env.target,
            "sources": list(env.sources),
            "key": list(env.key),
            "message": registry.encode(env.message, env.declared),
        }
        if env.request is not None:
            item["answers"] = _encode_entry(registry, env.request)
        inbox.append(item)
    return {
        "inbox": inbox,
        "fan_in": {
            gid: [
                {
                    "source": b.source,
                    "key": list(b.key),
                    "message": registry.encode(b.message, b.declared),
                }
                for b in buffered
            ]
            for gid, buffered in state.buffers.items()
        },
        "executor_state": {
            ident: registry.encode(value, type(value)) for ident, value in state.states.items()
        },
        "shared": dict(state.shared),
        "requests": [_encode_entry(registry, e) for e in state.pending.values()],
        "answered": list(state.answered),
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
    )
