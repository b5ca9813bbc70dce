"""Handlers of one executor that could not be told apart, refused when it is read: two
for one type, two whose types overlap with neither narrower (some message would fit
both equally), and the same for response handlers' (request, response) pairs. What is
left for dispatch to decide (``_spec``) always has one most specific handler, but for
an empty container."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from agentcore.workflows._typeexpr import compatible, describe, overlaps
from agentcore.workflows.errors import WorkflowBuildError

__all__ = ["refuse_duplicates"]


class HandlerSpec(Protocol):
    """What is read of a message handler (``_spec.HandlerSpec``)."""

    @property
    def name(self) -> str: ...
    @property
    def inputs(self) -> tuple[Any, ...]: ...


class ResponseSpec(Protocol):
    """What is read of a response handler (``_spec.ResponseSpec``)."""

    @property
    def name(self) -> str: ...
    @property
    def request(self) -> Any: ...
    @property
    def response(self) -> Any: ...


def refuse_duplicates(
    owner: str, handlers: Sequence[HandlerSpec], responses: Sequence[ResponseSpec]
) -> None:
    problems: list[str] = []
    seen: dict[Any, str] = {}
    for h in handlers:
        for tp in h.inputs:
            if tp in seen:
                problems.append(
                    f"{owner} has two handlers for {describe(tp)}: {seen[tp]}, {h.name}; "
                    f"keep one (or merge them into one handler for a union)"
                )
            seen[tp] = h.name
    for i, h in enumerate(handlers):
        for other in handlers[i + 1 :]:
            problems.extend(
                f"{owner} has two handlers that would both take some "
                f"{describe(a)} / {describe(b)} value: {h.name}, {other.name}; neither type "
                f"is narrower than the other, so make them disjoint (or one narrower)"
                for a in h.inputs
                for b in other.inputs
                if a != b and overlaps(a, b) and not compatible(a, b) and not compatible(b, a)
            )
    pairs: dict[tuple[Any, Any], str] = {}
    for r in responses:
        pair = (r.request, r.response)
        if pair in pairs:
            problems.append(
                f"{owner} has two response handlers for ({describe(r.request)}, "
                f"{describe(r.response)}): {pairs[pair].rsplit('.', 1)[-1]}, "
                f"{r.name.rsplit('.', 1)[-1]}; keep one"
            )
        pairs[pair] = r.name
    for i, r in enumerate(responses):
        for o in responses[i + 1 :]:
            if (
                (r.request, r.response) != (o.request, o.response)
                and overlaps(r.request, o.request)
                and overlaps(r.response, o.response)
                and not _narrower(r, o)
                and not _narrower(o, r)
            ):
                problems.append(
                    f"{owner} has two response handlers that would both answer some "
                    f"requests: ({describe(r.request)}, {describe(r.response)}) and "
                    f"({describe(o.request)}, {describe(o.response)}) ({r.name}, {o.name}); "
                    f"neither pair is narrower, so make them disjoint (or one narrower)"
                )
    if problems:
        raise WorkflowBuildError(problems)


def _narrower(r: ResponseSpec, o: ResponseSpec) -> bool:
    return compatible(r.request, o.request) and compatible(r.response, o.response)
