"""Floor 7 of the kernel: the ``Agent``.

``agent.py`` is the class (configuration, validation, ``run`` dispatch), ``run.py`` and
``stream.py`` one agent run in its two modes, ``input.py`` the caller's input checks,
``as_tool.py`` an agent offered as another agent's tool. Public through
``agentcore.Agent``.
"""
