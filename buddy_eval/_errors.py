"""The project's error classes.

Every problem with the user's input (a malformed file, a DataFrame with the
wrong columns, an unknown version label) raises :class:`InputError`: the CLI
turns it into one line on stderr and exit status 2. A run that cannot finish
for any other reason (an output that cannot be written, a notebook kernel that
dies, a missing optional dependency) raises :class:`CouldNotFinishError`:
one line and exit status 3.
"""

from __future__ import annotations

__all__ = [
    "BuddyEvalError",
    "CouldNotFinishError",
    "InputError",
    "QUOTE_LIMIT",
    "quoted",
    "quoted_list",
]

#: Characters of an input value quoted in a message; the rest is counted, not shown.
QUOTE_LIMIT = 60
#: Values a message lists at most (labels found, ...); the rest is counted.
LIST_LIMIT = 10


class BuddyEvalError(Exception):
    """Base class of every error this package raises on purpose.

    Examples
    --------
    One ``except`` catches every problem the package reports, whatever its kind:

    >>> try:
    ...     be.load("THRESHOLDS 0.5 0.5 2\\n")
    ... except be.BuddyEvalError as error:
    ...     print(type(error).__name__, "-", error)
    InputError - <text>:1: refusal threshold must lie in [0, 1], got 2
    """


class CouldNotFinishError(BuddyEvalError):
    """The run could not finish: not the input's fault, and never a verdict.

    Parameters
    ----------
    message : str
        What went wrong.
    source : str, optional
        The file it concerns, printed before the message.

    Examples
    --------
    The command line prints it as one line and exits with status 3:

    >>> error = be.CouldNotFinishError("No space left on device", source="report.html")
    >>> print(error)
    report.html: No space left on device
    >>> isinstance(error, be.BuddyEvalError), isinstance(error, be.InputError)
    (True, False)
    """

    def __init__(self, message: str, *, source: str | None = None) -> None:
        self.message = message
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)


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

    Examples
    --------
    The message names where the problem is and what was expected:

    >>> text = "THRESHOLDS 0.5 0.5 0.5\\nq1 ANSWER L1 class\\nRESULTS\\nOLD q1 L1 maybe a class\\n"
    >>> try:
    ...     be.load(text)
    ... except be.InputError as error:
    ...     print(error)
    ...     print(error.source, error.line, error.message)
    <text>:4: refused flag must be Y or N, got 'maybe'
    <text> 4 refused flag must be Y or N, got 'maybe'

    It is also a :class:`ValueError`, for code that already catches those.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        unit: str = "line",
    ) -> None:
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


def quoted(value, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for a message, at most ``limit`` characters of it shown.

    An input value can be a whole line of the file (megabytes of it): longer
    text is cut after ``limit`` characters and the rest counted, e.g.
    ``'aaaa'... (940 more characters)``. An integer too long to print in
    decimal is described by its size.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value) - limit} more characters)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except ValueError:  # pragma: no cover - e.g. a subclass of int past the digit limit
        return f"a {type(value).__name__} too long to print"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def quoted_list(values, limit: int = LIST_LIMIT) -> str:
    """Up to ``limit`` values, each :func:`quoted`, joined by ``, ``; the rest counted."""
    values = list(values)
    shown = ", ".join(quoted(v) for v in values[:limit])
    if len(values) > limit:
        shown += f" and {len(values) - limit} more"
    return shown or "none"
