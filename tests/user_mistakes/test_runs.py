"""Mistakes in running an agent: input, options, streams, structured output, sessions,
resumes, history, run-local values and serialization (M02-M06, M20, M24, M25, M33,
M36-M40, M43, M44, M48, M50, M55, M56, M58, M59)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentSession,
    ChatResponse,
    FunctionCallContent,
    InMemoryHistoryStore,
    Message,
    SqliteHistoryStore,
    StreamConsumedError,
    tool,
)
from agentcore.errors import RunStateError, StructuredOutputError
from agentcore.middleware import CallNext
from agentcore.serialization import SerializationError, from_json, to_json
from agentcore.testing import ScriptedChatClient, ScriptExhaustedError
from tests.middleware.harness import one_call, run_agent, text

pytestmark = pytest.mark.anyio


@attrs.frozen
class Plan:
    days: int


def _agent(*script: Any, **kwargs: Any) -> Agent:
    return Agent(ScriptedChatClient(list(script)), **kwargs)


async def test_m02_async_for_over_a_run_without_stream_true() -> None:
    # Python's own TypeError ("requires an object with __aiter__ method, got
    # coroutine"): a plain run is a coroutine, so agentcore cannot add a message
    # here. Both checkers flag it: tests/typing/test_user_mistakes_typing.py.
    agent = _agent(text("hi"))
    run: Any = agent.run("hi")
    with pytest.raises(TypeError, match="__aiter__"):
        async for _ in run:
            pass
    await run  # the run itself is fine once awaited


async def test_m03_async_for_over_an_awaited_stream_says_to_pass_stream_true() -> None:
    agent = _agent(text("hi"))
    response: Any = await agent.run("hi", stream=True)  # awaiting drains the stream

    with pytest.raises(
        TypeError,
        match=r"an AgentResponse is a whole answer, not a stream.*pass stream=True and "
        r"iterate the run without awaiting it",
    ):
        async for _ in response:
            pass


def test_m05_a_raw_sdk_client_names_the_adapter_to_wrap_it_in() -> None:
    import openai

    raw: Any = openai.AsyncOpenAI(api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(
        TypeError,
        match=r"Agent needs a chat client .*the openai SDK's own client; wrap it in an "
        r"adapter: agentcore_openai.OpenAIChatClient\(model, client=\.\.\.\)",
    ):
        Agent(raw)


def test_m06_a_model_string_says_to_pass_an_adapter() -> None:
    name: Any = "openai:gpt-4o"
    with pytest.raises(
        TypeError,
        match=r"got 'openai:gpt-4o': a model name is not enough; pass an adapter built "
        r"with it, for example OpenAIChatClient\('gpt-4o'\)",
    ):
        Agent(name)


async def test_m20_a_misspelled_option_warns_naming_the_nearest_key(stream: bool) -> None:
    client = ScriptedChatClient([text("ok")])
    options: Any = {"temprature": 0.2}

    with pytest.warns(
        UserWarning,
        match=r"ScriptedChatClient does not know the option 'temprature' \(did you mean "
        r"'temperature'\?\): its options are the keys of ChatOptions \(or pass "
        r"options_type= to accept others\)",
    ):
        await run_agent(Agent(client), stream=stream, options=options)
    assert client.requests[0].options == {"temprature": 0.2}  # recorded as given


async def test_m20_a_test_double_accepts_an_adapters_keys_when_told(stream: bool) -> None:
    from agentcore_openai import OpenAIChatOptions

    client = ScriptedChatClient([text("ok")], options_type=OpenAIChatOptions)
    options: Any = {"reasoning_effort": "low"}

    await run_agent(Agent(client), stream=stream, options=options)

    assert client.requests[0].options["reasoning_effort"] == "low"


async def test_m24_a_session_of_another_agent_with_another_store_is_refused(
    stream: bool,
) -> None:
    first = _agent(text("hello"), name="A", history=InMemoryHistoryStore())
    second = _agent(text("never"), name="B", history=InMemoryHistoryStore())
    session = first.create_session()
    await run_agent(first, stream=stream, session=session)

    with pytest.raises(
        RunStateError,
        match=r"this session's history is in the InMemoryHistoryStore of agent 'A', but "
        r"agent 'B' keeps history in InMemoryHistoryStore, so it would not see the "
        r"conversation; start a session of this agent \(agent.create_session\(\)\), or give "
        r"both agents the same history store",
    ):
        await run_agent(second, stream=stream, session=session)


async def test_m24_agents_sharing_one_store_share_the_session(stream: bool) -> None:
    store = InMemoryHistoryStore()
    first = _agent(text("hello"), name="A", history=store)
    second = _agent(text("again"), name="B", history=store)
    session = first.create_session()
    await run_agent(first, stream=stream, session=session)

    response, _ = await run_agent(second, "and?", stream=stream, session=session)

    assert response.text == "again"
    assert len(await store.load(session.session_id)) == 4


async def test_m25_a_resume_on_an_agent_without_the_paused_tool_is_refused(
    stream: bool,
) -> None:
    paid: list[int] = []

    @tool(approval_mode="always_require")
    def pay(amount: int) -> str:
        """Pay."""
        paid.append(amount)
        return "paid"

    store = InMemoryHistoryStore()
    first = _agent(one_call("pay", '{"amount": 5}'), tools=[pay], history=store)
    second = _agent(text("never"), history=store)
    session = first.create_session()
    await run_agent(first, stream=stream, session=session)
    paused = session.paused
    approval = Message("user", [r.create_response(True) for r in session.approval_requests])

    with pytest.raises(
        RunStateError,
        match=r"the session's paused run waits to run tool 'pay' \(call 'c1'\), but this run "
        r"has no tool of that name \(its tools: none\); resume it on the agent that paused "
        r"it, or give this agent the 'pay' tool",
    ):
        await run_agent(second, approval, stream=stream, session=session)

    assert session.paused == paused  # unchanged: the approval can still be given
    assert paid == []
    response, _ = await run_agent(
        _agent(text("done"), tools=[pay], history=store), approval, stream=stream, session=session
    )
    assert paid == [5]
    assert response.text == "done"


def test_m33_an_openai_style_dict_message_is_refused() -> None:
    agent = _agent(text("never"))
    # Through Any: both checkers reject it (tests/typing/test_static_mistakes.py).
    message: Any = {"role": "user", "content": "hi"}
    with pytest.raises(TypeError, match=r"run\(\) takes a str, a Message, .*got dict"):
        agent.run(message)


async def test_m36_prose_instead_of_json_keeps_the_raw_text(stream: bool) -> None:
    agent = _agent(text("Three days."))
    with pytest.raises(
        StructuredOutputError, match=r"the model's answer is not valid JSON"
    ) as caught:
        await run_agent(agent, stream=stream, options={"response_format": Plan})
    assert caught.value.raw_text == "Three days."


async def test_m37_a_return_directly_tools_text_is_named_as_the_source(stream: bool) -> None:
    @tool(return_directly=True)
    def lookup() -> str:
        """Look up."""
        return "not json"

    agent = _agent(one_call("lookup"), tools=[lookup])

    with pytest.raises(
        StructuredOutputError,
        match=r"the answer came from the return_directly tool 'lookup', not from the model, "
        r"and it is not valid JSON.*make the tool return JSON that fits the "
        r"response_format, or drop return_directly",
    ) as caught:
        await run_agent(agent, stream=stream, options={"response_format": Plan})
    assert caught.value.raw_text == "not json"


async def test_m37b_response_format_with_a_required_tool_choice_has_no_value(
    stream: bool,
) -> None:
    # The run ends after the forced tool calls, before the model answers. The mistake is
    # caught statically: value is typed Plan | None (tests/typing/test_agent_typing.py,
    # test_a_run_that_ends_on_tool_calls_has_no_value_and_its_type_says_so).
    @tool
    def look() -> str:
        """Look."""
        return "x"

    client = ScriptedChatClient([one_call("look"), text('{"days": 3}')])
    response, _ = await run_agent(
        Agent(client, tools=[look]),
        stream=stream,
        options={"response_format": Plan, "tool_choice": "required"},
    )

    assert response.value is None
    assert response.finish_reason == "tool_calls"
    assert len(client.requests) == 1


async def test_m38_a_script_too_short_says_how_many_entries_it_has(stream: bool) -> None:
    agent = _agent(text("one"))
    await run_agent(agent, stream=stream)

    with pytest.raises(
        ScriptExhaustedError,
        match=r"ScriptedChatClient was called 2 times but its script has 1 entries",
    ):
        await run_agent(agent, stream=stream)


async def test_m39_decisions_with_nothing_paused_say_to_pass_the_session(stream: bool) -> None:
    request = FunctionCallContent("c1", "pay", "{}")
    from agentcore import FunctionApprovalRequestContent

    answer = FunctionApprovalRequestContent(request).create_response(True)
    agent = _agent(text("never"))

    with pytest.raises(
        RunStateError,
        match=r"no run is waiting for approval or input in this session; pass the session "
        r"of the paused run \(session=\.\.\.\)",
    ):
        await run_agent(agent, Message("user", [answer]), stream=stream, session=AgentSession())


async def test_m40_two_tasks_reading_one_stream_at_once_are_refused() -> None:
    release = anyio.Event()

    async def slow(context: AgentContext, call_next: CallNext) -> None:
        await release.wait()
        await call_next()

    agent = _agent(text("hello there"), middleware=[slow])
    stream = agent.run("hi", stream=True)
    errors: list[BaseException] = []

    async def read() -> None:
        try:
            async for _ in stream:
                pass
        except StreamConsumedError as exc:
            errors.append(exc)
            release.set()

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(read)
    assert len(errors) == 1
    assert "another task is reading this stream right now; streams have one consumer" in str(
        errors[0]
    )


def test_m43_a_sqlite_store_in_a_missing_directory_names_it_at_construction(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "nonexistent" / "dir"
    with pytest.raises(
        FileNotFoundError,
        match=rf"SqliteHistoryStore\(.*h.db'\): the directory '{missing}' does not exist; "
        r"create it first",
    ):
        SqliteHistoryStore(missing / "h.db")


async def test_m44_a_non_json_run_local_value_is_refused_at_set(stream: bool) -> None:
    async def remember(context: AgentContext, call_next: CallNext) -> None:
        context.run.locals["user"] = object()
        await call_next()

    agent = _agent(text("never"), middleware=[remember])
    with pytest.raises(
        TypeError, match=r"run-local value 'user' must be JSON-serializable so a paused run"
    ):
        await run_agent(agent, stream=stream)


def test_m48_a_number_as_input_is_refused() -> None:
    agent = _agent(text("never"))
    number: Any = 123
    with pytest.raises(TypeError, match=r"run\(\) takes a str, a Message, .*got int"):
        agent.run(number)


def test_m50_retry_with_zero_attempts_is_refused() -> None:
    from agentcore_contrib import Retry

    with pytest.raises(ValueError, match=r"max_attempts must be an int >= 1, got 0"):
        Retry(max_attempts=0)


def test_m55_an_unknown_role_lists_the_roles() -> None:
    role: Any = "human"
    with pytest.raises(
        ValueError,
        match=r"Message role must be one of \['assistant', 'system', 'tool', 'user'\], got 'human'",
    ):
        Message(role, "hi")


def test_m56_a_script_entry_of_the_wrong_type_is_refused_with_its_index() -> None:
    entry: Any = {"role": "assistant", "content": "hi"}
    with pytest.raises(
        TypeError,
        match=r"script entry 1 of a ScriptedChatClient is a dict; an entry is a str \(the "
        r"answer's text\), a ChatResponse, an exception to raise, or a list of "
        r"ChatResponseUpdate",
    ):
        ScriptedChatClient(["fine", entry])


def test_m56_a_list_entry_holding_something_else_names_the_position() -> None:
    entry: Any = [ChatResponse()]
    with pytest.raises(
        TypeError, match=r"script entry 0 .* list holding a ChatResponse at position 0"
    ):
        ScriptedChatClient([entry])


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ('{"days": "3"}', r"\$\.days: expected int, got '3'"),
        ('{"days": 3, "budget": 1}', r"\$: unexpected field 'budget'"),
        ("{}", r"\$\.days: missing required field"),
    ],
    ids=["wrong type", "extra key", "missing key"],
)
async def test_m58_structured_output_that_does_not_fit_says_where(
    stream: bool, answer: str, problem: str
) -> None:
    agent = _agent(text(answer))
    with pytest.raises(StructuredOutputError, match=rf"does not fit Plan: .*{problem}"):
        await run_agent(agent, stream=stream, options={"response_format": Plan})


def test_m59_from_json_with_the_wrong_class_or_garbage() -> None:
    saved = to_json(AgentSession())
    with pytest.raises(
        SerializationError, match=r"the envelope holds a 'AgentSession', not a 'Plan'"
    ):
        from_json(saved, Plan)
    with pytest.raises(
        SerializationError, match=r"not an agentcore envelope: 'schema_version' is missing"
    ):
        from_json('{"a": 1}', AgentSession)


async def test_m60_an_image_counts_a_fixed_amount_not_one_token_per_byte(stream: bool) -> None:
    from agentcore_contrib.guardrails import ChatGuardrails, MaxInputTokens

    from agentcore import DataContent, TextContent
    from agentcore.tokens import IMAGE_TOKENS, estimate_tokens

    image = DataContent(b"\x89PNG" + bytes(100_000), "image/png")  # a 100 KB image
    question = Message("user", [TextContent("What is in this picture?"), image])
    client = ScriptedChatClient([text("a cat")])
    guardrails = ChatGuardrails(input=[MaxInputTokens(8_000)])  # as in the guardrails doc

    response, _ = await run_agent(Agent(client, middleware=[guardrails]), question, stream=stream)

    assert response.text == "a cat"  # not blocked as "100029 tokens"
    assert IMAGE_TOKENS <= estimate_tokens([question]) < IMAGE_TOKENS + 50
