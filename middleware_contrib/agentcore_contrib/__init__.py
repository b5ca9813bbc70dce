"""Ready-made middleware for agentcore: each a plain middleware in the kernel's onion.

Import the pieces you need; tracing lives in ``agentcore_contrib.tracing`` and
``agentcore_contrib.workflow_tracing`` (they need the ``otel`` extra) and guardrails
in ``agentcore_contrib.guardrails``.
"""

from agentcore_contrib.audit import AuditLogger, AuditWriteError, VerifyResult, verify_audit_log
from agentcore_contrib.cache import (
    Cache,
    CacheStore,
    InMemoryCacheStore,
    replay_response,
    request_key,
)
from agentcore_contrib.call_limits import CallLimitExceededError, CallLimits
from agentcore_contrib.fallback import ModelFallback
from agentcore_contrib.file_validator import FileValidator, FileViolation
from agentcore_contrib.guardrails import (
    AgentGuardrails,
    ChatGuardrails,
    GuardrailError,
    GuardrailViolation,
    ToolPolicy,
)
from agentcore_contrib.label_tracking import LabelTracking
from agentcore_contrib.rate_limit import RateLimiter
from agentcore_contrib.retry import Retry, restart_before_first_update
from agentcore_contrib.schema_validator import (
    AgentSchemaValidator,
    SchemaValidator,
    schema_errors,
)
from agentcore_contrib.tool_approval import ApprovalRule, ToolApproval
from agentcore_contrib.truncation import (
    ContentTruncator,
    HistoryTruncator,
    TokenCounter,
    estimate_tokens,
)

__all__ = [
    "AgentGuardrails",
    "AgentSchemaValidator",
    "ApprovalRule",
    "AuditLogger",
    "AuditWriteError",
    "Cache",
    "CacheStore",
    "CallLimitExceededError",
    "CallLimits",
    "ChatGuardrails",
    "ContentTruncator",
    "FileValidator",
    "FileViolation",
    "GuardrailError",
    "GuardrailViolation",
    "HistoryTruncator",
    "InMemoryCacheStore",
    "LabelTracking",
    "ModelFallback",
    "RateLimiter",
    "Retry",
    "SchemaValidator",
    "TokenCounter",
    "ToolApproval",
    "ToolPolicy",
    "VerifyResult",
    "estimate_tokens",
    "replay_response",
    "request_key",
    "restart_before_first_update",
    "schema_errors",
    "verify_audit_log",
]
