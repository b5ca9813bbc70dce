"""M15: a middleware without the ``call_next`` parameter."""

from agentcore import Agent, ChatContext, ToolLoop
from agentcore.testing import ScriptedChatClient


async def log_calls(context: ChatContext) -> None:
    print(context.messages)


class LogCalls:
    async def process(self, context: ChatContext) -> None:
        print(context.messages)


def mistake() -> object:
    # expect: mypy[list-item] pyright[reportArgumentType]
    return Agent(ScriptedChatClient([]), middleware=[log_calls])


def mistake_in_a_tool_loop() -> object:
    # expect: mypy[list-item] pyright[reportArgumentType]
    return ToolLoop(ScriptedChatClient([]), middleware=[LogCalls()])
