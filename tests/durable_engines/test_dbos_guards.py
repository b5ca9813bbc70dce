"""agentcore_dbos refuses to run a durable agent where it could not be durable:
outside a DBOS workflow, and on trio."""

from __future__ import annotations

import pytest
from agentcore_dbos import DBOSEngine, dbos_agent, dbos_config, pending_requests

from agentcore import Agent
from agentcore.durable import DurableEngine, DurableExecutionError, StepPolicy
from agentcore.testing import ScriptedChatClient

pytestmark = [pytest.mark.durable_engines, pytest.mark.anyio]


def agent() -> Agent:
    return dbos_agent(Agent(ScriptedChatClient(["hi"]), name="cafe"))


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_durable_run_outside_a_workflow_raises(anyio_backend: str) -> None:
    with pytest.raises(DurableExecutionError, match=r"inside a @DBOS\.workflow function"):
        await agent().run("hello")


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_a_durable_run_on_trio_raises_a_clear_error(anyio_backend: str) -> None:
    with pytest.raises(DurableExecutionError, match="durable runs need asyncio"):
        await agent().run("hello")
    with pytest.raises(DurableExecutionError, match="durable runs need asyncio"):
        await pending_requests("wf")


def test_the_engine_and_the_configuration() -> None:
    engine: DurableEngine = DBOSEngine()
    assert isinstance(engine, DurableEngine)
    assert not engine.active()
    config = dict(dbos_config("cafe"))
    assert config["system_database_url"] == "sqlite:///cafe.sqlite"
    assert config["application_version"] == "1"
    assert type(config["serializer"]).__name__ == "DBOSPortableJSONSerializer"
    pg = dict(dbos_config("cafe", database_url="postgresql://127.0.0.1/x", executor_id="w1"))
    assert pg["system_database_url"] == "postgresql://127.0.0.1/x"
    assert pg["executor_id"] == "w1"
    with pytest.raises(ValueError, match="max_attempts"):
        StepPolicy(max_attempts=0)
