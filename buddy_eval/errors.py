"""The project's error class.

Every problem with the user's input (a malformed file, a DataFrame with the
wrong columns, an unknown version label) raises :class:`InputError`. The CLI
turns it into one line on stderr and exit status 2; nothing else is caught.
"""

from __future__ import annotations

__all__ = ["BuddyEvalError", "InputError"]


class BuddyEvalError(Exception):
    """Base class of every error this package raises on purpose."""


class InputError(BuddyEvalError, ValueError):
    """The input is not what the gate accepts.

    Parameters
    ----------
    message : str
        What was expected and what was received.
    source : str, optional
        The file name (or ``<stdin>``, ``<text>``, ``<golden DataFrame>``).
    line : int, optional
        1-based line number (or row number) in ``source`` the problem was
        found on.
    unit : {"line", "row"}
        ``"line"`` for text input (``file:12: ...``), ``"row"`` for
        DataFrame input (``results DataFrame, row 12: ...``).
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        unit: str = "line",
    ):
        self.message = message
        self.source = source
        self.line = line
        self.unit = unit
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is None:
            where = f"{self.source}: " if self.source else ""
        elif self.unit == "row":
            where = f"{self.source or 'input'}, row {self.line}: "
        else:
            where = f"{self.source or 'input'}:{self.line}: "
        return f"{where}{self.message}"
