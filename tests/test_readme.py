"""The README's first example runs as written, offline."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_runs_and_answers_from_its_tool() -> None:
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None, "the README has no python example"
    done = subprocess.run(
        [sys.executable, "-c", block.group(1)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "calling the model with 1 messages" in done.stdout  # the question
    assert "calling the model with 3 messages" in done.stdout  # + the call and its result
    assert "sunny and 21°C" in done.stdout
