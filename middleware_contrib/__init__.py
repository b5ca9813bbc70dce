"""Ready-made middleware for agentcore: each a plain middleware in the kernel's onion.

Import the pieces you need; tracing lives in ``middleware_contrib.tracing`` (it needs
the ``otel`` extra) and guardrails in ``middleware_contrib.guardrails``.
"""

from middleware_contrib.audit import AuditLogger, AuditWriteError, VerifyResult, verify_audit_log
from middleware_contrib.cache import (
    Cache,
    CacheStore,
    InMemoryCacheStore,
    replay_response,
    request_key,
)
from middleware_contrib.call_limits import CallLimitExceededError, CallLimits
from middleware_contrib.fallback import ModelFallback
from middleware_contrib.file_validator import FileValidator, FileViolation
from middleware_contrib.guardrails import (
    AgentGuardrails,
    ChatGuardrails,
    GuardrailError,
    GuardrailViolation,
    ToolPolicy,
)
from middleware_contrib.label_tracking import LabelTracking
from middleware_contrib.rate_limit import RateLimiter
from middleware_contrib.retry import Retry, restart_before_first_update
from middleware_contrib.schema_validator import (
    AgentSchemaValidator,
    SchemaValidator,
    schema_errors,
)
from middleware_contrib.tool_approval import ApprovalRule, ToolApproval
from middleware_contrib.truncation import (
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
