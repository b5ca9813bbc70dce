"""M16: a middleware class given instead of an instance of it."""

from agentcore import Agent, AgentContext, CallNext
from agentcore.testing import ScriptedChatClient


class LogRuns:
    async def process(self, context: AgentContext, call_next: CallNext) -> None:
        await call_next()


def mistake() -> object:
    # expect: mypy[list-item] pyright[reportArgumentType]
    return Agent(ScriptedChatClient([]), middleware=[LogRuns])


def mistake_in_a_run() -> object:
    agent = Agent(ScriptedChatClient(["hi"]))
    # expect: mypy[list-item] pyright[reportArgumentType]
    return agent.run("hi", middleware=[LogRuns])
