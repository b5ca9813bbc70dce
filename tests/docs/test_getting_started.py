"""Every block of docs/getting-started.md runs as written and type-checks strictly.

The offline block runs as it is. The OpenAI and Anthropic blocks run unchanged against the
project's local wire server, found through the SDKs' own ``OPENAI_BASE_URL`` and
``ANTHROPIC_BASE_URL`` variables, which answer with a tool call and then a text answer; the
test checks that the tool's result reached the second request.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.providers.anthropic.fixtures import message, text, tool_use
from tests.providers.anthropic.replies import MESSAGES, json_reply
from tests.providers.openai.chat_fixtures import chat_completion
from tests.providers.wire_server import Reply, WireServer

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "getting-started.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.M | re.S)
OFFLINE, OPENAI, ANTHROPIC = BLOCKS
ANSWER = "Yes: it is sunny and 21°C in Paris."


def run_block(source: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "first_agent.py"
    script.write_text(source, encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={**clean, **env},
        timeout=60,
    )


def test_the_page_has_the_three_runs() -> None:
    assert len(BLOCKS) == 3
    assert "ScriptedChatClient" in OFFLINE
    assert "OpenAIChatClient" in OPENAI
    assert "AnthropicChatClient" in ANTHROPIC


def test_the_offline_block_runs_the_tool_and_answers(tmp_path: Path) -> None:
    result = run_block(OFFLINE, tmp_path)

    assert result.returncode == 0, result.stderr
    answer, tool_result = result.stdout.splitlines()
    assert answer == "It is sunny and 21°C in Paris: a good day for a walk."
    assert "sunny, 21°C" in tool_result


def test_the_openai_block_runs_against_an_openai_server(tmp_path: Path) -> None:
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    }
    with WireServer() as server:
        server.add(
            "POST",
            "/v1/chat/completions",
            Reply(json_body=chat_completion(call, "tool_calls")),
            Reply(json_body=chat_completion({"role": "assistant", "content": ANSWER}, "stop")),
        )
        result = run_block(
            OPENAI, tmp_path, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=f"{server.base_url}/v1"
        )
        second = server.requests[-1].json

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ANSWER
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "sunny, 21°C",
    }


def test_the_anthropic_block_runs_against_an_anthropic_server(tmp_path: Path) -> None:
    call = message(tool_use("toolu_1", "get_weather", {"city": "Paris"}), stop_reason="tool_use")
    with WireServer() as server:
        server.add("POST", MESSAGES, json_reply(call), json_reply(message(text(ANSWER))))
        result = run_block(
            ANTHROPIC, tmp_path, ANTHROPIC_API_KEY="sk-ant-test", ANTHROPIC_BASE_URL=server.base_url
        )
        second = server.requests[-1].json

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ANSWER
    assert second["messages"][-1]["content"][0]["content"] == "sunny, 21°C"


@pytest.mark.parametrize("checker", ["mypy", "basedpyright"])
def test_every_block_type_checks_strictly(tmp_path: Path, checker: str) -> None:
    # Run from the repository, so the project's strict configuration (and mypy's cache of
    # the SDKs) applies to the page's blocks as it does to the code.
    for index, source in enumerate(BLOCKS):
        (tmp_path / f"block_{index}.py").write_text(source, encoding="utf-8")
    files = sorted(str(path) for path in tmp_path.glob("block_*.py"))
    tool = str(Path(sys.executable).parent / checker)
    result = subprocess.run([tool, *files], capture_output=True, text=True, check=False, cwd=ROOT)

    assert result.returncode == 0, result.stdout + result.stderr
