"""The paired-statistics core: exact tests, intervals and readiness, numbers in, numbers out.

These are the formulas both the release gate (:mod:`buddy_eval._paired`) and
the check-based task comparison (:mod:`buddy_eval.tasks._comparison`) use, so
a p-value, an interval or the readiness rule means the same thing in both:

- :class:`PairedTable`, the 2x2 table of two versions on the same items
  (both pass, fixed, regressed, both fail), and its exact difference;
- the **exact McNemar test** on the discordant pairs (:func:`mcnemar_exact`,
  :func:`mcnemar_exact_many` for many tables in one call);
- the **Wilson score interval** of a rate (:func:`wilson_interval`) and
  **Newcombe's hybrid score interval** for a paired difference
  (:func:`paired_diff_interval`);
- **readiness**: :data:`MIN_PAIRED` pairs before a p-value or a difference
  interval is computed (:func:`is_ready`);
- a **sample-size hint** (:func:`required_paired_n`);
- exact one-sided **upper bounds** on a rate (:func:`exact_upper_bound`);
- the exact **Wilcoxon signed-rank** test on paired deltas
  (:func:`signed_rank_test`), the exact **sign test** (:func:`sign_test`) and
  **Holm** adjusted p-values (:func:`holm`);
- the exact **power** of the exact McNemar test and the smallest golden set
  that reaches a power (:func:`mcnemar_exact_power`,
  :func:`required_paired_n_exact`);
- **non-inferiority** (:func:`noninferiority_bound`, :func:`noninferior`);
- one **reading** of an interval and a p-value that never contradicts the
  exact test (:func:`reading`).

- for repeated trials, items as the units: pass@k and pass^k, a sign-flip
  test on per-item differences, Wilson and Newcombe intervals on mean item
  rates at the Korn-Graubard effective size (:func:`trials_rate_interval`,
  :func:`paired_trials_interval`; the variance bound over the items,
  :func:`rate_interval` and :func:`paired_rates_interval`, below
  :data:`EFFECTIVE_MIN_ITEMS` items; exactly the single-trial ones with one
  trial per item), within-item variance and what twice the items or twice
  the trials would do to an interval (:func:`interval_outlook`).

One module per family: :mod:`._proportions` (the 2x2 table, McNemar, Wilson,
Newcombe, bounds, readiness), :mod:`._ranks` (signed-rank, sign test, Holm),
:mod:`._power` (exact power and sample size), :mod:`._interpretation`
(non-inferiority, the reading rule), :mod:`._repeated` and
:mod:`._effective` (repeated trials).
Everything returns unrounded numbers (ints, Fractions, floats); only the
views round, through :mod:`buddy_eval.formatting`. scipy is imported inside
the functions that need it, so importing this package costs nothing, and only
``scipy.special`` (:mod:`._distributions`): ``scipy.stats`` alone takes longer
to import than the gate takes to run.
"""

from .._vocabulary import MIN_PAIRED
from ._effective import (
    BOUND_DIFF_METHOD,
    BOUND_RATE_METHOD,
    EFFECTIVE_DIFF_METHOD,
    EFFECTIVE_MIN_COUNT,
    EFFECTIVE_MIN_ITEMS,
    EFFECTIVE_RATE_METHOD,
    Interval,
    IntervalOutlook,
    interval_outlook,
    paired_trials_interval,
    trials_rate_interval,
)
from ._interpretation import READING_CODES, noninferior, noninferiority_bound, reading
from ._power import DEFAULT_DISCORDANCE, mcnemar_exact_power, required_paired_n_exact
from ._proportions import (
    PairedTable,
    exact_upper_bound,
    is_ready,
    mcnemar_exact,
    mcnemar_exact_many,
    paired_diff_interval,
    required_paired_n,
    wilson_interval,
    zero_event_upper_bound,
)
from ._ranks import SIGNED_RANK_EXACT_MAX, SignedRankResult, holm, sign_test, signed_rank_test
from ._repeated import (
    ITEM_FLIP_EXACT_MAX_CELLS,
    ITEM_FLIP_MEET_MAX,
    PAIRED_RATES_INTERVAL_METHOD,
    RATE_INTERVAL_METHOD,
    SE_TIE_TOLERANCE,
    ItemDifferencesResult,
    TrialPlan,
    VarianceComponents,
    item_variance_components,
    mean_pass_at_k,
    mean_pass_hat_k,
    more_trials_or_items,
    paired_item_differences_test,
    paired_rates_interval,
    pass_at_k,
    pass_hat_k,
    rate_interval,
    within_item_variance_share,
)

__all__ = [
    "BOUND_DIFF_METHOD",
    "BOUND_RATE_METHOD",
    "EFFECTIVE_DIFF_METHOD",
    "EFFECTIVE_MIN_COUNT",
    "EFFECTIVE_MIN_ITEMS",
    "EFFECTIVE_RATE_METHOD",
    "Interval",
    "IntervalOutlook",
    "interval_outlook",
    "paired_trials_interval",
    "trials_rate_interval",
    "DEFAULT_DISCORDANCE",
    "ITEM_FLIP_EXACT_MAX_CELLS",
    "ITEM_FLIP_MEET_MAX",
    "MIN_PAIRED",
    "READING_CODES",
    "SE_TIE_TOLERANCE",
    "SIGNED_RANK_EXACT_MAX",
    "ItemDifferencesResult",
    "PairedTable",
    "SignedRankResult",
    "TrialPlan",
    "VarianceComponents",
    "exact_upper_bound",
    "holm",
    "is_ready",
    "item_variance_components",
    "mcnemar_exact",
    "mcnemar_exact_many",
    "mcnemar_exact_power",
    "mean_pass_at_k",
    "mean_pass_hat_k",
    "more_trials_or_items",
    "noninferior",
    "noninferiority_bound",
    "paired_diff_interval",
    "paired_item_differences_test",
    "PAIRED_RATES_INTERVAL_METHOD",
    "RATE_INTERVAL_METHOD",
    "paired_rates_interval",
    "rate_interval",
    "pass_at_k",
    "pass_hat_k",
    "reading",
    "required_paired_n",
    "required_paired_n_exact",
    "sign_test",
    "signed_rank_test",
    "wilson_interval",
    "within_item_variance_share",
    "zero_event_upper_bound",
]
