"""Floor 12 of the kernel: the ``Agent`` and its runs.

``agent.py`` is the class (configuration, validation, ``run`` dispatch); ``run.py`` is
``AgentRun``, one object per run that holds both modes (prepare, run the tool loop,
commit, give the result); ``stream.py`` the streaming run's finalizer and record;
``input.py`` the caller's input checks; ``as_tool.py`` an agent offered as another
agent's tool. Public through ``agentcore.Agent``.
"""
