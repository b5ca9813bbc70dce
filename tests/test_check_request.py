"""check_request finds what a provider would refuse; ValidatingChatClient fails on it."""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import (
    Agent,
    ChatResponse,
    DataContent,
    FunctionApprovalRequestContent,
    FunctionCallContent,
    FunctionResultContent,
    HostedToolCallContent,
    Message,
    ReasoningContent,
    TextContent,
    UserInputResponseContent,
    tool,
)
from agentcore.testing import (
    ChatRequest,
    RequestValidationError,
    ScriptedChatClient,
    ValidatingChatClient,
    check_request,
)

pytestmark = pytest.mark.anyio


def _call(call_id: str, name: str = "lookup") -> FunctionCallContent:
    return FunctionCallContent(call_id=call_id, name=name, arguments="{}")


def _result(call_id: str) -> FunctionResultContent:
    return FunctionResultContent(call_id=call_id, result="ok")


USER = Message("user", "hi")
STEP = [Message("assistant", [_call("c1"), _call("c2")]), Message("tool", [_result("c1")])]


def test_a_valid_conversation_has_no_problems_in_any_dialect() -> None:
    messages = [
        Message("system", "be brief"),
        USER,
        Message("assistant", [ReasoningContent("think"), _call("c1")]),
        Message("tool", [_result("c1")]),
        Message("assistant", "done"),
        Message("user", "thanks"),
    ]
    for dialect in ("openai-chat", "openai-responses", "anthropic", "all"):
        assert check_request(messages, dialect=dialect) == []


def test_c1_call_without_result() -> None:
    problems = check_request([USER, *STEP])

    assert problems == [
        "call 'c2' (lookup) of message 1 has no result in the tool messages right after it"
    ]


def test_c1_result_after_another_message_is_an_orphan() -> None:
    messages = [
        USER,
        Message("assistant", [_call("c1")]),
        Message("user", "wait"),
        Message("tool", [_result("c1")]),
    ]

    problems = check_request(messages)

    assert any("call 'c1' (lookup) of message 1 has no result" in p for p in problems)
    assert any("message 3 (tool) answers call 'c1', which is not a call" in p for p in problems)


def test_c1_result_for_a_call_of_another_message() -> None:
    messages = [
        USER,
        Message("assistant", [_call("c1")]),
        Message("tool", [_result("c1"), _result("c9")]),
    ]

    assert check_request(messages) == [
        "message 2 (tool) answers call 'c9', which is not a call of message 1"
    ]


def test_c1_result_twice() -> None:
    messages = [
        USER,
        Message("assistant", [_call("c1")]),
        Message("tool", [_result("c1")]),
        Message("tool", [_result("c1")]),
    ]

    assert check_request(messages) == ["message 3 (tool) answers call 'c1' a second time"]


def test_c1_calls_and_results_in_the_wrong_role() -> None:
    messages = [Message("user", [TextContent("x"), _call("c1")]), Message("user", [_result("c1")])]

    problems = check_request(messages, dialect="openai-chat")

    assert "message 0 (user) holds function call 'c1': only assistant messages carry calls" in (
        problems
    )
    assert "message 1 (user) holds the result of call 'c1': only tool messages carry results" in (
        problems
    )


def test_c2_reasoning_must_come_back_as_produced() -> None:
    produced = [Message("assistant", [ReasoningContent("r", id="rs_1"), _call("c1")])]
    edited = Message("assistant", [ReasoningContent("r (edited)", id="rs_1"), _call("c1")])
    hosted = Message("assistant", [HostedToolCallContent("h1", "web_search"), TextContent("x")])
    messages = [USER, edited, Message("tool", [_result("c1")]), hosted, Message("user", "go")]

    problems = check_request(messages, produced=[m.contents for m in produced])

    assert problems == [
        "message 1 holds reasoning or hosted tool contents but is not an assistant message "
        "the model produced, unchanged",
        "message 3 holds reasoning or hosted tool contents but is not an assistant message "
        "the model produced, unchanged",
    ]
    assert (
        check_request(
            [USER, *produced, Message("tool", [_result("c1")])],
            produced=[m.contents for m in produced],
        )
        == []
    )


def test_c3_first_message_must_be_user_for_anthropic_only() -> None:
    messages = [Message("system", "s"), Message("assistant", "earlier"), USER]

    assert check_request(messages, dialect="openai-chat") == []
    assert check_request(messages, dialect="openai-responses") == []
    assert check_request(messages, dialect="anthropic") == [
        "message 1, the first after the system messages, is assistant-role; Anthropic needs "
        "a user message first"
    ]


def test_c3_empty_messages() -> None:
    messages = [USER, Message("assistant", [TextContent("")]), Message("user", [])]

    assert check_request(messages, dialect="openai-chat") == [
        "message 1 (assistant) is empty",
        "message 2 (user) is empty",
    ]


def test_c4_call_ids_unique() -> None:
    messages = [
        USER,
        Message("assistant", [_call("c1")]),
        Message("tool", [_result("c1")]),
        Message("assistant", [_call("c1")]),
        Message("tool", [_result("c1")]),
    ]

    assert check_request(messages) == [
        "call id 'c1' is used again in message 3 (first in message 1); call ids must be unique "
        "in a request"
    ]


def test_c5_bookkeeping_contents_are_never_sent() -> None:
    call = _call("c1")
    request = FunctionApprovalRequestContent(function_call=call, id="apr_1")
    messages = [
        USER,
        Message("assistant", [request]),
        Message("user", [UserInputResponseContent(id="x", function_call=call, text="yes")]),
    ]

    assert check_request(messages, dialect="openai-chat") == [
        "message 1 (assistant) holds a FunctionApprovalRequestContent, which is never sent "
        "to a provider",
        "message 2 (user) holds a UserInputResponseContent, which is never sent to a provider",
    ]


def test_responses_reasoning_needs_its_following_item() -> None:
    messages = [USER, Message("assistant", [ReasoningContent("r", id="rs_1")]), USER]

    assert check_request(messages, dialect="openai-chat") == []
    assert check_request(messages, dialect="openai-responses") == [
        "message 1 holds only reasoning and no assistant message follows it; OpenAI Responses "
        "refuses a reasoning item without its following item"
    ]
    followed = [USER, messages[1], Message("assistant", "answer")]
    assert check_request(followed, dialect="openai-responses") == []


def test_anthropic_thinking_opens_its_message() -> None:
    messages = [USER, Message("assistant", [TextContent("a"), ReasoningContent("r")])]

    assert check_request(messages, dialect="openai-chat") == []
    assert check_request(messages, dialect="anthropic") == [
        "message 1 has reasoning after other contents; Anthropic needs thinking blocks first "
        "in their assistant turn"
    ]


def test_reasoning_outside_assistant_messages() -> None:
    assert check_request([Message("user", [TextContent("q"), ReasoningContent("r")])]) == [
        "message 0 (user) holds reasoning, which only assistant messages carry"
    ]


def test_team_invariants_with_agent() -> None:
    messages = [
        USER,
        Message("assistant", [ReasoningContent("r"), _call("c1")], author_name="other"),
        Message("tool", [_result("c1")]),
        Message("assistant", [DataContent(b"x", "image/png"), TextContent("img")]),
        Message("assistant", "mine", message_id="m1"),
        Message("user", "go", message_id="m1"),
    ]
    problems = check_request(messages, options={"conversation_id": "conv"}, agent="me")

    assert problems == [
        "message 1 holds a function call of 'other'; 'me' may see calls of its own turns only (I1)",
        "message 1 holds reasoning produced by 'other', not by 'me' (I2)",
        "message 3 (assistant) holds media; media goes in user messages or tool results (I3)",
        "the request sets the conversation_id option (I5)",
        "message 5 repeats message id 'm1' (I6)",
    ]
    assert check_request(messages[:5], agent="me")[-1] == (
        "the last message is assistant-role; a member's request ends with a user message (I4)"
    )
    assert all("(I" not in p for p in check_request(messages))


def test_a_recorded_request_is_checked_with_its_options() -> None:
    request = ChatRequest((USER,), {"conversation_id": "c"}, False)

    assert check_request(request, agent="me") == [
        "the request sets the conversation_id option (I5)"
    ]


def test_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="dialect must be one of"):
        check_request([USER], dialect="gemini")  # type: ignore[arg-type]  # the mistake
    with pytest.raises(ValueError, match="dialect must be one of"):
        ValidatingChatClient(ScriptedChatClient([]), dialect="gemini")  # type: ignore[arg-type]  # the mistake
    with pytest.raises(TypeError, match="wraps a chat client"):
        ValidatingChatClient(object())


@pytest.mark.parametrize("stream", [False, True])
async def test_validating_client_refuses_an_invalid_request(stream: bool) -> None:
    inner = ScriptedChatClient(["never"])
    client = ValidatingChatClient(inner)

    async def send() -> None:
        if stream:
            client.get_response([USER, *STEP], stream=True)
        else:
            await client.get_response([USER, *STEP])

    with pytest.raises(RequestValidationError) as caught:
        await send()

    assert caught.value.problems == (
        "call 'c2' (lookup) of message 1 has no result in the tool messages right after it",
    )
    assert "request 0 would be refused by the provider" in str(caught.value)
    assert inner.requests == []
    assert len(client.requests) == 1


@pytest.mark.parametrize("stream", [False, True])
async def test_validating_client_passes_a_tool_loop_with_reasoning(stream: bool) -> None:
    @tool
    def lookup(q: str) -> str:
        """Look it up."""
        return q.upper()

    calling = ChatResponse[Any](
        messages=[
            Message(
                "assistant",
                [
                    ReasoningContent("need a lookup", id="rs_1", protected_data="sig"),
                    FunctionCallContent(call_id="c1", name="lookup", arguments='{"q": "x"}'),
                ],
            )
        ]
    )
    client = ValidatingChatClient(ScriptedChatClient([calling, "X it is"]))
    agent = Agent(client, tools=[lookup])

    if stream:
        response = await agent.run("look up x", stream=True)
    else:
        response = await agent.run("look up x")

    assert response.text == "X it is"
    assert len(client.requests) == 2
    # the reasoning message went back unchanged, so C2 held on the second request
    assert check_request(client.requests[1], produced=[calling.messages[0].contents]) == []


async def test_validating_client_catches_reasoning_it_never_produced() -> None:
    forged = Message("assistant", [ReasoningContent("forged", id="rs_9"), TextContent("a")])
    client = ValidatingChatClient(ScriptedChatClient(["b"]))

    with pytest.raises(RequestValidationError, match="is not an assistant message the model"):
        await client.get_response([USER, forged, Message("user", "next")])

    seeded = ValidatingChatClient(ScriptedChatClient(["b"]), seed=[forged])
    answer = await seeded.get_response([USER, forged, Message("user", "next")])
    assert answer.text == "b"
