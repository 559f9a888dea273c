"""The checked input as pyarrow and numpy columns, and the DataFrames built from them.

Scoring works on these columns directly, so the command-line gate never
imports pandas; :attr:`buddy_eval.EvalInput.golden` and ``.results`` build
the DataFrames from them on first use. The answers are
:class:`~buddy_eval._kernels.Texts`, a view on the input's bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ._kernels import Texts, large_strings
from ._vocabulary import ITEM_TYPES

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ITEM_TYPES", "Texts", "GoldenColumns", "ResultColumns", "JoinCodes"]


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
                    np.where(self.is_answer, 0, 1).astype(np.int8),
                    categories=pd.Index(list(ITEM_TYPES)),
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
    trial : numpy.ndarray or None
        Repeated trials only (None otherwise): per result row, its 0-based
        trial number among the rows of the same (version, item id), in trial
        order (file order, or the DataFrame's ``trial`` column).
    """

    versions: tuple[str, ...]
    version: np.ndarray
    item: np.ndarray
    trial: np.ndarray | None = None
