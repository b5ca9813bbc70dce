"""A tool that asks the user something pauses the run; the answer resumes it.

``ToolContext.ask(prompt)`` raises until the session supplies an answer; the call
is then run again from the start with the answer, and calls of the same batch that
already finished keep their results.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import (
    Agent,
    AgentResponse,
    AgentSession,
    AgentTool,
    ChatResponse,
    InMemoryHistoryStore,
    Message,
    ToolContext,
    UserInputRequestContent,
    tool,
)
from agentcore.serialization import from_json, to_json
from agentcore.testing import ScriptedChatClient
from tests.loop.harness import assert_history_valid, calls, one_call, results, run_agent, text

pytestmark = pytest.mark.anyio
STREAM = pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])


class Bank:
    """Tools that record how often they ran."""

    def __init__(self) -> None:
        self.attempts = 0
        self.transfers: list[tuple[int, str]] = []
        self.balance_checks = 0

        @tool
        def transfer(amount: int, ctx: ToolContext) -> str:
            """Transfer money after a second factor."""
            self.attempts += 1
            code = ctx.ask("Enter the code sent to your phone")
            self.transfers.append((amount, code))
            return f"transferred {amount} with code {code}"

        @tool
        def balance() -> int:
            """The account balance."""
            self.balance_checks += 1
            return 100

        @tool
        def open_account(ctx: ToolContext) -> str:
            """Open an account: asks two questions, one at a time."""
            name = ctx.ask("Your name?")
            city = ctx.ask("Your city?")
            return f"account for {name} in {city}"

        self.tools: list[AgentTool] = [transfer, balance, open_account]


def agent_for(
    bank: Bank, script: list[ChatResponse[None] | str]
) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient(script)
    return Agent(client, tools=bank.tools, history=InMemoryHistoryStore()), client


def only_request(response: AgentResponse[Any]) -> UserInputRequestContent:
    [request] = response.user_input_requests
    return request


@STREAM
async def test_a_question_pauses_the_run_without_another_model_call(stream: bool) -> None:
    bank = Bank()
    agent, client = agent_for(bank, [one_call("transfer", '{"amount": 5}')])
    session = agent.create_session()

    paused, updates = await run_agent(agent, "send 5", stream=stream, session=session)

    request = only_request(paused)
    assert request.prompt == "Enter the code sent to your phone"
    assert request.function_call.name == "transfer"
    assert bank.transfers == []
    assert len(client.requests) == 1
    assert session.pending_requests == (request,)
    if stream:
        streamed = [
            c for u in updates for c in u.contents if isinstance(c, UserInputRequestContent)
        ]
        assert streamed == [request]


@STREAM
async def test_the_answer_reruns_the_call_and_the_run_goes_on(stream: bool) -> None:
    bank = Bank()
    agent, client = agent_for(bank, [one_call("transfer", '{"amount": 5}'), text("Done.")])
    session = agent.create_session()
    paused, _ = await run_agent(agent, "send 5", stream=stream, session=session)

    answer = only_request(paused).create_response("4711")
    done, _ = await run_agent(agent, Message("user", [answer]), stream=stream, session=session)

    assert bank.transfers == [(5, "4711")]
    assert bank.attempts == 2
    assert [r.result for r in results(done.messages)] == ["transferred 5 with code 4711"]
    assert done.text == "Done."
    assert session.pending_requests == ()
    assert_history_valid(client.requests)
    sent = [c for m in client.requests[-1].messages for c in m.contents]
    assert not any(isinstance(c, UserInputRequestContent) for c in sent)


@STREAM
async def test_finished_calls_of_the_batch_do_not_run_again(stream: bool) -> None:
    bank = Bank()
    batch = calls(("c1", "balance", "{}"), ("c2", "transfer", '{"amount": 7}'))
    agent, client = agent_for(bank, [batch, text("ok")])
    session = agent.create_session()
    paused, _ = await run_agent(agent, "go", stream=stream, session=session)
    assert bank.balance_checks == 1

    answer = only_request(paused).create_response("0000")
    done, _ = await run_agent(agent, Message("user", [answer]), stream=stream, session=session)

    assert bank.balance_checks == 1
    assert [r.call_id for r in results(done.messages)] == ["c1", "c2"]
    assert [r.result for r in results(done.messages)] == [100, "transferred 7 with code 0000"]
    assert_history_valid(client.requests)


@STREAM
async def test_a_second_question_pauses_again_and_keeps_the_first_answer(stream: bool) -> None:
    bank = Bank()
    agent, client = agent_for(bank, [one_call("open_account"), text("Opened.")])
    session = agent.create_session()

    first, _ = await run_agent(agent, "open", stream=stream, session=session)
    assert only_request(first).prompt == "Your name?"
    second, _ = await run_agent(
        agent,
        Message("user", [only_request(first).create_response("Ada")]),
        stream=stream,
        session=session,
    )
    assert only_request(second).prompt == "Your city?"
    done, _ = await run_agent(
        agent,
        Message("user", [only_request(second).create_response("Oslo")]),
        stream=stream,
        session=session,
    )

    assert [r.result for r in results(done.messages)] == ["account for Ada in Oslo"]
    assert done.text == "Opened."
    assert len(client.requests) == 2
    assert_history_valid(client.requests)


@STREAM
async def test_an_answer_to_another_request_does_nothing(stream: bool) -> None:
    bank = Bank()
    agent, client = agent_for(bank, [one_call("transfer", '{"amount": 5}')])
    session = agent.create_session()
    paused, _ = await run_agent(agent, "send 5", stream=stream, session=session)
    request = only_request(paused)
    forged = UserInputRequestContent(function_call=request.function_call, prompt=request.prompt)

    again, _ = await run_agent(
        agent, Message("user", [forged.create_response("9999")]), stream=stream, session=session
    )

    assert bank.transfers == []
    assert len(client.requests) == 1
    assert only_request(again) == request


@STREAM
async def test_moving_on_without_answering_closes_the_call_with_an_error(stream: bool) -> None:
    bank = Bank()
    agent, client = agent_for(
        bank, [one_call("transfer", '{"amount": 5}'), text("Sure, what else?")]
    )
    session = agent.create_session()
    await run_agent(agent, "send 5", stream=stream, session=session)

    done, _ = await run_agent(agent, "never mind", stream=stream, session=session)

    assert bank.transfers == []
    [result] = results(client.requests[-1].messages)
    assert result.error == "unanswered"
    assert "did not answer" in str(result.result)
    assert done.text == "Sure, what else?"
    assert_history_valid(client.requests)


@STREAM
async def test_a_paused_question_survives_saving_the_session(stream: bool) -> None:
    bank = Bank()
    agent, _ = agent_for(bank, [one_call("transfer", '{"amount": 3}'), text("Sent.")])
    session = agent.create_session()
    await run_agent(agent, "send 3", stream=stream, session=session)

    restored = from_json(to_json(session), AgentSession)
    [request] = restored.pending_requests
    assert isinstance(request, UserInputRequestContent)
    done, _ = await run_agent(
        agent, Message("user", [request.create_response("1212")]), stream=stream, session=restored
    )

    assert bank.transfers == [(3, "1212")]
    assert done.text == "Sent."
