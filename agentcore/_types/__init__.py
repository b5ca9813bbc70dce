"""Floor 1 of the kernel: the frozen values every other part passes around.

Contents, messages, usage, options, hosted tools, embeddings, and the chat and agent
responses with the fold that builds a response from its updates. Nothing here does I/O
or knows about streams, sessions, tools or agents. The public names are re-exported by
``agentcore``; import them from there.
"""
