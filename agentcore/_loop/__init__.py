"""Floor 6 of the kernel: the tool loop.

``config.py`` is the loop's configuration, ``loop.py`` the loop itself and the public
``ToolLoop`` client, ``model_call.py`` one model call through the chat onion,
``tool_calls.py`` a batch of tool calls through the function onion, ``pause.py`` pausing
for approval or input and resuming, ``history_repair.py`` keeping the history valid.
Public names are re-exported by ``agentcore``.
"""
