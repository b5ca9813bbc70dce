"""Floor 3 of the kernel: ``ResponseStream``, the one stream type of every scope.

``stream.py`` holds the public class (construction, ``map``, hooks, the final value,
closing) and its per-chunk loop; ``reader.py`` holds the engine it runs on (the
consumption state, frames, stages, and the operations on them: adopt and enter a
delegated stream, inject, close, finalize); ``replay.py`` holds what middleware build on it
(``from_response``, ``relay``, ``on_end`` and ``StreamEnd``). Public through
``agentcore.ResponseStream`` and ``agentcore.StreamEnd``.
"""
