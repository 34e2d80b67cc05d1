"""A statistical check the exactness tests share."""
from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.stats import chisquare


def joint_pvalue(target, ctx, pairs):
    """Chi-square of observed (x1, x2) pairs against p(x1 | ctx) · p(x2 | ctx, x1): the first two
    tokens written. Pairs expected fewer than 5 times are pooled into one bin (the test's rule of
    thumb), over the 40 likeliest first tokens."""
    p1 = target.dist(ctx)
    counts = Counter(pairs)
    n = len(pairs)
    obs, exp = [], []
    for x1 in (int(i) for i in np.argsort(-p1)[:40]):
        p2 = target.dist(list(ctx) + [x1])
        for x2 in np.flatnonzero(n * p1[x1] * p2 >= 5):
            obs.append(counts.get((x1, int(x2)), 0))
            exp.append(n * p1[x1] * p2[x2])
    obs.append(n - sum(obs))
    exp.append(n - sum(exp))
    return chisquare(obs, np.array(exp) * sum(obs) / sum(exp))[1]
