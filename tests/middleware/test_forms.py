"""Middleware forms and how their scope is found (this module uses postponed annotations)."""

from __future__ import annotations

import inspect
from typing import Any, cast

import pytest

from agentcore import (
    Agent,
    AgentContext,
    ChatContext,
    FunctionInvocationContext,
    agent_middleware,
    chat_middleware,
    function_middleware,
    tool,
)
from agentcore.middleware import CallNext, Middleware, middleware_scope
from agentcore.testing import ScriptedChatClient

from .harness import Scope, one_call, run_agent, text

pytestmark = pytest.mark.anyio


@tool
def echo(word: str) -> str:
    """Say the word back."""
    return word


class AgentProcess:
    async def process(self, context: AgentContext, call_next: CallNext) -> None:
        await call_next()


class ChatProcess:
    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        await call_next()


class FunctionProcess:
    async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
        await call_next()


async def agent_function(context: AgentContext, call_next: CallNext) -> None:
    await call_next()


async def chat_function(context: ChatContext, call_next: CallNext) -> None:
    await call_next()


async def function_function(context: FunctionInvocationContext, call_next: CallNext) -> None:
    await call_next()


class AuditedChatContext(ChatContext):
    """A project's own subclass of a context type."""


async def audited(context: AuditedChatContext, call_next: CallNext) -> None:
    await call_next()


async def _unannotated(context, call_next):  # type: ignore[no-untyped-def]  # the point of the test
    await call_next()


unannotated = cast("object", _unannotated)


async def wrongly_annotated(context: dict[str, Any], call_next: CallNext) -> None:
    await call_next()


async def dangling_hint(context: NoSuchContext, call_next: CallNext) -> None:  # type: ignore[name-defined]  # noqa: F821  # the hint cannot be resolved on purpose
    await call_next()


class Unscoped:
    async def process(self, context: object, call_next: CallNext) -> None:
        await call_next()


class SyncProcess:
    def process(self, context: ChatContext, call_next: CallNext) -> None:
        pass


def sync_function(context: ChatContext, call_next: CallNext) -> None:
    pass


class CallableChat:
    async def __call__(self, context: ChatContext, call_next: CallNext) -> None:
        await call_next()


@pytest.mark.parametrize(
    ("middleware", "scope"),
    [
        (AgentProcess(), "agent"),
        (ChatProcess(), "chat"),
        (FunctionProcess(), "function"),
    ],
    ids=["agent", "chat", "function"],
)
def test_a_class_with_process_and_no_base_class_is_scoped_by_its_hint(
    middleware: object, scope: Scope
) -> None:
    assert type(middleware).__bases__ == (object,)
    assert middleware_scope(middleware) == scope


@pytest.mark.parametrize(
    ("middleware", "scope"),
    [(agent_function, "agent"), (chat_function, "chat"), (function_function, "function")],
    ids=["agent", "chat", "function"],
)
def test_a_plain_async_function_is_scoped_by_its_hint(middleware: object, scope: Scope) -> None:
    assert middleware_scope(middleware) == scope


def test_postponed_annotations_are_resolved_not_read_as_strings() -> None:
    annotation = inspect.signature(chat_function).parameters["context"].annotation
    assert annotation == "ChatContext"  # a string here, because of the __future__ import
    assert middleware_scope(chat_function) == "chat"


def test_a_subclass_of_a_context_type_names_the_scope_of_its_base() -> None:
    assert middleware_scope(audited) == "chat"


def test_an_object_with_an_async_call_method_is_scoped_by_its_hint() -> None:
    assert middleware_scope(CallableChat()) == "chat"


@pytest.mark.parametrize(
    ("decorator", "scope"),
    [(agent_middleware, "agent"), (chat_middleware, "chat"), (function_middleware, "function")],
    ids=["agent", "chat", "function"],
)
def test_a_decorator_scopes_a_function_whose_hint_names_no_context(
    decorator: Any, scope: Scope
) -> None:
    async def bare(context: Any, call_next: Any) -> None:
        await call_next()

    assert middleware_scope(decorator(bare)) == scope


@pytest.mark.parametrize(
    ("decorator", "scope"),
    [(agent_middleware, "agent"), (chat_middleware, "chat"), (function_middleware, "function")],
    ids=["agent", "chat", "function"],
)
def test_a_decorator_scopes_every_instance_of_a_class(decorator: Any, scope: Scope) -> None:
    class Bare:
        async def process(self, context: object, call_next: CallNext) -> None:
            await call_next()

    decorator(Bare)
    assert middleware_scope(Bare()) == scope
    assert middleware_scope(Bare()) == scope


def test_the_decorator_wins_over_the_type_hint() -> None:
    async def hinted(context: ChatContext, call_next: CallNext) -> None:
        await call_next()

    assert middleware_scope(function_middleware(hinted)) == "function"


@pytest.mark.parametrize("middleware", [unannotated, wrongly_annotated, Unscoped()])
def test_agent_construction_rejects_a_middleware_whose_scope_cannot_be_told(
    middleware: object,
) -> None:
    with pytest.raises(
        TypeError,
        match=r"cannot tell the scope of middleware .*(unannotated|wrongly_annotated|Unscoped)",
    ):
        Agent(ScriptedChatClient([]), middleware=[middleware])  # type: ignore[list-item]  # the mistake under test


def test_an_unresolvable_hint_is_reported_with_the_reason() -> None:
    with pytest.raises(TypeError, match=r"dangling_hint.*NoSuchContext"):
        Agent(ScriptedChatClient([]), middleware=[cast("Middleware", dangling_hint)])


@pytest.mark.parametrize("stream", [False, True])
def test_run_rejects_a_middleware_whose_scope_cannot_be_told(stream: bool) -> None:
    client = ScriptedChatClient([text("never")])
    agent = Agent(client)
    if stream:
        with pytest.raises(TypeError, match="_unannotated"):
            agent.run("hi", stream=True, middleware=[unannotated])  # type: ignore[list-item]  # the mistake under test
    else:
        with pytest.raises(TypeError, match="_unannotated"):
            agent.run("hi", middleware=[unannotated])  # type: ignore[list-item]  # the mistake under test
    assert client.requests == []


@pytest.mark.parametrize(
    ("middleware", "message"),
    [
        (42, "42 is not a middleware"),
        ("chat", "'chat' is not a middleware"),
        (sync_function, "sync_function .* is not a middleware"),
        (SyncProcess(), "process method of .*SyncProcess.* must be `async def"),
        (ChatProcess, "ChatProcess is a class; pass an instance"),
    ],
    ids=["int", "str", "sync-function", "sync-process", "class-not-instance"],
)
def test_a_non_middleware_is_rejected_with_a_type_error(middleware: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Agent(ScriptedChatClient([]), middleware=[middleware])  # type: ignore[list-item]  # the mistake under test


def test_decorating_a_non_middleware_raises_at_once() -> None:
    with pytest.raises(TypeError, match="is not a middleware"):
        chat_middleware(sync_function)


@pytest.mark.parametrize("stream", [False, True])
async def test_every_form_runs_in_its_scope(stream: bool) -> None:
    log: list[str] = []

    class Tracing:
        def __init__(self, name: str) -> None:
            self.name = name

        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            log.append(f"{self.name}: {type(context).__name__}")
            await call_next()

    async def traced(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append(f"function: {type(context).__name__}")
        await call_next()

    @agent_middleware
    async def decorated(context: Any, call_next: Any) -> None:
        log.append(f"decorated: {type(context).__name__}")
        await call_next()

    client = ScriptedChatClient([one_call("echo", '{"word": "hi"}'), text("hi")])
    agent = Agent(client, tools=[echo], middleware=[Tracing("class"), traced, decorated])
    response, _ = await run_agent(agent, "echo hi", stream=stream)

    assert response.text == "hi"
    assert log == [
        "decorated: AgentContext",
        "class: ChatContext",
        "function: FunctionInvocationContext",
        "class: ChatContext",
    ]
