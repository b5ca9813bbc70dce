"""PostgreSQL history and checkpoint stores, for several processes or machines.

Needs the ``postgres`` extra: ``pip install 'agentcore-framework[postgres]'``. This package is the
home the PostgreSQL store work fills; today it only checks that its SDK is installed.
"""

import importlib.util

if importlib.util.find_spec("psycopg") is None:
    raise ImportError(
        "agentcore_postgres needs the psycopg driver: pip install 'agentcore-framework[postgres]'"
    )

__all__: list[str] = []
