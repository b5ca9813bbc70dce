"""A served agent asks its MCP client's user (approvals, ``ToolContext.ask``) through
elicitation, on both protocol eras, over stdio and streamable HTTP on 127.0.0.1, with
the official ``mcp`` client: 2026-07-28 answers ``input_required`` and the client
retries with the answers; older versions get ``elicitation/create`` requests mid-call.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncGenerator, Iterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import pytest
from agentcore_mcp._asking import PausedRuns, ToolAnswers
from mcp import Client, StdioServerParameters, types
from mcp.client.context import ClientRequestContext

from agentcore import FunctionApprovalRequestContent, FunctionCallContent

from .conftest import HERE, SDK_SSE_GENERATOR_WARNING, free_port, start_http, stop

pytestmark = [pytest.mark.anyio, SDK_SSE_GENERATOR_WARNING]

SERVED = str(HERE / "asking_agents.py")
Era = Literal["2026-07-28", "legacy"]
ERAS: list[Era] = ["2026-07-28", "legacy"]
TRANSPORTS = ["stdio", "http"]


@pytest.fixture(scope="module")
def asking_url() -> Iterator[str]:
    port = free_port()
    process = start_http([sys.executable, SERVED, "http", str(port)], port)
    yield f"http://127.0.0.1:{port}/mcp"
    stop(process)


class User:
    """An elicitation callback standing in for the client's user: it answers each
    form by the rules set on it, and remembers what it was asked."""

    def __init__(self) -> None:
        self.approve = True
        self.code: str | None = "4711"
        self.asked: list[str] = []

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        assert isinstance(params, types.ElicitRequestFormParams)
        self.asked.append(params.message)
        if "answer" in params.requested_schema["properties"]:
            if self.code is None:
                return types.ElicitResult(action="decline")
            return types.ElicitResult(action="accept", content={"answer": self.code})
        if not self.approve:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"approve": True})


@asynccontextmanager
async def connect(transport: str, era: Era, url: str, user: User | None) -> AsyncGenerator[Client]:
    target: Any = url
    if transport == "stdio":
        target = StdioServerParameters(command=sys.executable, args=[SERVED, "stdio"])
    mode = "legacy" if era == "legacy" else era
    async with Client(target, mode=mode, elicitation_callback=user) as client:
        expected = "2026-07-28" if era == "2026-07-28" else "2025-11-25"
        assert client.protocol_version == expected
        yield client


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def deleted(client: Client) -> list[str]:
    listed: list[str] = json.loads(text(await client.call_tool("deleted", {})))
    return listed


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_agent_asks_the_user_and_does_what_they_say(
    transport: str, era: Era, asking_url: str
) -> None:
    user = User()
    async with connect(transport, era, asking_url, user) as client:
        before = await deleted(client)
        approved = await client.call_tool("janitor", {"task": "clean up"})
        user.approve = False
        declined = await client.call_tool("janitor", {"task": "clean up"})
        paid = await client.call_tool("banker", {"task": "pay Grace"})
        user.code = None
        unpaid = await client.call_tool("banker", {"task": "pay Grace"})
        after = await deleted(client)
        sent = json.loads(text(await client.call_tool("sent", {})))

    assert user.asked[:3] == [
        'The janitor agent wants to call delete with {"path": "/tmp/old"}. Approve?',
        'The janitor agent wants to call delete with {"path": "/tmp/old"}. Approve?',
        "The banker agent asks: Code for the transfer of 5 euros?",
    ]
    assert (approved.is_error, text(approved)) == (False, "deleted /tmp/old")
    # The declined call never ran; the model was told and answered.
    assert not declined.is_error
    assert "deleted" not in text(declined)
    assert text(declined) == "rejected"
    assert after == [*before, "/tmp/old"]
    assert (paid.is_error, text(paid)) == (False, "sent 5 euros with code 4711")
    # A question the user would not answer closes the call; the transfer never ran.
    assert "sent 5" not in text(unpaid)
    assert sent[-1] == "5 with 4711"
    assert sent.count("5 with 4711") == len(sent)


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_client_without_elicitation_gets_a_clear_refusal(
    transport: str, era: Era, asking_url: str
) -> None:
    async with connect(transport, era, asking_url, None) as client:
        before = await deleted(client)
        refused = await client.call_tool("janitor", {"task": "clean up"})
        asked = await client.call_tool("banker", {"task": "pay Grace"})
        direct = await client.call_tool("delete", {"path": "/tmp/direct"})
        after = await deleted(client)

    assert refused.is_error
    assert text(refused) == (
        "Error: the janitor agent needs the user's approval to call delete, and this MCP "
        "client cannot ask its user (it did not declare elicitation); nothing that needed "
        "it was run. Call it from a client that supports elicitation, or serve it without "
        "the approval or question"
    )
    assert asked.is_error
    assert "needs the user's answer to 'Code for the transfer of 5 euros?'" in text(asked)
    assert direct.is_error
    assert text(direct).startswith(
        "Error: delete needs the user's approval to run, and this MCP client cannot ask its "
        "user (it did not declare elicitation); nothing that needed it was run."
    )
    assert after == before


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_tool_served_on_its_own_asks_too(transport: str, era: Era, asking_url: str) -> None:
    user = User()
    async with connect(transport, era, asking_url, user) as client:
        before = await deleted(client)
        approved = await client.call_tool("delete", {"path": "/tmp/a"})
        user.approve = False
        declined = await client.call_tool("delete", {"path": "/tmp/b"})
        paid = await client.call_tool("transfer", {"amount": 7})
        user.code = None
        unpaid = await client.call_tool("transfer", {"amount": 8})
        after = await deleted(client)
        sent = json.loads(text(await client.call_tool("sent", {})))

    assert user.asked == [
        'Call delete with {"path": "/tmp/a"}. Approve?',
        'Call delete with {"path": "/tmp/b"}. Approve?',
        "Code for the transfer of 7 euros?",
        "Code for the transfer of 8 euros?",
    ]
    assert (approved.is_error, text(approved)) == (False, "deleted /tmp/a")
    assert declined.is_error
    assert text(declined) == "Error: the user did not approve this call; delete did not run"
    assert after == [*before, "/tmp/a"]
    assert (paid.is_error, text(paid)) == (False, "sent 7 euros with code 4711")
    assert unpaid.is_error
    assert text(unpaid) == (
        "Error: the user did not answer 'Code for the transfer of 8 euros?'; transfer stopped there"
    )
    assert "8 with 4711" not in sent


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_answer_is_bound_to_its_request_and_spent_once(
    transport: str, asking_url: str
) -> None:
    # The 2026-07-28 round trip driven by hand, as a client that keeps the state would.
    async with connect(transport, "2026-07-28", asking_url, User()) as client:
        session = client.session
        before = await deleted(client)
        task = {"task": "clean up"}
        first = await session.call_tool("janitor", task, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        assert first.input_requests is not None
        [(key, request)] = first.input_requests.items()
        assert isinstance(request, types.ElicitRequest)
        approve = types.ElicitResult(action="accept", content={"approve": True})
        yes: types.InputResponses = {key: approve}
        state = first.request_state

        elsewhere = await session.call_tool(
            "janitor", {"task": "other"}, input_responses=yes, request_state=state
        )
        again = await session.call_tool("janitor", task, allow_input_required=True)
        assert isinstance(again, types.InputRequiredResult)
        wrong_key: types.InputResponses = {"other": approve}
        unbound = await session.call_tool(
            "janitor", task, input_responses=wrong_key, request_state=again.request_state
        )
        third = await session.call_tool("janitor", task, allow_input_required=True)
        assert isinstance(third, types.InputRequiredResult)
        assert third.input_requests is not None
        [third_key] = third.input_requests
        answer: types.InputResponses = {third_key: approve}
        done = await session.call_tool(
            "janitor", task, input_responses=answer, request_state=third.request_state
        )
        replayed = await session.call_tool(
            "janitor", task, input_responses=answer, request_state=third.request_state
        )
        after = await deleted(client)

    # A state brought with other arguments is refused (and spent).
    assert elsewhere.is_error
    assert "already answered, have expired, or belong to another call" in text(elsewhere)
    # An answer under another key answers nothing: the call is not approved.
    assert not unbound.is_error
    assert text(unbound) == "rejected"
    assert (done.is_error, text(done)) == (False, "deleted /tmp/old")
    # The same answer brought again does not run the call again.
    assert replayed.is_error
    assert "already answered" in text(replayed)
    assert after == [*before, "/tmp/old"]


def test_a_paused_call_waits_its_time_and_the_oldest_gives_way() -> None:
    call = FunctionCallContent("c1", "delete", {"path": "/"})
    questions = [FunctionApprovalRequestContent(call)]
    arguments = {"path": "/"}
    waiting = PausedRuns(ttl=0.05, limit=2)
    late = waiting.keep("delete", arguments, ToolAnswers(approved=False), questions)
    time.sleep(0.06)
    assert waiting.take(late, "delete", arguments) is None  # expired

    crowd = PausedRuns(limit=2)
    oldest, middle, newest = (
        crowd.keep("delete", arguments, ToolAnswers(approved=False), questions) for _ in range(3)
    )
    assert crowd.take(oldest, "delete", arguments) is None  # gave way to the newest
    assert crowd.take(middle, "delete", arguments) is not None
    assert crowd.take(newest, "delete", arguments) is not None
    assert crowd.take(newest, "delete", arguments) is None  # spent
