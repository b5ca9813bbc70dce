"""FileValidator: check file arguments of a tool call before the tool runs.

Data (``DataContent``, ``data:`` URIs), URIs (``UriContent``) and file paths in a
tool's arguments are checked for size, media type and path traversal. A
violation never reaches the tool: the model gets an error result naming the rule.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import os
import re
import urllib.parse
from collections.abc import Collection, Iterator, Mapping
from typing import Any, cast

import anyio.to_thread
import attrs

from agentcore import DataContent, FunctionInvocationContext, UriContent
from agentcore.middleware import CallNext, MiddlewareTermination

__all__ = ["FileValidator", "FileViolation"]

_PATH_NAME = re.compile(r"(^|_)(path|paths|file|files|filename|filepath|dir|directory)$", re.I)
_WINDOWS_ABSOLUTE = re.compile(r"^([A-Za-z]:[\\/]|[\\/]{2})")
_SEPARATORS = re.compile(r"[\\/]+")


@attrs.frozen
class FileViolation:
    """Why an argument was refused: the ``parameter`` (with its position inside it),
    the ``rule`` broken (``max_size``, ``media_type``, ``path_traversal``,
    ``absolute_path``, ``outside_root``, ``symlink_escape``, ``invalid_data``) and
    a ``detail`` for the model."""

    parameter: str
    rule: str
    detail: str


class _Refused(Exception):
    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(detail)
        self.rule = rule
        self.detail = detail


def _media_pattern(value: str) -> str:
    pattern = value.strip().lower()
    if "/" not in pattern:
        raise ValueError(f"media types look like 'image/png' or 'image/*', got {value!r}")
    return pattern


def _check_positive(name: str, value: object) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{name} must be an int >= 1 or None, got {value!r}")


class FileValidator:
    """Function middleware that refuses unsafe file arguments before a tool runs.

    Which arguments: with ``parameters``, the arguments of those names; otherwise
    every ``DataContent`` / ``UriContent`` value (also inside lists and dicts), any
    ``data:`` URI string, and the string arguments whose name looks like a path
    (``path``, ``file``, ``filename``, ``*_path``, ``*_dir``, ...).

    Checks: ``max_bytes`` (inline data, and files that exist on disk),
    ``media_types`` (an allowlist such as ``["image/*", "application/pdf"]``; a
    path's type is guessed from its extension, and an unknown type is refused),
    and path traversal: ``..`` is always refused; with ``root``, relative paths
    are resolved under it and a path (after ``os.path.realpath``, so symlinks
    count) must stay inside it; without ``root``, absolute paths are refused.

    A violation sets the tool result to an error message naming the rule and
    skips the tool; the run goes on so the model can correct itself.
    ``terminate=True`` ends the tool loop instead (``MiddlewareTermination``).
    ``context.metadata["file_violation"]`` holds the :class:`FileViolation`.
    """

    def __init__(
        self,
        *,
        max_bytes: int | None = None,
        media_types: Collection[str] | None = None,
        root: str | os.PathLike[str] | None = None,
        parameters: Collection[str] | None = None,
        terminate: bool = False,
    ) -> None:
        _check_positive("max_bytes", max_bytes)
        self.max_bytes = max_bytes
        if isinstance(media_types, str):
            raise TypeError(f"media_types must be a list of media types, got {media_types!r}")
        self.media_types: tuple[str, ...] | None = (
            None if media_types is None else tuple(_media_pattern(m) for m in media_types)
        )
        self.root: str | None = None
        self._real_root: str | None = None
        if root is not None:
            folder: str = os.fspath(root)
            self.root = os.path.abspath(folder)
            self._real_root = os.path.realpath(self.root)
        if isinstance(parameters, str):
            raise TypeError(f"parameters must be a list of names, got {parameters!r}")
        self.parameters: frozenset[str] | None = (
            None if parameters is None else frozenset(parameters)
        )
        self.terminate = terminate

    async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
        """Check the arguments; call the tool only when they pass."""
        violation = await self.check(context.arguments)
        if violation is None:
            await call_next()
            return
        message = (
            f"Error: {context.function.name} was not run: argument {violation.parameter!r} "
            f"was refused ({violation.rule}): {violation.detail}"
        )
        context.metadata["file_violation"] = violation
        if self.terminate:
            raise MiddlewareTermination(message, result=message)
        context.result = message

    async def check(self, arguments: Mapping[str, Any]) -> FileViolation | None:
        """The first violation among ``arguments``, or ``None`` when they all pass."""
        for where, kind, value in self._targets(arguments):
            try:
                if kind == "path":
                    await anyio.to_thread.run_sync(self._check_path, value)
                else:
                    self._check_item(value)
            except _Refused as refused:
                return FileViolation(where, refused.rule, refused.detail)
        return None

    # -- finding what to check ------------------------------------------------------

    def _targets(self, arguments: Mapping[str, Any]) -> Iterator[tuple[str, str, Any]]:
        for name, value in arguments.items():
            if self.parameters is not None:
                if name in self.parameters:
                    yield from self._walk(name, value, path_like=True)
            else:
                yield from self._walk(name, value, path_like=bool(_PATH_NAME.search(name)))

    def _walk(
        self, where: str, value: object, *, path_like: bool
    ) -> Iterator[tuple[str, str, Any]]:
        if isinstance(value, (DataContent, UriContent, bytes)):
            yield where, "item", value
        elif isinstance(value, str):
            if value.startswith("data:"):
                yield where, "item", value
            elif path_like:
                yield where, ("path" if "://" not in value else "item"), value
        elif isinstance(value, os.PathLike) and path_like:
            yield where, "path", os.fspath(cast("os.PathLike[str]", value))
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(cast("list[object]", value)):
                yield from self._walk(f"{where}[{index}]", item, path_like=path_like)
        elif isinstance(value, Mapping):
            for key, item in cast("Mapping[object, object]", value).items():
                yield from self._walk(f"{where}[{key!r}]", item, path_like=path_like)

    # -- the checks -----------------------------------------------------------------

    def _check_item(self, value: DataContent | UriContent | bytes | str) -> None:
        if isinstance(value, bytes):
            self._check_size(len(value))
        elif isinstance(value, DataContent):
            if value.name:
                self._check_traversal(value.name)
            self._check_size(len(value.data))
            self._check_media(value.media_type, "the data")
        else:
            uri = value if isinstance(value, str) else value.uri
            declared = None if isinstance(value, str) else value.media_type
            if uri.startswith("data:"):
                media_type, data = _decode_data_uri(uri)
                self._check_size(len(data))
                self._check_media(declared or media_type, "the data")
            elif uri.lower().startswith("file:"):
                self._check_path(urllib.parse.unquote(urllib.parse.urlparse(uri).path))
            else:
                path = urllib.parse.urlparse(uri).path
                self._check_media(declared or mimetypes.guess_type(path)[0], repr(uri))

    def _check_size(self, size: int) -> None:
        if self.max_bytes is not None and size > self.max_bytes:
            raise _Refused("max_size", f"{size} bytes is more than the limit of {self.max_bytes}")

    def _check_media(self, media_type: str | None, what: str) -> None:
        allowed = self.media_types
        if allowed is None:
            return
        listing = ", ".join(allowed)
        if media_type is None:
            raise _Refused("media_type", f"the media type of {what} is unknown; allowed: {listing}")
        bare = media_type.split(";", 1)[0].strip().lower()
        kind = bare.split("/", 1)[0]
        if not any(p == bare or p == f"{kind}/*" or p == "*/*" for p in allowed):
            raise _Refused("media_type", f"{bare} is not allowed; allowed: {listing}")

    def _check_traversal(self, raw: str) -> None:
        if "\x00" in raw:
            raise _Refused("invalid_data", "the path contains a NUL character")
        if ".." in _SEPARATORS.split(raw):
            raise _Refused("path_traversal", f"{raw!r} contains '..'")
        if self.root is None and (os.path.isabs(raw) or _WINDOWS_ABSOLUTE.match(raw)):
            raise _Refused(
                "absolute_path", f"{raw!r} is an absolute path; only relative paths are allowed"
            )

    def _check_path(self, raw: str) -> None:
        self._check_traversal(raw)
        full = raw
        if self.root is not None and self._real_root is not None:
            full = os.path.normpath(os.path.join(self.root, raw))
            if not _inside(full, self.root):
                raise _Refused("outside_root", f"{raw!r} is outside the allowed folder")
            if not _inside(os.path.realpath(full), self._real_root):
                raise _Refused(
                    "symlink_escape", f"{raw!r} leads outside the allowed folder through a link"
                )
        if self.max_bytes is not None and os.path.isfile(full):
            self._check_size(os.path.getsize(full))
        self._check_media(mimetypes.guess_type(full)[0], repr(raw))


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives on Windows
        return False


def _decode_data_uri(uri: str) -> tuple[str, bytes]:
    header, comma, payload = uri[5:].partition(",")
    if not comma:
        raise _Refused("invalid_data", "the data: URI has no ',' before its data")
    fields = header.split(";")
    media_type = fields[0] or "text/plain"
    if "base64" in fields[1:]:
        try:
            return media_type, base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise _Refused("invalid_data", f"the data: URI is not valid base64 ({exc})") from None
    return media_type, urllib.parse.unquote_to_bytes(payload)
