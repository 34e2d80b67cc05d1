"""Verifying a token tree in one target pass: the exact rules, the tempting wrong ones, the run.

The target p is evaluated once at every node (the tree attention mask lets each node see only its
ancestors), then the walk starts at the root: at a node it either moves to one of the children or
stops and writes one token of the target's own. Every rule below keeps the text's distribution
equal to p's, on the trees it is meant for (``EXACT``):

* ``naive``: draw y from p at the node; if y is a child's token, move there, otherwise write y.
  Exact for any tree, whatever made it ("naive sampling", SpecInfer §4.3 after Theorem 4.2;
  Sequoia §2.2: "trivially maintains the target model output distribution … regardless of how
  the token tree was generated").
* ``pointmass``: check the children in order as guesses from a point-mass draft: keep child c with
  probability R(c), R being p with the children already refused removed and renormalised
  (max(0, R − δ_c) normalised; Leviathan et al. 2023's rule with q = δ_c), else remove c; when
  all are refused, write a token drawn from R. The same distribution as ``naive`` (a refused
  child's mass is handed to the rest), and what serving engines do for prompt-lookup and top-k
  drafts (sim.lookup for the chain; SGLang's ``tree_speculative_sampling_target_only`` does the
  same with one coin per node against the running sum of p over the children, as read in
  sgl-project/sglang-jax's kernel). Exact for any tree.
* ``specinfer``: SpecInfer's multi-step speculative sampling (§4.3, Algorithm 2, VerifyStochastic,
  lines 24–44): child x_s is kept with probability min(1, R(x_s)/q(x_s)); on a refusal the
  residual becomes R ← norm(max(0, R − q)) before the next sibling; when all are refused, write a
  token drawn from R. Theorem 4.2: exact when each child is an independent draw from q (``iid``).
  (Algorithm 2 takes the children in a random order; ours are independent draws, so the order
  they were drawn in is already a random one.)
* ``sequoia``: Sequoia's sampling and verification (Chen et al. 2024, arXiv:2402.12374, §3.2,
  Algorithm 2): as ``specinfer`` but the draft D the ratio and the residual use is q with the
  children already refused removed and renormalised (lines 9–16): R ← norm(max(0, R − D)), then
  D[s_i] ← 0, D ← norm(D). Exact when the children were drawn without replacement (``wor``): then
  child i really was drawn from that D (proof in its Appendix F.2.1). Checked against the authors'
  code (Infini-AI-Lab/Sequoia, ``Tree/SpecTree.py``, ``accept_step``).

The tempting wrong rules are the right ones on the wrong trees (``WRONG``), plus one slip:

* ``specinfer`` on ``top`` children: the draft's q in the ratio although the children were not
  drawn from q (SpecInfer §4.3 even says MSS "supports expansion-based method with one SSM and
  top-k sampling"; the chi-square test says otherwise);
* ``specinfer`` on ``wor`` children: q not renormalised after each drawn sibling;
* ``sequoia`` on ``iid`` children: the without-replacement adjustment although a refused token
  can be drawn again;
* ``stale`` on ``iid`` children: SpecInfer's ratio with p itself for every sibling, the residual
  norm(max(0, p − q)) only for the token written at the end: the residual not updated between
  siblings.

Greedy mode is SpecInfer's VerifyGreedy (Algorithm 2, lines 16–22): move to the child whose token
is p's arg-max, else write p's arg-max (the tree then holds the draft's likeliest tokens).

Random numbers, in order: the tree's draws (``sim.tree.build``), then one uniform per check (one
per visited node for ``naive``), then one for the token the pass ends with. On a chain with
``specinfer``, ``sequoia`` or ``stale`` this is exactly ``sim.speculative``'s order and rule, so
``generate_tree`` writes the tokens ``sim.speculative.generate`` writes from the same seed.

Metrics as engines print them (vLLM, ``vllm/v1/spec_decode/metrics.py``, SpecDecodingLogging):
mean acceptance length = 1 + accepted / drafts (a draft is one pass that checked guesses; the 1 is
the token of the target's own, "conventionally includ[ing] the bonus token"); acceptance at
position i = passes that kept at least i + 1 guesses / drafts; draft acceptance rate = accepted /
guesses drafted (for a tree, most guesses sit on branches the walk never takes).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from ..dist import Dist, residual
from ..ngram import NGramModel
from ..speculative import CONTEXT_KEPT
from .fill import SAMPLINGS, Plan, Tree, without

RULES = ("naive", "pointmass", "specinfer", "sequoia", "stale")
# The rule a tree made by each sampling is meant to be checked with (serving engines' choice).
NATURAL = {"top": "pointmass", "iid": "specinfer", "wor": "sequoia"}
EXACT = frozenset({(s, r) for s in SAMPLINGS for r in ("naive", "pointmass")}
                  | {("iid", "specinfer"), ("wor", "sequoia")})
# The tempting mistakes kept for teaching: (sampling, rule) → what goes wrong.
WRONG = {
    ("top", "specinfer"): "the draft's q in the ratio, but top-k children were not drawn from q",
    ("wor", "specinfer"): "q not renormalised after each sibling drawn without replacement",
    ("iid", "sequoia"): "the without-replacement adjustment on independent draws",
    ("iid", "stale"): "the residual not updated between siblings",
}
TOKENS_MAX = 200


def is_exact(sampling: str, rule: str, chain: bool = False) -> bool:
    """Whether the rule keeps p's distribution on trees filled by ``sampling``. On a chain (one
    child per node) iid and wor are the same draw, and the three ratio rules are Leviathan's."""
    if chain and sampling in ("iid", "wor") and rule in ("specinfer", "sequoia", "stale"):
        return True
    return (sampling, rule) in EXACT


def check_rule(rule: str) -> None:
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}")


@dataclass
class Check:
    """One child checked at a node: kept with probability min(1, num/den) (pointmass: den = 1)."""

    node: int
    token: int
    r: float
    num: float                      # R(x): the residual's mass on x when it is checked
    den: float                      # the draft's mass on x the rule divides by
    accepted: bool
    residual: Dist | None = field(default=None, repr=False)   # R after a refusal

    @property
    def accept_prob(self) -> float:
        if self.den <= 0.0:
            return 1.0 if self.num > 0.0 else 0.0
        return min(1.0, self.num / self.den)


@dataclass
class Visit:
    """The walk at one node: the checks of its children, or (naive, greedy) the target's draw."""

    node: int
    p: Dist = field(repr=False)
    checks: list[Check] = field(default_factory=list)
    u: float | None = None          # naive: the uniform that drew y from p
    y: int | None = None            # naive / greedy: the target's token at this node
    to: int | None = None           # the child moved to, None if the walk stopped here
    final: Dist | None = field(default=None, repr=False)  # where the last token was drawn from
    final_u: float | None = None


@dataclass
class TreeStep:
    tree: Tree
    rule: str
    greedy: bool
    visits: list[Visit]
    target: NGramModel = field(repr=False)
    written: list[tuple[int, str, int | None]] = field(default_factory=list)  # (token, kind, node)

    @property
    def n_accepted(self) -> int:
        return sum(1 for _, kind, _ in self.written if kind == "kept")

    @property
    def accepted_path(self) -> list[int]:
        return [v.node for v in self.visits]

    def p_at(self, v: int) -> Dist:
        """The target's distribution at node v (what the pass computed there)."""
        return self.target.sparse(self.tree.context_of(v))

    def p_of_nodes(self) -> list[float]:
        """p(token) at each node's parent, from the target's one pass (1.0 for the root)."""
        dists: dict[int, Dist] = {}
        out = [1.0]
        for v, u in enumerate(self.tree.parents, 1):
            if u not in dists:
                dists[u] = self.p_at(u)
            out.append(dists[u][self.tree.tokens[v]])
        return out

    def to_json(self, vocab: Sequence[str], top: int = 8) -> dict:
        """One pass, step by step: the tree (each node's token, q, p, parent, depth), the walk
        down with every check (its uniform, ratio, verdict and the residual after a refusal), the
        tokens written and the attention mask. See docs/design.md, "Tree pass JSON"."""
        def top_of(d):
            return [[vocab[i], p] for i, p in d.top(top)] if d is not None and top > 0 else None

        visits = []
        for vis in self.visits:
            checks = [{"node": c.node, "token": vocab[c.token], "r": c.r, "residual_p": c.num,
                       "q": c.den, "accept_prob": c.accept_prob, "accepted": c.accepted,
                       "residual_top": top_of(c.residual)} for c in vis.checks]
            visits.append({"node": vis.node, "p_top": top_of(vis.p), "checks": checks,
                           "u": vis.u, "y": vocab[vis.y] if vis.y is not None else None,
                           "to": vis.to, "final_top": top_of(vis.final), "final_u": vis.final_u})
        tree = self.tree.to_json(vocab, self.p_of_nodes())
        # kept: on the walk; refused: checked and refused (naive, greedy: not the target's
        # token); unchecked: its parent was visited but a sibling was kept first; unvisited.
        status = {v: "unvisited" for v in range(1, self.tree.n + 1)}
        for vis in self.visits:
            checked = {c.node for c in vis.checks}
            for c in self.tree.children[vis.node]:
                status[c] = ("kept" if c == vis.to else "refused" if c in checked or vis.y is not None
                             else "unchecked")
        for node in tree["nodes"][1:]:
            node["status"] = status[node["id"]]
        return {"rule": self.rule, "greedy": self.greedy, "tree": tree, "walk": visits,
                "written": [{"token": vocab[t], "kind": kind, "node": node} for t, kind, node in self.written],
                "accepted_path": self.accepted_path, "n_accepted": self.n_accepted}


def walk(tree: Tree, target: NGramModel, rng: np.random.Generator, rule: str = "pointmass",
         greedy: bool = False) -> TreeStep:
    """The target's one pass over ``tree`` and the walk down it under ``rule``."""
    check_rule(rule)
    step = TreeStep(tree, rule, greedy, [], target)
    v = 0
    while True:
        p = step.p_at(v)
        vis = Visit(v, p)
        step.visits.append(vis)
        kids = tree.children[v]
        if greedy:
            vis.y = p.argmax()
            vis.to = next((c for c in kids if tree.tokens[c] == vis.y), None)
        elif not kids:
            pass
        elif rule == "naive":
            vis.u = float(rng.random())
            vis.y = p.sample(vis.u)
            vis.to = next((c for c in kids if tree.tokens[c] == vis.y), None)
        else:
            vis.to, vis.final = check_children(((c, tree.tokens[c]) for c in kids), p,
                                               tree.q_dists[v], rng, rule, vis.checks)
        if vis.to is not None:
            step.written.append((tree.tokens[vis.to], "kept", vis.to))
            v = vis.to
            continue
        kind = "replaced" if kids else "bonus"
        if greedy or (kids and rule == "naive"):
            tok = vis.y                 # the target's own draw was not among the children
        else:
            vis.final = vis.final if kids else p
            vis.final_u = float(rng.random())
            tok = vis.final.sample(vis.final_u)
        step.written.append((tok, kind, None))
        return step


def check_children(children: Iterable[tuple[int, int]], p: Dist, q: Dist, rng: np.random.Generator,
                   rule: str, checks: list[Check] | None = None) -> tuple[int | None, Dist | None]:
    """Check a node's children, (node id, token) in order, against the target p there (q: the
    draft there); the child kept (or None) and, if none is, the distribution the pass's last token
    is drawn from. ``children`` may be drawn lazily: only those checked are asked for."""
    checks = [] if checks is None else checks
    R, D = p, q                         # the residual; Sequoia's draft with refused tokens removed
    for c, x in children:
        if rule == "pointmass":
            num, den = R[x], 1.0
        elif rule == "sequoia":
            num, den = R[x], D[x]
        elif rule == "stale":
            num, den = p[x], q[x]
        else:
            num, den = R[x], q[x]
        r = float(rng.random())
        # r < num/den as sim.speculative.verify writes it; a token with no draft mass left
        # (Sequoia's D after a repeat, a wrong rule's case) is kept only if R still has it
        accepted = r < num / den if den > 0.0 else num > 0.0
        check = Check(c, x, r, num, den, accepted)
        checks.append(check)
        if accepted:
            return c, None
        if rule == "pointmass":
            R = without(R, [x])
        elif rule == "sequoia":
            R = residual(R, D)
            D = without(D, [x])
        elif rule == "specinfer":
            R = residual(R, q)
        check.residual = R if rule != "stale" else None
    return None, (residual(p, q) if rule == "stale" else R)


def tree_step(target: NGramModel, draft: NGramModel, context: Sequence[int], plan: Plan,
              rng: np.random.Generator, *, rule: str | None = None, greedy: bool = False) -> TreeStep:
    """One draft-then-verify cycle with a tree from ``plan``; ``rule`` defaults to the plan's
    natural one (``NATURAL``). Greedy mode needs a plan filled with the draft's likeliest tokens."""
    rule = rule or NATURAL[plan.sampling]
    check_rule(rule)
    if greedy and plan.sampling != "top":
        raise ValueError("greedy mode checks the draft's likeliest tokens: sampling 'top'")
    tree = plan.build(draft, context[-CONTEXT_KEPT:], rng)
    return walk(tree, target, rng, rule, greedy)


@dataclass
class TreeRun:
    context: tuple[int, ...]
    tokens: list[int]
    steps: list[TreeStep]

    def stats(self) -> dict:
        """Tokens per pass and the metrics engines print (see the module docstring)."""
        return engine_metrics([(s.tree.n, s.n_accepted) for s in self.steps])

    def to_json(self, vocab: Sequence[str], top: int = 8, trace: int | None = 0) -> dict:
        """The run's tokens and metrics; ``trace`` (a pass number) adds that pass in full."""
        out = {"context": [vocab[i] if i >= 0 else "<unk>" for i in self.context],
               "tokens": [vocab[i] for i in self.tokens], **self.stats(),
               "written_per_pass": [len(s.written) for s in self.steps]}
        if trace is not None:
            if not 0 <= trace < len(self.steps):
                raise ValueError(f"trace must be a pass number from 0 to {len(self.steps) - 1}")
            out["trace"] = {"pass": trace, **self.steps[trace].to_json(vocab, top)}
        return out


def engine_metrics(passes: Sequence[tuple[int, int]]) -> dict:
    """From (guesses drafted, guesses kept) per pass: what vLLM's SpecDecodingLogging prints."""
    drafts = [(n, a) for n, a in passes if n > 0]
    num_drafts = len(drafts)
    drafted = sum(n for n, _ in drafts)
    accepted = sum(a for _, a in drafts)
    longest = max((a for _, a in drafts), default=0)
    per_pos = [sum(1 for _, a in drafts if a > i) / num_drafts for i in range(longest)] if num_drafts else []
    return {
        "passes": len(passes),
        "tokens_per_pass": (sum(a + 1 for _, a in passes) / len(passes)) if passes else None,
        "num_drafts": num_drafts,
        "num_draft_tokens": drafted,
        "num_accepted_tokens": accepted,
        "mean_acceptance_length": 1 + accepted / num_drafts if num_drafts else None,
        "acceptance_per_position": per_pos,
        "draft_acceptance_rate": accepted / drafted if drafted else None,
    }


def generate_tree(target: NGramModel, draft: NGramModel, context: Sequence[int], n_tokens: int,
                  plan: Plan, rng: np.random.Generator, *, rule: str | None = None,
                  greedy: bool = False) -> TreeRun:
    """Write ``n_tokens`` tokens after ``context``, one tree pass after another (the last pass
    may write past ``n_tokens``; ``tokens`` is cut there, the metrics count every pass whole)."""
    if not isinstance(n_tokens, (int, np.integer)) or not 1 <= n_tokens <= 1_000_000:
        raise ValueError("n_tokens must be an integer from 1 to 1000000")
    ctx = list(context)
    start = len(ctx)
    steps = []
    while len(ctx) - start < n_tokens:
        step = tree_step(target, draft, ctx[-CONTEXT_KEPT:], plan, rng, rule=rule, greedy=greedy)
        ctx.extend(t for t, _, _ in step.written)
        steps.append(step)
    return TreeRun(tuple(context), ctx[start:start + n_tokens], steps)
