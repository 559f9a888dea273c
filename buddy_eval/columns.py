"""The checked input as pyarrow and numpy columns, and the DataFrames built from them.

Scoring works on these columns directly, so the command-line gate never
imports pandas; :attr:`buddy_eval.EvalInput.golden` and ``.results`` build
the DataFrames from them on first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ITEM_TYPES", "Texts", "GoldenColumns", "ResultColumns", "JoinCodes"]

ITEM_TYPES = ("ANSWER", "REFUSE")


def strings(values) -> pa.Array:
    """One contiguous ``string`` or ``large_string`` array (other types are cast)."""
    if isinstance(values, pa.ChunkedArray):
        # combine_chunks copies even a single chunk.
        values = values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    if values.type in (pa.string(), pa.large_string()):
        return values
    return pc.cast(values, pa.large_string())


def large_strings(values) -> pa.Array:
    """One contiguous ``large_string`` array (what pandas' ``str`` dtype stores)."""
    return pc.cast(strings(values), pa.large_string())


def index_type(size: int) -> type:
    """int32 when every position and offset up to ``size`` fits in it, else int64."""
    return np.int32 if size < 2**31 - 1 else np.int64


def value_offsets(values: pa.Array) -> np.ndarray:
    """The ``len(values) + 1`` value offsets of a string array (a view, no copy)."""
    width = np.int64 if values.type == pa.large_string() else np.int32
    return np.frombuffer(values.buffers()[1], width)[
        values.offset : values.offset + len(values) + 1
    ]


@dataclass(frozen=True, eq=False)
class Texts:
    """``n`` strings stored as every ``step``-th value of a pyarrow string array.

    With ``step=2`` the array is a view on the input bytes whose even values
    are the texts and odd values the bytes between them: the answers of a
    file are never copied out unless a DataFrame asks for them.
    """

    values: pa.Array
    step: int = 1

    def __len__(self) -> int:
        return -(-len(self.values) // self.step)

    def take(self, rows: np.ndarray, missing: np.ndarray | None = None) -> pa.Array:
        """The texts at ``rows`` (a copy of just those); null where ``missing``."""
        rows = np.asarray(rows)
        at = rows.astype(np.int64) * self.step if self.step > 1 else rows
        return pc.take(self.values, pa.array(at, mask=missing))

    def column(self) -> pa.Array:
        """All texts as one ``large_string`` array."""
        if self.step == 1:
            return large_strings(self.values)
        return large_strings(self.take(np.arange(len(self), dtype=np.int64)))

    def non_ascii_rows(self) -> np.ndarray:
        """Positions of the texts holding a byte >= 0x80, found on the raw bytes."""
        values = strings(self.values)
        data = values.buffers()[2]
        if len(values) == 0 or data is None:
            return np.empty(0, np.int64)
        offsets = value_offsets(values)
        raw = np.frombuffer(data, np.uint8)
        lo, hi, step = int(offsets[0]), int(offsets[-1]), 1 << 22
        hits = [
            np.flatnonzero(raw[at : min(at + step, hi)] >= 128) + at for at in range(lo, hi, step)
        ]
        if not hits:
            return np.empty(0, np.int64)
        where = np.unique(np.searchsorted(offsets, np.concatenate(hits), side="right") - 1)
        if self.step > 1:
            where = where[where % self.step == 0] // self.step
        return where.astype(np.int64)


@dataclass(frozen=True, eq=False)
class GoldenColumns:
    """The checked golden items, one value per item in input order.

    Attributes
    ----------
    item_id : pyarrow.Array
        Item ids (``string``, or ``large_string`` past 2 GiB of text), unique.
    is_answer : numpy.ndarray
        True for ANSWER items, False for REFUSE items.
    required_source : pyarrow.Array
        The source an ANSWER item must cite; null for REFUSE items.
    keywords : pyarrow.ListArray
        Literal keywords (``list<string>``); empty for REFUSE items.
    line : numpy.ndarray
        Line (or row) number in the input (int64).
    """

    item_id: pa.Array
    is_answer: np.ndarray
    required_source: pa.Array
    keywords: pa.ListArray
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.line)

    def to_frame(self) -> pd.DataFrame:
        """The golden DataFrame (see :attr:`buddy_eval.EvalInput.golden`)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "item_id": pd.Series(large_strings(self.item_id), dtype="str"),
                "item_type": pd.Categorical.from_codes(
                    np.where(self.is_answer, 0, 1).astype(np.int8), categories=list(ITEM_TYPES)
                ),
                "required_source": pd.Series(large_strings(self.required_source), dtype="str"),
                "keywords": pd.Series(self.keywords, dtype=pd.ArrowDtype(self.keywords.type)),
                "line": self.line,
            }
        )


@dataclass(frozen=True, eq=False)
class ResultColumns:
    """The checked result lines, one value per line in input order.

    Attributes
    ----------
    version, item_id : pyarrow.Array
        Version labels and golden ids (``string``, or ``large_string`` past 2 GiB).
    cited : pyarrow.Array
        The cited source; null for ``-``.
    refused : numpy.ndarray
        The Y/N flag as bool.
    answer : Texts
        The answer texts, possibly empty. For a loaded file they are a view on
        the file's bytes, which stay in memory as long as the columns do.
    line : numpy.ndarray
        Line (or row) number in the input (int64).
    """

    version: pa.Array
    item_id: pa.Array
    cited: pa.Array
    refused: np.ndarray
    answer: Texts
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.line)

    def to_frame(self) -> pd.DataFrame:
        """The results DataFrame (see :attr:`buddy_eval.EvalInput.results`)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "version": pd.Series(large_strings(self.version), dtype="str"),
                "item_id": pd.Series(large_strings(self.item_id), dtype="str"),
                "cited": pd.Series(large_strings(self.cited), dtype="str"),
                "refused": self.refused,
                "answer": pd.Series(self.answer.column(), dtype="str"),
                "line": self.line,
            }
        )


@dataclass(frozen=True, eq=False)
class JoinCodes:
    """The results' version labels and item ids as integer codes, hashed once.

    Attributes
    ----------
    versions : tuple of str
        Version labels in order of first appearance.
    version : numpy.ndarray
        Per result row, the position of its label in ``versions`` (-1 when missing).
    item : numpy.ndarray
        Per result row, the golden row of its ``item_id``; -1 for an id not in
        the golden set (or missing).
    """

    versions: tuple[str, ...]
    version: np.ndarray
    item: np.ndarray
