# pyright: reportUnnecessaryTypeIgnoreComment=true
"""The user mistakes of ``design/user-mistakes.md`` that only a type checker can catch
well: each line that must be rejected carries ``# type: ignore[...]``, which mypy
(``warn_unused_ignores``) and basedpyright (``reportUnnecessaryTypeIgnoreComment``)
report as unused if the rejection ever stops. The functions are never called: the
checkers are the test. Run-time halves live in ``tests/user_mistakes``.

The rows about ``CallNext``, ``run(messages=...)``, ``middleware=`` and ``tools=`` (M12,
M14-M17, M33, M48) have their static checks in ``test_static_mistakes.py`` (the
snippets ``mistakes/m12_tools_not_a_list.py``, ``m14_sync_middleware.py``,
``m15_middleware_without_call_next.py``, ``m16_middleware_class.py``,
``m17_call_next_not_awaited.py`` and ``m33_m48_run_input.py``).
"""

from __future__ import annotations

from typing import Any

import anyio
import openai
from agentcore_anthropic import AnthropicChatClient
from agentcore_openai import OpenAIChatClient

from agentcore import Agent
from agentcore.testing import ScriptedChatClient


async def m01_forgotten_await(agent: Agent) -> None:
    response = agent.run("hi")
    print(response.text)  # type: ignore[attr-defined]  # M01: an Awaitable has no text


async def m02_async_for_without_stream(agent: Agent) -> None:
    async for _ in agent.run("hi"):  # type: ignore[attr-defined]  # M02: no __aiter__
        pass


async def m03_async_for_over_an_awaited_stream(agent: Agent) -> None:
    response = await agent.run("hi", stream=True)
    async for _ in response:  # type: ignore[attr-defined]  # M03: a response is no stream
        pass


def m04_a_sync_client(sync: openai.OpenAI) -> OpenAIChatClient:
    return OpenAIChatClient("gpt-4o", client=sync)  # type: ignore[arg-type]  # M04


async def m20_a_misspelled_option(agent: Agent) -> None:
    await agent.run("hi", options={"temprature": 0.2})  # type: ignore[call-overload]  # M20


def m31_a_hosted_tool_the_adapter_lacks(client: AnthropicChatClient) -> Any:
    return client.get_file_search_tool()  # type: ignore[attr-defined]  # M31


def m34_an_unknown_keyword() -> Agent:
    return Agent(ScriptedChatClient([]), system_prompt="Be brief.")  # type: ignore[call-arg]  # M34


async def _main() -> None:
    pass


def m45_anyio_run_given_a_coroutine() -> None:
    anyio.run(_main())  # type: ignore[arg-type]  # M45: pass the function, anyio.run(main)


def test_the_mistakes_above_are_only_checked_statically() -> None:
    # Nothing to run: importing the module proves it is valid Python, and the checkers
    # prove each marked line is rejected.
    assert callable(m01_forgotten_await)
