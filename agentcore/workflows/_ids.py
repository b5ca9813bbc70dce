"""Where a run's ids come from (design §11.1): ``run(..., ids=IdSource)``.

The superstep loop draws the run id and the checkpoint ids from the run's id source,
in loop order. Ids made inside invocations (child runs' checkpoints, agent sessions,
agent approval requests, a workflow agent's run) never draw from it directly, since
concurrent invocations would draw in completion order: they are derived from the
run id and the invocation (superstep, ordinal), salted with one token the run draws
the first time an invocation needs one (a keyed hash, :class:`InvocationIds`). So a
deterministic source (``SeededIds``) gives the same ids, checkpoints and events
whatever the schedule or backend; the default source is random. An agent executor
hands its invocation's source to the workflow agent it calls (``calling_agent`` in
``_agent_executor``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import random

__all__ = [
    "NO_DEPS",
    "IdSource",
    "InvocationIds",
    "RandomIds",
    "RunCall",
    "SeededIds",
]


@runtime_checkable
class IdSource(Protocol):
    """Fresh tokens for a run's ids. Give each ``run()`` call its own source (or one
    that never repeats): two calls that draw the same tokens name their checkpoints
    alike, and a store refuses the second."""

    def token(self, nbytes: int) -> str:
        """``nbytes`` bytes as ``2 * nbytes`` lowercase hex digits."""
        ...


class RandomIds:
    """The default source: ``os.urandom``."""

    __slots__ = ()

    def token(self, nbytes: int) -> str:
        return os.urandom(nbytes).hex()


class SeededIds:
    """A deterministic source: the same seed gives the same tokens, in the same order
    (for tests, and for hosts that replay the loop, such as durable engines). Not
    secret: never use its ids as credentials."""

    __slots__ = ("_random", "_seed")

    def __init__(self, seed: int | str) -> None:
        checked: object = seed
        if not isinstance(checked, (int, str)) or isinstance(checked, bool):
            raise TypeError(f"SeededIds takes an int or str seed, got {seed!r}")
        self._seed = seed
        self._random: random.Random | None = None  # seeded on the first token (~15 µs)

    def token(self, nbytes: int) -> str:
        generator = self._random
        if generator is None:
            import random  # a str seed is hashed with SHA-512: the same in every process

            generator = self._random = random.Random(self._seed)
        return generator.randbytes(nbytes).hex()


class InvocationIds:
    """The ids one invocation makes: token ``n`` is the keyed BLAKE2b digest of
    ``n`` under the invocation's key (salt, run id, superstep, ordinal), so the same
    key gives the same tokens in the same order. A keyed hash costs about a
    microsecond to set up, where seeding a ``random.Random`` from a string costs
    about 16 (SHA-512 and the Mersenne Twister's 624-word state), once per
    invocation that makes ids."""

    __slots__ = ("_counter", "_key")

    def __init__(self, key: str) -> None:
        # Loaded here, not with the package: hashlib loads OpenSSL (about 2 ms, 11 M
        # instructions of `import agentcore.workflows`), and most runs make no such ids.
        import hashlib

        # BLAKE2b takes a key of at most 64 bytes: hash a longer one down first.
        raw = key.encode()
        self._key = raw if len(raw) <= 64 else hashlib.blake2b(raw).digest()
        self._counter = 0

    def token(self, nbytes: int) -> str:
        import hashlib  # already loaded by __init__

        self._counter += 1
        out = b""
        block = 0
        while len(out) < nbytes:  # one digest gives up to 64 bytes; ids take at most 16
            size = min(64, nbytes - len(out))
            message = b"%d.%d" % (self._counter, block)
            out += hashlib.blake2b(message, digest_size=size, key=self._key).digest()
            block += 1
        return out.hex()


RANDOM_IDS: IdSource = RandomIds()


def check_source(ids: Any) -> IdSource:
    """``ids`` as an id source (``RANDOM_IDS`` for ``None``); ``TypeError`` otherwise."""
    if ids is None:
        return RANDOM_IDS
    if not callable(getattr(ids, "token", None)):
        raise TypeError(
            f"ids must be an IdSource (an object with token(nbytes) -> hex str, such as "
            f"SeededIds(seed)), got {ids!r}"
        )
    source: IdSource = ids
    return source


NO_DEPS: Any = type("_NoDeps", (), {"__repr__": lambda self: "<no deps>"})()
"""``run(deps=...)`` not given."""


class RunCall:
    """What one ``run()`` call gives its run besides the messages: its id source (the
    ids of the call come from here) and its ``deps`` (never saved).

    With the default source the call's random bytes come from one ``os.urandom`` call
    per 32 bytes (a run id, the salt and a few checkpoint ids), split in draw order:
    each ``os.urandom`` is a system call. The bytes belong to this call alone, so a
    forked process never repeats them."""

    __slots__ = ("_pool", "_salt", "deps", "source")

    def __init__(self, source: IdSource, deps: Any = NO_DEPS) -> None:
        self.source: IdSource = source
        self.deps: Any = deps
        self._salt: str | None = None
        self._pool = b""

    def _token(self, nbytes: int) -> str:
        if type(self.source) is not RandomIds:
            return self.source.token(nbytes)
        pool = self._pool
        if len(pool) < nbytes:
            pool = os.urandom(max(32, nbytes))
        self._pool = pool[nbytes:]
        return pool[:nbytes].hex()

    def run_id(self) -> str:
        return f"wfr_{self._token(16)}"

    def checkpoint_id(self, superstep: int) -> str:
        return f"ck_{superstep:06d}_{self._token(3)}"

    def for_invocation(self, run_id: str, superstep: int, ordinal: int) -> IdSource:
        """A source for the ids one invocation makes (see the module docs); nothing is
        drawn or seeded until it gives its first token (most invocations make no ids)."""
        return _Derived(self, f"{run_id}/{superstep}.{ordinal}")

    def salt(self) -> str:
        """One token of the call's source, drawn when an invocation first makes an id."""
        if self._salt is None:
            self._salt = self._token(8)
        return self._salt


class _Derived:
    """An invocation's id source: :class:`InvocationIds` of the call's salt and the
    invocation."""

    __slots__ = ("_call", "_ids", "_label")

    def __init__(self, call: RunCall, label: str) -> None:
        self._call = call
        self._label = label
        self._ids: InvocationIds | None = None

    def token(self, nbytes: int) -> str:
        ids = self._ids
        if ids is None:
            ids = self._ids = InvocationIds(f"{self._call.salt()}/{self._label}")
        return ids.token(nbytes)
