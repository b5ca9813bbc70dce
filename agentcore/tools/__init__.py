"""Function tools: Python functions the model can call.

``@tool`` (or ``FunctionTool(func)``) reads the function's signature, type hints
and docstring into a JSON schema, validates the model's arguments with cattrs,
injects ``ToolContext`` parameters, and runs sync functions in worker threads.

Supported parameter types: ``str``, ``int``, ``float``, ``bool``, ``None``, ``Any``;
``list`` / ``Sequence`` / ``tuple`` / ``set`` / ``frozenset`` of them; ``dict[str, X]``;
unions and ``Optional``; ``Literal``; ``Enum``; attrs classes, dataclasses and
``TypedDict`` (nested, written inline); pydantic models (when pydantic is installed,
recognised by shape); ``Annotated[X, "description"]``.
"""

from agentcore.tools._arguments import read_arguments
from agentcore.tools._context import ToolContext, UserInputRequired
from agentcore.tools._errors import ToolArgumentsError
from agentcore.tools._function_tool import ApprovalMode, FunctionTool, tool
from agentcore.tools._normalize import normalize_tools
from agentcore.tools._protocols import SupportsToolCall, ToolResult

__all__ = [
    "ApprovalMode",
    "FunctionTool",
    "SupportsToolCall",
    "ToolArgumentsError",
    "ToolContext",
    "ToolResult",
    "UserInputRequired",
    "normalize_tools",
    "read_arguments",
    "tool",
]
