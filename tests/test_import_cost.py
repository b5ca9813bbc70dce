"""``import agentcore`` leaves unloaded what only some programs use.

The import budget (``docs/performance.md``) holds because these load on first use; a
top-level import added to the kernel by mistake shows up here, by name, rather than as a
few milliseconds in a benchmark. The modules still load when they are used (the last test).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

LOADED_ON_FIRST_USE = [
    "agentcore.observers._events",  # built only when an observer listens
    "agentcore._types.hosted_tools",
    "agentcore._types.embeddings",
    "agentcore._feature_stage",
    "agentcore.security",
    "agentcore.tokens",
    "dataclasses",  # tool schemas ask for it only for a dataclass parameter
    "anyio.to_thread",  # only a sync tool's call needs a worker thread
    "base64",  # request ids and DataContent.uri
    "logging",
    "sqlite3",
]


def _loaded_after(source: str) -> list[str]:
    """Which of the names ``source`` loads that the kernel's dependencies had not loaded
    already (an older anyio, say, loads its thread module with ``import anyio``)."""
    script = (
        "import json, sys\n"
        "import attrs, anyio, typing_extensions\n"
        "before = set(sys.modules)\n"
        f"{source}\n"
        f"names = {LOADED_ON_FIRST_USE!r}\n"
        "print(json.dumps([m for m in names if m in sys.modules and m not in before]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stdout)
    return loaded


def test_import_agentcore_loads_none_of_them() -> None:
    assert _loaded_after("import agentcore") == []


def test_an_observer_event_class_loads_on_first_use() -> None:
    source = "from agentcore.observers import RunStarted, ToolCallEnded\nassert RunStarted"
    assert _loaded_after(source) == ["agentcore.observers._events"]


def _run(script: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_import_workflows_leaves_the_converter_and_threads_unloaded() -> None:
    # cattrs and the converter are a third of `import agentcore.workflows` (design §10:
    # <= 15 ms over `import agentcore`); a run that writes no JSON never needs them, nor
    # anyio's threads (sync handlers, SQLite stores) nor dataclasses (a message check).
    names = ("cattrs", "agentcore.serialization", "anyio.to_thread", "dataclasses")
    script = (
        "import sys\n"
        "import attrs, anyio, typing_extensions, agentcore\n"
        "before = set(sys.modules)\n"
        "import agentcore.workflows\n"
        f"print([m for m in {names!r} if m in sys.modules and m not in before])\n"
    )
    assert _run(script) == "[]"


# The workflows' converter hooks, registered before the converter exists, reach it when it
# loads; and a module importing them after the converter exists registers them at once.
_REQUEST_TO_JSON = (
    "import json\n"
    "from agentcore.workflows import RequestInfo\n"
    "from agentcore.workflows._requests import PendingRequest\n"
    "request = PendingRequest('req_1_0_0', 'judge', 'fair?', bool, 1, ())\n"
    "from agentcore.serialization import to_json\n"
    "print(json.loads(to_json(RequestInfo(request)))['data']['request']['response_type'])\n"
)


def test_workflow_hooks_reach_a_converter_loaded_after_them() -> None:
    assert _run(_REQUEST_TO_JSON) == "builtins:bool"


def test_workflow_hooks_reach_a_converter_loaded_before_them() -> None:
    assert _run("import agentcore.serialization\n" + _REQUEST_TO_JSON) == "builtins:bool"


# What `import agentcore.workflows` may load besides its own modules (design §10: <= 15 ms
# over `import agentcore`): a module from elsewhere added by mistake shows up here by name.
_WORKFLOWS_ALSO_LOAD = {"agentcore._converter_hooks"}

# Parts of the package a workflow of functions and classes never uses, each loaded on
# first use: agents as executors, a workflow as an agent, a tool or a sub-workflow node,
# the stores' SQLite, ids made inside invocations (hashlib loads OpenSSL), the converter.
_WORKFLOWS_ON_FIRST_USE = (
    "agentcore.workflows._agent_executor",
    "agentcore.workflows._workflow_agent",
    "agentcore.workflows._request_info",
    "agentcore.workflows._workflow_tool",
    "agentcore.workflows._subworkflow",
    "agentcore.workflows._subtypes",
    "agentcore.workflows._snapshot",
    "agentcore.workflows._switch",
    "contextvars",
    "hashlib",
    "sqlite3",
    "cattrs",
)

_THREE_NODES = (
    "from agentcore.workflows import WorkflowBuilder, WorkflowContext, executor, handler\n"
    "@executor\n"
    "async def upper(text: str, ctx: WorkflowContext[str]) -> None:\n"
    "    await ctx.send(text.upper())\n"
    "@executor\n"
    "async def exclaim(text: str, ctx: WorkflowContext[str]) -> None:\n"
    "    await ctx.send(text + '!')\n"
    "class Printer:\n"
    "    id = 'printer'\n"
    "    @handler\n"
    "    async def show(self, text: str, ctx: WorkflowContext[None, str]) -> None:\n"
    "        await ctx.yield_output(text)\n"
    "builder = WorkflowBuilder(upper, name='shout')\n"
    "builder.add_edge(upper, exclaim).add_edge(exclaim, Printer()).build()\n"
)


def _workflows_loaded(source: str) -> list[str]:
    script = (
        "import sys\n"
        "import attrs, anyio, typing_extensions, agentcore\n"
        "before = set(sys.modules)\n"
        f"{source}\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    loaded: list[str] = ast.literal_eval(_run(script))
    return loaded


def test_import_workflows_loads_nothing_from_outside_the_package() -> None:
    loaded = _workflows_loaded("import agentcore.workflows")
    assert "agentcore.workflows._builder" in loaded  # the builder is not deferred
    assert "agentcore.workflows._runner" in loaded  # nor the runner
    outside = [
        m
        for m in loaded
        if m != "agentcore.workflows"
        and not m.startswith("agentcore.workflows.")
        and m not in _WORKFLOWS_ALSO_LOAD
    ]
    assert outside == []


def test_building_a_workflow_of_functions_leaves_the_optional_parts_unloaded() -> None:
    loaded = _workflows_loaded("import agentcore.workflows\n" + _THREE_NODES)
    assert [m for m in _WORKFLOWS_ON_FIRST_USE if m in loaded] == []


def test_the_optional_parts_of_workflows_load_when_named() -> None:
    source = (
        "from agentcore.workflows import AgentExecutor, WorkflowAgent, REQUEST_INFO_TOOL_NAME\n"
        "from agentcore.workflows import RunSnapshot, SubWorkflowExecutor, SubWorkflowRequest\n"
        "from agentcore.workflows import Case\n"
        "assert REQUEST_INFO_TOOL_NAME == 'request_info'\n"
    )
    loaded = _workflows_loaded(source)
    assert "agentcore.workflows._agent_executor" in loaded
    assert "agentcore.workflows._workflow_agent" in loaded
    assert "agentcore.workflows._subworkflow" in loaded
    assert "agentcore.workflows._subtypes" in loaded
    assert "agentcore.workflows._snapshot" in loaded
    assert "agentcore.workflows._switch" in loaded
    assert "contextvars" in loaded
