"""``FunctionTool`` and ``@tool``: a Python function the model can call."""

from __future__ import annotations

import functools
import inspect
import math
import re
import warnings
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Concatenate, Generic, Literal, ParamSpec, overload

import anyio
from typing_extensions import Self, TypeVar

from agentcore.tools._context import ToolContext
from agentcore.tools._schema import parameters_schema
from agentcore.tools._signature import MISSING, ToolParameter, read_signature

if TYPE_CHECKING:
    from agentcore.tools._validation import ArgumentParser

__all__ = ["ApprovalMode", "FunctionTool", "tool"]

P = ParamSpec("P")
R = TypeVar("R")
P2 = ParamSpec("P2")
R2 = TypeVar("R2")

ApprovalMode = Literal["never_require", "always_require"]
_APPROVAL_MODES: tuple[str, ...] = ("never_require", "always_require")
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class FunctionTool(Generic[P, R]):
    """A Python function declared to the model as a tool.

    The schema comes from the signature (see ``agentcore.tools``); calling the tool
    calls the function. The tool loop uses :meth:`parse_arguments` then
    :meth:`invoke`. Metadata (``approval_mode``, ``return_directly``, the effect
    hints, ``max_invocations``, ``timeout``) is read by the loop and by middleware.
    """

    name: str
    """The name the model calls the tool by: ``^[a-zA-Z0-9_-]{1,64}$``."""
    description: str
    """What the tool does, for the model: the docstring's description by default."""
    parameters: dict[str, Any]
    """The JSON schema of the arguments. Shared, so treat it as read-only."""
    func: Callable[P, R]
    """The original function (bound to its instance for a tool reached through one)."""
    is_streaming: bool
    """An async generator function: yielded values before the last are progress events."""

    def __init__(
        self,
        func: Callable[P, R],
        *,
        name: str | None = None,
        description: str | None = None,
        approval_mode: ApprovalMode = "never_require",
        return_directly: bool = False,
        read_only: bool | None = None,
        idempotent: bool | None = None,
        destructive: bool | None = None,
        open_world: bool | None = None,
        max_invocations: int | None = None,
        timeout: float | None = None,
    ) -> None:
        _check_callable(func)
        self.name = _check_name(func, name)
        _check_options(self.name, approval_mode, max_invocations, timeout)
        if _is_generator(func):
            raise TypeError(
                f"tool {self.name!r} is a generator function; make it an async generator "
                f"(`async def` with `yield`) to report progress"
            )
        signature = read_signature(func, tool_name=self.name)
        self.func = func
        self.description = description if description is not None else signature.docstring.summary
        self.parameters = parameters_schema(signature, tool_name=self.name)
        self.approval_mode: ApprovalMode = approval_mode
        self.return_directly = return_directly
        self.read_only = read_only
        self.idempotent = idempotent
        self.destructive = destructive
        self.open_world = open_world
        self.max_invocations = max_invocations
        self.timeout = timeout
        self.is_streaming = _is_async_generator(func)
        self._is_coroutine = not self.is_streaming and _is_coroutine(func)
        self._signature_parameters: tuple[ToolParameter, ...] = signature.parameters
        self._is_method = signature.is_method
        self._parser: ArgumentParser | None = None
        self.__wrapped__ = func
        self.__doc__ = getattr(func, "__doc__", None)

    def __repr__(self) -> str:
        return f"FunctionTool(name={self.name!r}, func={self.func!r})"

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the function directly (no validation, no context injection)."""
        return self.func(*args, **kwargs)

    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> Self: ...
    @overload
    def __get__(
        self: FunctionTool[Concatenate[Any, P2], R2],
        instance: object,
        owner: type[Any] | None = None,
    ) -> FunctionTool[P2, R2]: ...
    def __get__(self, instance: object, owner: type[Any] | None = None) -> Any:
        """Bind a method tool to an instance: ``obj.method`` is a tool without ``self``."""
        if instance is None or not self._is_method:
            return self
        func: Callable[..., Any] = self.func
        bound = object.__new__(type(self))
        bound.__dict__.update(self.__dict__)
        bound.func = func.__get__(instance, owner)
        bound.__wrapped__ = bound.func
        bound._is_method = False
        return bound

    def declaration(self) -> dict[str, Any]:
        """What a provider adapter sends: ``{"name", "description", "parameters"}``."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def parse_arguments(self, raw: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
        """Validate the model's arguments (a JSON string or a mapping) and convert them
        to the annotated types.

        Raises :class:`~agentcore.tools.ToolArgumentsError` naming every problem
        (``"city: expected str, got 42"``), for the loop to send back to the model.
        """
        parser = self._parser
        if parser is None:
            from agentcore.tools._validation import ArgumentParser

            parser = self._parser = ArgumentParser(self._signature_parameters, tool_name=self.name)
        return parser.parse(raw)

    async def invoke(self, arguments: Mapping[str, Any], *, context: ToolContext) -> Any:
        """Run the tool with parsed arguments and inject ``ToolContext`` parameters.

        Sync functions run in a worker thread; coroutine functions are awaited; an
        async generator's yields are progress events except the last, which is the
        result. ``timeout`` bounds the whole call (``TimeoutError``); a sync function
        that overruns keeps running in its thread, its result discarded. Without a
        timeout a sync function is waited for, even when the run is cancelled (a
        thread cannot be interrupted). Exceptions from the function propagate unchanged.
        """
        if self._is_method:
            raise TypeError(
                f"tool {self.name!r} is a method; invoke it through an instance "
                f"(`obj.{self.name}`), which binds `self`"
            )
        args, kwargs = self._call_arguments(arguments, context)
        if self.timeout is None:
            return await self._run(args, kwargs, context, abandon_thread=False)
        with anyio.move_on_after(self.timeout):
            return await self._run(args, kwargs, context, abandon_thread=True)
        raise TimeoutError(
            f"tool {self.name!r} did not finish within its timeout of {self.timeout} seconds"
        )

    def _call_arguments(
        self, arguments: Mapping[str, Any], context: ToolContext
    ) -> tuple[list[Any], dict[str, Any]]:
        args: list[Any] = []
        kwargs: dict[str, Any] = dict(arguments)
        for parameter in self._signature_parameters:
            if parameter.injected:
                kwargs[parameter.name] = context
            if parameter.positional_only:
                value = kwargs.pop(parameter.name, parameter.default)
                if value is MISSING:
                    raise TypeError(
                        f"tool {self.name!r} is missing its argument {parameter.name!r}"
                    )
                args.append(value)
        return args, kwargs

    async def _run(
        self,
        args: list[Any],
        kwargs: dict[str, Any],
        context: ToolContext,
        *,
        abandon_thread: bool,
    ) -> Any:
        func: Callable[..., Any] = self.func
        if self._is_coroutine:
            return await func(*args, **kwargs)
        if self.is_streaming:
            generator: AsyncGenerator[Any, Any] = func(*args, **kwargs)
            return await _drain(generator, context)
        call = functools.partial(func, *args, **kwargs)
        # Imported here, for sync tools only: anyio's thread machinery is 11 M instructions
        # (about 2 ms) of ``import agentcore`` that a program with async tools never uses.
        import anyio.to_thread

        return await anyio.to_thread.run_sync(call, abandon_on_cancel=abandon_thread)


async def _drain(generator: AsyncGenerator[Any, Any], context: ToolContext) -> Any:
    """Emit every yielded value but the last as progress; return the last."""
    last: Any = None
    yielded = False
    async with aclosing(generator):
        async for value in generator:
            if yielded:
                await context.emit(last)
            last, yielded = value, True
    return last


def _check_callable(func: object) -> None:
    if isinstance(func, FunctionTool):
        raise TypeError(
            f"{func!r} is already a FunctionTool; pass its function (`.func`) to make another"
        )
    if isinstance(func, type):
        raise TypeError(f"a tool must be a function, not the class {func.__name__!r}")
    if not callable(func):
        raise TypeError(
            f"a tool must be a callable (a function, method or callable object), got "
            f"{type(func).__name__} {func!r}"
        )


def _check_name(func: Callable[..., Any], name: object) -> str:
    if name is None:
        name = getattr(func, "__name__", None)
        if not isinstance(name, str):
            raise ValueError(
                f"{func!r} has no __name__ to name the tool by; pass name='...' "
                f"(letters, digits, '_' and '-', at most 64 characters)"
            )
        if name == "<lambda>":
            raise ValueError(
                "a lambda has no usable name; pass name='...' (letters, digits, '_' and '-', "
                "at most 64 characters)"
            )
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"invalid tool name {name!r}: providers accept 1 to 64 letters, digits, '_' "
            f"and '-'; pass name='...' to choose one"
        )
    return name


def _check_options(
    name: str, approval_mode: object, max_invocations: object, timeout: object
) -> None:
    """Checked as ``object``: untyped callers get a clear error too."""
    if approval_mode not in _APPROVAL_MODES:
        raise ValueError(
            f"invalid approval_mode {approval_mode!r} for tool {name!r}; use "
            f"'never_require' or 'always_require'"
        )
    if max_invocations is not None and (
        not isinstance(max_invocations, int)
        or isinstance(max_invocations, bool)
        or max_invocations < 1
    ):
        raise ValueError(
            f"max_invocations of tool {name!r} must be an int >= 1 (or None for no limit), "
            f"got {max_invocations!r}"
        )
    if timeout is not None and (
        not isinstance(timeout, (int, float))
        or isinstance(timeout, bool)
        or math.isnan(timeout)
        or timeout <= 0
    ):
        raise ValueError(
            f"timeout of tool {name!r} must be a positive number of seconds (or None for "
            f"no limit), got {timeout!r}"
        )


def _is_generator(func: object) -> bool:
    return inspect.isgeneratorfunction(func) or inspect.isgeneratorfunction(
        getattr(func, "__call__", None)  # noqa: B004 # the instance's own __call__
    )


def _is_async_generator(func: object) -> bool:
    return inspect.isasyncgenfunction(func) or inspect.isasyncgenfunction(
        getattr(func, "__call__", None)  # noqa: B004 # the instance's own __call__
    )


def _is_coroutine(func: object) -> bool:
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
        getattr(func, "__call__", None)  # noqa: B004 # the instance's own __call__
    )


@overload
def tool(func: Callable[P, R], /) -> FunctionTool[P, R]: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    approval_mode: ApprovalMode = "never_require",
    return_directly: bool = False,
    read_only: bool | None = None,
    idempotent: bool | None = None,
    destructive: bool | None = None,
    open_world: bool | None = None,
    max_invocations: int | None = None,
    timeout: float | None = None,
) -> Callable[[Callable[P, R]], FunctionTool[P, R]]: ...
def tool(
    func: Callable[P, R] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    approval_mode: ApprovalMode = "never_require",
    return_directly: bool = False,
    read_only: bool | None = None,
    idempotent: bool | None = None,
    destructive: bool | None = None,
    open_world: bool | None = None,
    max_invocations: int | None = None,
    timeout: float | None = None,
) -> FunctionTool[P, R] | Callable[[Callable[P, R]], FunctionTool[P, R]]:
    """Make a function a tool: ``@tool`` or ``@tool(name=..., timeout=...)``.

    Works on sync and async functions, async generators and methods; see
    :class:`FunctionTool` for the options.
    """

    def decorate(target: Callable[P, R], *, stacklevel: int = 2) -> FunctionTool[P, R]:
        made = FunctionTool(
            target,
            name=name,
            description=description,
            approval_mode=approval_mode,
            return_directly=return_directly,
            read_only=read_only,
            idempotent=idempotent,
            destructive=destructive,
            open_world=open_world,
            max_invocations=max_invocations,
            timeout=timeout,
        )
        if not made.description:
            warnings.warn(
                f"tool {made.name!r} has no description, so the model learns only its name "
                "and parameters: give the function a docstring, or pass "
                "@tool(description=...)",
                UserWarning,
                stacklevel=stacklevel,
            )
        return made

    if func is None:
        return decorate
    return decorate(func, stacklevel=3)
