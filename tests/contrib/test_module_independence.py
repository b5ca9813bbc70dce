"""Each contrib middleware stands alone: no contrib module imports another.

What two middlewares both need (replaying a response, relaying a stream, seeing it
end) comes from the kernel, so a middleware can be read, changed or copied without
the others. The package's ``__init__`` re-exports them all, and a subpackage (such as
``guardrails``) may import its own modules. Imports under ``TYPE_CHECKING`` and inside
functions count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from agentcore_contrib import rate_limit, truncation
from agentcore_contrib.guardrails import tokens as guardrail_tokens

from agentcore import tokens

CONTRIB = Path(__file__).resolve().parents[2] / "middleware_contrib" / "agentcore_contrib"


def contrib_imports(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) for every ``agentcore_contrib`` module ``source`` imports, the
    source being a module of ``package`` (for relative imports)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: resolve against the module's package
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                module = f"{base}.{module}" if module else base
            found.append((node.lineno, module))
    return [(line, m) for line, m in found if m.split(".")[0] == "agentcore_contrib"]


def forbidden(source: str, package: str) -> list[str]:
    """The imports of other contrib modules in a module of ``package``.

    A subpackage's modules may use each other (``guardrails.middleware`` imports
    ``guardrails._base``); nothing else in ``agentcore_contrib`` may be imported.
    """
    return [
        f"line {line}: {module}"
        for line, module in contrib_imports(source, package)
        if package == "agentcore_contrib" or not module.startswith(f"{package}.")
    ]


def modules() -> list[Path]:
    """Every module but the package's own ``__init__`` (which re-exports them all)."""
    return sorted(p for p in CONTRIB.rglob("*.py") if p != CONTRIB / "__init__.py")


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(CONTRIB)))
def test_a_contrib_module_imports_no_other_contrib_module(path: Path) -> None:
    package = ".".join(path.parent.relative_to(CONTRIB.parent).parts)
    wrong = forbidden(path.read_text(encoding="utf-8"), package)
    assert not wrong, (
        f"{path.relative_to(CONTRIB)} imports other contrib modules ({', '.join(wrong)}); "
        "take what they share from the kernel (agentcore) instead"
    )


def test_the_check_finds_imports_between_contrib_modules() -> None:
    # What retry.py and fallback.py used to do, and the relative forms of it.
    source = (
        "from agentcore_contrib.cache import replay_response\n"
        "import agentcore_contrib.audit\n"
        "from . import retry\n"
        "from .guardrails import ChatGuardrails\n"
        "from agentcore import ResponseStream\n"
    )
    assert forbidden(source, "agentcore_contrib") == [
        "line 1: agentcore_contrib.cache",
        "line 2: agentcore_contrib.audit",
        "line 3: agentcore_contrib",
        "line 4: agentcore_contrib.guardrails",
    ]
    # Inside a subpackage, its own modules are fine, the rest of contrib is not.
    inner = "from agentcore_contrib.guardrails._base import run_check\nfrom .. import cache\n"
    assert forbidden(inner, "agentcore_contrib.guardrails") == ["line 2: agentcore_contrib"]


def test_truncation_guardrails_and_the_rate_limiter_share_the_kernels_estimate() -> None:
    # One estimate, in the kernel: no contrib module keeps a copy of its own.
    assert truncation.estimate_tokens is tokens.estimate_tokens
    assert guardrail_tokens.estimate_tokens is tokens.estimate_tokens
    assert truncation.ContentTruncator(10)._counter is tokens.estimate_tokens  # pyright: ignore[reportPrivateUsage]  # the default counter
    assert truncation.HistoryTruncator(10)._counter is tokens.estimate_tokens  # pyright: ignore[reportPrivateUsage]  # the default counter
    limiter = rate_limit.RateLimiter(tokens_per_minute=10)
    assert limiter._count is tokens.estimate_tokens  # pyright: ignore[reportPrivateUsage]  # the default counter
