"""M12: one tool given as ``tools=``, not in a list."""

from agentcore import Agent, tool
from agentcore.testing import ScriptedChatClient


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def mistake() -> object:
    # expect: mypy[arg-type] pyright[reportArgumentType]
    return Agent(ScriptedChatClient([]), tools=get_weather)
