"""FileValidator: unsafe file arguments never reach the tool."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import attrs
import pytest
from agentcore_contrib.file_validator import FileValidator, FileViolation

from agentcore import (
    Agent,
    AgentResponse,
    ChatResponse,
    DataContent,
    FunctionCallContent,
    FunctionInvocationContext,
    FunctionResultContent,
    Message,
    RunContext,
    UriContent,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


async def run(agent: Agent, messages: str = "go", *, stream: bool) -> AgentResponse[Any]:
    """Run once; a streaming run must fold into its final response."""
    if not stream:
        return await agent.run(messages)
    result = agent.run(messages, stream=True)
    updates = [update async for update in result]
    final = await result.get_final_response()
    assert AgentResponse.from_updates(updates) == attrs.evolve(final, value=None)
    return final


def call(name: str, **arguments: Any) -> ChatResponse[None]:
    content = FunctionCallContent("c1", name, json.dumps(arguments))
    return ChatResponse(messages=[Message("assistant", [content])], finish_reason="tool_calls")


def only_result(response: AgentResponse[Any]) -> Any:
    [result] = [
        c.result
        for m in response.messages
        for c in m.contents
        if isinstance(c, FunctionResultContent)
    ]
    return result


class Files:
    """Tools that record whether they ran."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    def tools(self) -> list[Any]:
        @tool
        def read_file(path: str) -> str:
            """Read a file."""
            self.opened.append(path)
            return "contents"

        @tool
        def upload(document: str) -> str:
            """Upload a document (a data: URI)."""
            self.opened.append(document[:20])
            return "uploaded"

        @tool
        def fetch(source: str) -> str:
            """Fetch a source."""
            self.opened.append(source)
            return "fetched"

        return [read_file, upload, fetch]


def agent_for(files: Files, validator: FileValidator, *turns: Any) -> Agent:
    return Agent(ScriptedChatClient([*turns, "done"]), tools=files.tools(), middleware=[validator])


def data_uri(media_type: str, size: int) -> str:
    return f"data:{media_type};base64," + base64.b64encode(b"\0" * size).decode()


async def test_path_inside_the_root_reaches_the_tool(stream: bool, tmp_path: Path) -> None:
    files = Files()
    agent = agent_for(files, FileValidator(root=tmp_path), call("read_file", path="notes/a.txt"))

    response = await run(agent, stream=stream)

    assert (only_result(response), files.opened) == ("contents", ["notes/a.txt"])


async def test_parent_traversal_never_reaches_the_tool(stream: bool, tmp_path: Path) -> None:
    files = Files()
    agent = agent_for(files, FileValidator(root=tmp_path), call("read_file", path="a/../../etc"))

    response = await run(agent, stream=stream)

    assert files.opened == []
    assert "(path_traversal)" in only_result(response)


async def test_absolute_path_outside_the_root_is_refused(stream: bool, tmp_path: Path) -> None:
    files = Files()
    agent = agent_for(files, FileValidator(root=tmp_path), call("read_file", path="/etc/passwd"))

    response = await run(agent, stream=stream)

    assert "(outside_root)" in only_result(response)


async def test_absolute_path_inside_the_root_is_allowed(stream: bool, tmp_path: Path) -> None:
    files = Files()
    inside = str(tmp_path / "a.txt")
    agent = agent_for(files, FileValidator(root=tmp_path), call("read_file", path=inside))

    await run(agent, stream=stream)

    assert files.opened == [inside]


async def test_absolute_path_is_refused_without_a_root(stream: bool) -> None:
    files = Files()
    agent = agent_for(files, FileValidator(), call("read_file", path="/etc/passwd"))

    response = await run(agent, stream=stream)

    assert "(absolute_path)" in only_result(response)


async def test_symlink_out_of_the_root_is_refused(stream: bool, tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (root / "link").symlink_to(outside)
    files = Files()
    agent = agent_for(files, FileValidator(root=root), call("read_file", path="link/secret.txt"))

    response = await run(agent, stream=stream)

    assert files.opened == []
    assert "(symlink_escape)" in only_result(response)


async def test_file_over_max_bytes_is_refused(stream: bool, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * 2000)
    files = Files()
    validator = FileValidator(root=tmp_path, max_bytes=1000)
    agent = agent_for(files, validator, call("read_file", path="big.txt"))

    response = await run(agent, stream=stream)

    assert "(max_size): 2000 bytes" in only_result(response)


async def test_path_media_type_is_guessed_from_its_extension(stream: bool) -> None:
    files = Files()
    validator = FileValidator(media_types=["text/*"])
    agent = agent_for(
        files, validator, call("read_file", path="photo.png"), call("read_file", path="a.txt")
    )

    await run(agent, stream=stream)

    assert files.opened == ["a.txt"]


async def test_data_uri_over_max_bytes_is_refused(stream: bool) -> None:
    files = Files()
    validator = FileValidator(max_bytes=100)
    agent = agent_for(files, validator, call("upload", document=data_uri("application/pdf", 500)))

    response = await run(agent, stream=stream)

    assert (files.opened, "(max_size)" in only_result(response)) == ([], True)


async def test_data_uri_media_type_outside_the_allowlist_is_refused(stream: bool) -> None:
    files = Files()
    validator = FileValidator(media_types=["application/pdf"])
    agent = agent_for(files, validator, call("upload", document=data_uri("image/png", 10)))

    response = await run(agent, stream=stream)

    assert "image/png is not allowed" in only_result(response)


async def test_data_uri_that_fits_reaches_the_tool(stream: bool) -> None:
    files = Files()
    validator = FileValidator(max_bytes=100, media_types=["application/pdf"])
    agent = agent_for(files, validator, call("upload", document=data_uri("application/pdf", 50)))

    response = await run(agent, stream=stream)

    assert only_result(response) == "uploaded"


async def test_configured_parameters_are_checked_whatever_their_name(stream: bool) -> None:
    files = Files()
    validator = FileValidator(parameters=["source"])
    agent = agent_for(files, validator, call("fetch", source="../../etc/passwd"))

    response = await run(agent, stream=stream)

    assert "(path_traversal)" in only_result(response)


async def test_terminate_ends_the_loop_without_another_model_call(stream: bool) -> None:
    files = Files()
    client = ScriptedChatClient([call("read_file", path="../x")])
    agent = Agent(client, tools=files.tools(), middleware=[FileValidator(terminate=True)])

    response = await run(agent, stream=stream)

    assert len(client.requests) == 1
    assert "(path_traversal)" in only_result(response)


async def test_violation_is_recorded_in_metadata(stream: bool) -> None:
    seen: list[Any] = []

    class Probe:
        async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
            await call_next()
            seen.append(context.metadata.get("file_violation"))

    files = Files()
    agent = Agent(
        ScriptedChatClient([call("read_file", path="../x"), "done"]),
        tools=files.tools(),
        middleware=[Probe(), FileValidator()],
    )

    await run(agent, stream=stream)

    assert seen == [FileViolation("path", "path_traversal", "'../x' contains '..'")]


async def test_data_content_is_checked_for_size_and_media_type() -> None:
    validator = FileValidator(max_bytes=10, media_types=["image/*"])

    too_big = await validator.check({"image": DataContent(b"x" * 11, "image/png")})
    wrong_type = await validator.check({"image": DataContent(b"x", "text/html")})
    fine = await validator.check({"images": [DataContent(b"x", "image/jpeg")]})

    assert (too_big and too_big.rule, wrong_type and wrong_type.rule, fine) == (
        "max_size",
        "media_type",
        None,
    )


async def test_data_content_name_with_traversal_is_refused() -> None:
    violation = await FileValidator().check({"file": DataContent(b"x", "text/plain", "../a")})

    assert violation == FileViolation("file", "path_traversal", "'../a' contains '..'")


async def test_uri_of_unknown_media_type_is_refused_under_an_allowlist() -> None:
    validator = FileValidator(media_types=["image/*"])

    unknown = await validator.check({"link": UriContent("https://example.com/download")})
    declared = await validator.check({"link": UriContent("https://x.test/d", "image/png")})

    assert (unknown and unknown.rule, declared) == ("media_type", None)


async def test_invalid_base64_is_refused() -> None:
    violation = await FileValidator().check({"blob": "data:image/png;base64,@@@"})

    assert violation is not None
    assert violation.rule == "invalid_data"


async def test_violation_names_the_position_inside_a_list() -> None:
    violation = await FileValidator().check({"paths": ["ok.txt", "../bad"]})

    assert violation is not None
    assert violation.parameter == "paths[1]"


async def test_process_skips_the_tool_on_a_violation() -> None:
    files = Files()
    read_file = files.tools()[0]
    context = FunctionInvocationContext(
        function=read_file, arguments={"path": "../x"}, call_id="c1", run=RunContext()
    )
    ran: list[bool] = []

    async def tool_call() -> None:
        ran.append(True)

    await FileValidator().process(context, tool_call)

    assert ran == []
    assert str(context.result).startswith("Error: read_file was not run")


def test_bad_media_type_is_refused() -> None:
    with pytest.raises(ValueError, match="media types look like"):
        FileValidator(media_types=["png"])


def test_single_string_parameters_is_refused() -> None:
    with pytest.raises(TypeError, match="parameters must be a list of names"):
        FileValidator(parameters="path")


def test_non_positive_max_bytes_is_refused() -> None:
    with pytest.raises(ValueError, match="max_bytes must be an int >= 1"):
        FileValidator(max_bytes=0)


async def test_docs_example_runs() -> None:
    source = Path(__file__).parents[2] / "docs" / "middleware" / "file_validator.md"
    code = re.search(r"```python\n(.*?)```", source.read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code.group(1), str(source), "exec"), namespace)
    await namespace["main"]()
