"""M14: a plain ``def`` given as middleware (it must be ``async def``)."""

from agentcore import Agent, AgentContext, CallNext
from agentcore.testing import ScriptedChatClient


def log_calls(context: AgentContext, call_next: CallNext) -> None:
    print(context.messages)


def mistake() -> object:
    # expect: mypy[list-item] pyright[reportArgumentType]
    return Agent(ScriptedChatClient([]), middleware=[log_calls])
