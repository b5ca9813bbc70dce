"""What a toolset's target is: its transport's label, its default name, and how a
stdio server's exit is noticed while the connection is idle."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, Generic, TypeVar
from urllib.parse import urlsplit

import anyio
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from typing_extensions import Self

__all__ = ["default_name", "transport_label", "watched_stdio"]

_T = TypeVar("_T")

_PYTHON = re.compile(r"^python(\d+(\.\d+)*)?(\.exe)?$")
_PACKAGE_RUNNERS = frozenset({"npx", "bunx", "uvx", "pipx"})
# Options of the package runners that take a value (the value is not the package).
_VALUED = frozenset({"--from", "--with", "--python", "-p", "--package", "--index", "--spec"})
_GENERIC_STEMS = frozenset({"index", "main", "server", "cli", "__main__"})
_BUILD_DIRS = frozenset({"dist", "build", "lib", "src", "bin", "out"})


def transport_label(target: object) -> str:
    if isinstance(target, str):
        return "streamable HTTP"
    if isinstance(target, StdioServerParameters):
        return "stdio"
    return type(target).__name__


def default_name(target: object) -> str:
    """A toolset's name when none is given: a stdio server's package or script (not a
    launcher such as ``npx`` or ``python -m``), a URL's host and port, a server's name."""
    if isinstance(target, StdioServerParameters):
        return _stdio_name(target.command, target.args)
    if isinstance(target, str):
        return urlsplit(target).netloc or target
    name: object = getattr(target, "name", None)
    return name if isinstance(name, str) and name else type(target).__name__


def _stdio_name(command: str, args: Sequence[str]) -> str:
    launcher = os.path.basename(command)
    stem = launcher.removesuffix(".exe").removesuffix(".cmd")
    found: str | None = None
    if stem in _PACKAGE_RUNNERS:
        rest = list(args)
        if stem == "pipx" and rest[:1] == ["run"]:
            rest = rest[1:]
        found = _package(_first_positional(rest))
    elif stem in ("node", "deno", "bun") or _PYTHON.match(launcher):
        found = _script_or_module(list(args))
    return found or launcher


def _first_positional(args: Sequence[str]) -> str | None:
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _VALUED:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def _package(spec: str | None) -> str | None:
    # "@scope/name@1.2" -> "name"; "mcp-server-time==1.0" -> "mcp-server-time"
    if not spec:
        return None
    scoped = spec.startswith("@")
    body = spec[1:] if scoped else spec
    body = re.split(r"@|==|>=|<=|~=|\[", body, maxsplit=1)[0]
    return body.rsplit("/", 1)[-1] or None


def _script_or_module(args: list[str]) -> str | None:
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith("-m") and len(arg) > 2:
            return arg[2:]
        if arg == "run" and index == 0:  # deno run / bun run
            continue
        if not arg.startswith("-"):
            return _script(arg)
    return None


def _script(path: str) -> str | None:
    parts = [p for p in re.split(r"[\\/]", path) if p]
    if not parts:
        return None
    stem = os.path.splitext(parts[-1])[0]
    if stem not in _GENERIC_STEMS:
        return stem
    for folder in reversed(parts[:-1]):
        if folder not in _BUILD_DIRS:
            return folder
    return stem


class _EndWatch(Generic[_T]):
    """A read stream that calls ``on_end`` when the other side has gone (end of stream)."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> object:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> _T:
        try:
            item: _T = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise
        return item

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> _T:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


@asynccontextmanager
async def watched_stdio(
    params: StdioServerParameters, on_end: Callable[[], None]
) -> AsyncGenerator[tuple[Any, Any], None]:
    """The SDK's stdio transport, with ``on_end`` called once the server's stdout ends
    (the process exited), whether or not a request is waiting."""
    async with stdio_client(params) as (read_stream, write_stream):
        yield _EndWatch[Any](read_stream, on_end), write_stream
