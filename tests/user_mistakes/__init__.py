"""Every row of the user-mistakes table (``design/user-mistakes.md``): one test per row,
named after its id, checking the exception type and the words of its message (what was
wrong and what to do) at the place it is raised. Rows only a type checker can catch
point to their static check in ``tests/typing``."""
