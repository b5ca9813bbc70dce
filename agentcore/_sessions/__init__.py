"""Floor 5 of the kernel: conversations that outlive one run.

``session.py`` holds ``AgentSession`` and how a paused run is kept with it, ``history.py``
the built-in history stores and the filter of what a run stores, ``turns.py`` the rule of
one run at a time per session. Public names are re-exported by ``agentcore``.
"""
