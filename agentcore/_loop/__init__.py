"""Floor 11 of the kernel: the tool loop.

``state.py`` is the loop's state and what it adds up to, at the bottom of the package so
the loop's steps import it and nothing imports upward: ``model_call.py`` (one model call
through the chat onion), ``tool_calls.py`` (a batch of tool calls through the function
onion), ``pause.py`` (pausing for approval or input, and resuming), ``history_repair.py``
(keeping the history valid). ``loop.py`` is the loop itself and the public ``ToolLoop``
client; ``config.py`` its configuration. Public names are re-exported by ``agentcore``.
"""
