"""Floor 2 of the kernel: the frozen values every other part passes around.

Contents, messages, usage, options, hosted tools, embeddings, and the chat and agent
responses with the fold that builds a response from its updates; ``json_arguments.py``
reads a model's call arguments as strict JSON, for tools and for
``FunctionCallContent.parse_arguments`` alike. Nothing here does I/O
or knows about streams, sessions, tools or agents. The public names are re-exported by
``agentcore``; import them from there.
"""
