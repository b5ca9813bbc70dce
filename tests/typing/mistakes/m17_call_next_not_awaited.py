"""M17: ``call_next()`` called but never awaited, in each of the three scopes."""

from agentcore import AgentContext, CallNext, ChatContext, FunctionInvocationContext


async def agent_scope(context: AgentContext, call_next: CallNext) -> None:
    # expect: mypy[unused-coroutine] pyright[reportUnusedCoroutine]
    call_next()


async def chat_scope(context: ChatContext, call_next: CallNext) -> None:
    # expect: mypy[unused-coroutine] pyright[reportUnusedCoroutine]
    call_next()


async def function_scope(context: FunctionInvocationContext, call_next: CallNext) -> None:
    # expect: mypy[unused-coroutine] pyright[reportUnusedCoroutine]
    call_next()


class ChatLogger:
    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        # expect: mypy[unused-coroutine] pyright[reportUnusedCoroutine]
        call_next()
