"""M33 and M48: ``run()`` given an OpenAI-style dict message, or an int."""

from agentcore import Agent
from agentcore.testing import ScriptedChatClient


def dict_message() -> object:
    agent = Agent(ScriptedChatClient(["hi"]))
    # expect: mypy[call-overload] pyright[reportArgumentType]
    return agent.run({"role": "user", "content": "hi"})


def list_of_dicts() -> object:
    agent = Agent(ScriptedChatClient(["hi"]))
    # expect: mypy[list-item] pyright[reportArgumentType]
    return agent.run([{"role": "user", "content": "hi"}])


def int_message() -> object:
    agent = Agent(ScriptedChatClient(["hi"]))
    # expect: mypy[call-overload] pyright[reportArgumentType]
    return agent.run(123)
