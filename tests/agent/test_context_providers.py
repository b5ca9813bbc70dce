"""Context providers: ``before_run`` adds context for one run, ``after_run`` sees its result."""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentResponse,
    ContextProvider,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    tool,
)
from agentcore.testing import ScriptedChatClient

from ._runs import answer_turn, call_turn, run_agent

pytestmark = pytest.mark.anyio


@tool
def favourite_animal() -> str:
    """The user's favourite animal."""
    return "cats"


class Logged:
    """Logs its hooks under a name, into a shared list."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    async def before_run(self, context: AgentContext) -> None:
        self.log.append(f"before {self.name}")

    async def after_run(self, context: AgentContext) -> None:
        self.log.append(f"after {self.name}")


class Memory:
    """Adds what it remembers: an instruction, a message and a tool."""

    def __init__(self) -> None:
        self.results: list[object] = []

    async def before_run(self, context: AgentContext) -> None:
        context.instructions = f"{context.instructions}\n\nThe user is called Ada."
        context.messages.insert(0, Message("user", "Earlier, Ada said she likes animals."))
        context.tools.append(favourite_animal)

    async def after_run(self, context: AgentContext) -> None:
        self.results.append(context.result)


def test_a_provider_is_a_context_provider() -> None:
    assert isinstance(Memory(), ContextProvider)


async def test_before_run_instructions_are_sent_for_this_run(stream: bool) -> None:
    client = ScriptedChatClient(["hello Ada"])
    agent = Agent(client, "Be warm.", context_providers=[Memory()])

    await run_agent(agent, "hi", stream=stream)

    assert client.requests[0].options["instructions"] == "Be warm.\n\nThe user is called Ada."
    assert agent.instructions == "Be warm."


async def test_before_run_messages_are_sent_before_the_input(stream: bool) -> None:
    client = ScriptedChatClient(["hello Ada"])
    agent = Agent(client, context_providers=[Memory()])

    await run_agent(agent, "hi", stream=stream)

    assert client.requests[0].messages == (
        Message("user", "Earlier, Ada said she likes animals."),
        Message("user", "hi"),
    )


async def test_before_run_messages_are_context_not_history(stream: bool) -> None:
    store = InMemoryHistoryStore()
    client = ScriptedChatClient(["hello Ada", "fine"])
    agent = Agent(client, context_providers=[Memory()], history=store)
    session = agent.create_session()
    await run_agent(agent, "hi", stream=stream, session=session)

    await run_agent(agent, "how are you?", stream=stream, session=session)

    assert await store.load(session.session_id) == [
        Message("user", "hi"),
        Message("assistant", "hello Ada"),
        Message("user", "how are you?"),
        Message("assistant", "fine"),
    ]
    assert client.requests[1].messages == (
        Message("user", "hi"),
        Message("assistant", "hello Ada"),
        Message("user", "Earlier, Ada said she likes animals."),
        Message("user", "how are you?"),
    )


async def test_before_run_tools_are_declared_and_run_for_this_run(stream: bool) -> None:
    client = ScriptedChatClient([call_turn("favourite_animal", "{}"), answer_turn("Cats!")])
    agent = Agent(client, context_providers=[Memory()])

    outcome = await run_agent(agent, "what do I like?", stream=stream)

    assert [t.name for t in client.requests[0].options["tools"]] == ["favourite_animal"]
    assert outcome.response.messages[1].contents == (
        FunctionResultContent("call_1", result="cats"),
    )
    assert agent.tools == ()


async def test_after_run_sees_the_result(stream: bool) -> None:
    memory = Memory()
    agent = Agent(ScriptedChatClient(["hello Ada"]), context_providers=[memory])

    outcome = await run_agent(agent, "hi", stream=stream)

    [seen] = memory.results
    assert isinstance(seen, AgentResponse)
    assert seen.messages == outcome.response.messages


async def test_providers_run_in_order_before_and_in_reverse_after(stream: bool) -> None:
    log: list[str] = []
    providers = [Logged("first", log), Logged("second", log), Logged("third", log)]
    agent = Agent(ScriptedChatClient(["ok"]), context_providers=providers)

    await run_agent(agent, "hi", stream=stream)

    assert log == [
        "before first",
        "before second",
        "before third",
        "after third",
        "after second",
        "after first",
    ]


async def test_after_run_is_not_called_for_a_failed_run(stream: bool) -> None:
    log: list[str] = []
    agent = Agent(ScriptedChatClient([RuntimeError("down")]), context_providers=[Logged("p", log)])

    with pytest.raises(RuntimeError, match="down"):
        await run_agent(agent, "hi", stream=stream)

    assert log == ["before p"]
