"""User-facing errors: each carries one line that names the problem.

The CLI prints ``error: <message>`` and exits with code 2 for any :class:`DinolabError`.
"""


class DinolabError(Exception):
    """A problem with the user's input or files, explained in one line."""


class RuleError(DinolabError):
    """An unknown rule key, a value of the wrong type or out of range, or inconsistent data."""


class DataFileError(DinolabError):
    """A malformed or inconsistent data file (deck CSV, map file, rules TOML)."""
