"""``--slices PATH``, ``--slice-rule drop`` and ``--slice-margin M``: declared once for the
gate and the notebook (the ledger-recording path is the gate with ``--ledger``)."""

from __future__ import annotations

import argparse

from .._paired_settings import NO_SLICE
from .._phrases import HOLM
from .output import _margin

__all__ = ["add_slice_arguments", "slice_settings"]


def add_slice_arguments(parser: argparse.ArgumentParser) -> None:
    """The slice options of a subcommand that evaluates."""
    parser.add_argument(
        "--slices",
        default=None,
        metavar="PATH",
        help="a CSV file with the header id,slice: every figure is also computed per slice "
        f"(golden items not listed form the slice {NO_SLICE}); --details, json, the Markdown "
        "summary, JUnit and the HTML report show them; the three lines never change",
    )
    parser.add_argument(
        "--slice-rule",
        choices=("drop",),
        default=None,
        help="drop: BLOCK when a slice shows a clear drop (its exact paired test rejects at "
        f"0.05 after {HOLM} across the slices within the metric, and the drop is larger than "
        "--slice-margin); without it slices only inform (needs --slices)",
    )
    parser.add_argument(
        "--slice-margin",
        type=_margin,
        default=None,
        metavar="M",
        help="the drop a slice may show before --slice-rule drop blocks (default 0)",
    )


def slice_settings(args: argparse.Namespace) -> dict:
    """The :class:`~buddy_eval.Settings` keywords of the slice options, checked together."""
    from .._errors import InputError

    if args.slice_rule is not None and args.slices is None:
        raise InputError("--slice-rule needs slices: give --slices PATH (a CSV file id,slice)")
    if args.slice_margin is not None and args.slice_rule is None:
        raise InputError("--slice-margin is the margin of the slice rule: give --slice-rule drop")
    margin = 0.0 if args.slice_margin is None else args.slice_margin
    return {"slice_rule": args.slice_rule, "slice_margin": margin}
