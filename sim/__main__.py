"""``python -m sim SUBCOMMAND ...``: the simulator from the command line, one JSON object out.

Subcommands: dist, run, tubes, theory, roofline, tree (run, tubes, budget). A bad argument prints one
line and exits with 2.
Context tokens are separated by spaces: ", when" is the two tokens "," and "when".
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from . import examples, roofline, theory, tree_budget, tree_cost
from . import tree as trees
from .ngram import MODEL_ORDERS, load_models
from .speculative import DRAFTS, GAMMA_MAX, RULES, generate
from .tree_rules import NATURAL, RULES as TREE_RULES, TOKENS_MAX as TREE_TOKENS_MAX, generate_tree
from .tree_shape import BRANCH_MAX, N_MAX
from .tree_tubes import STAR, run_tree_tubes, star, tree_tubes_context
from .tubes import run_tubes

LANGS = ("en", "zh")


class ArgumentError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line on stderr and exit status 2, never a usage dump."""

    def error(self, message):
        raise ArgumentError(message)


def int_in(lo: int, hi: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number from {lo} to {hi}, got {text!r}")
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be from {lo} to {hi}, got {value}")
        return value
    return parse


def float_in(lo: float, hi: float | None):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
        if not (value >= lo and (hi is None or value <= hi)):
            raise argparse.ArgumentTypeError(f"must be from {lo} to {hi if hi is not None else 'any'}, got {text}")
        return value
    return parse


def context_ids(model, text: str | None, lang: str) -> list[int]:
    tokens = text.split() if text is not None else list(examples.tubes_context(lang))
    return model.encode(tokens)


def cmd_dist(args) -> dict:
    model = load_models(args.lang)[args.model]
    tokens = args.context.split()
    p = model.dist(model.encode(tokens))
    order = np.argsort(-p, kind="stable")
    if args.top:
        order = order[:args.top]
    return {"context": tokens, "model": args.model, "vocab_size": model.V,
            "probs": {model.vocab[i]: float(p[i]) for i in order}}


def cmd_run(args) -> dict:
    models = load_models(args.lang)
    target, draft = models["trigram"], models[args.draft]
    run = generate(target, draft, context_ids(target, args.context, args.lang), args.tokens, args.gamma,
                   np.random.default_rng(args.seed), greedy=args.greedy, rule=args.rule)
    out = run.to_json(target.vocab)
    keep = ("context", "tokens", "alpha", "acceptance_rate", "tokens_per_pass", "passes", "accepted_hist")
    return {k: out[k] for k in keep}


def cmd_tubes(args) -> dict:
    models = load_models(args.lang)
    target, draft = models["trigram"], models[args.draft]
    result = run_tubes(target, draft, context_ids(target, args.context, args.lang), args.rounds, args.trials,
                       np.random.default_rng(args.seed), rule=args.rule)
    result.pop("samples")
    return result


def cmd_theory(args) -> dict:
    return theory.summary(args.alpha, args.gamma, args.c)


def tree_plan(args) -> trees.Plan:
    sampling = args.sampling or ("top" if args.shape == "dynamic" or args.greedy else "wor")
    P = None
    if args.shape == "best":   # Sequoia's shape from the acceptance its own sampling gets
        table = tree_budget.budget_table(args.lang, args.draft, args.k, args.d)
        P = table["acceptance" if sampling == "top" else "sequoia_acceptance"]
    return trees.plan(args.shape, args.n, args.k, args.d, sampling, P)


def cmd_tree_run(args) -> dict:
    models = load_models(args.lang)
    target, draft = models["trigram"], models[args.draft]
    plan = tree_plan(args)
    run = generate_tree(target, draft, context_ids(target, args.context, args.lang), args.tokens, plan,
                        np.random.default_rng(args.seed), rule=args.rule, greedy=args.greedy)
    return run.to_json(target.vocab, trace=args.trace)


def cmd_tree_tubes(args) -> dict:
    models = load_models(args.lang)
    target, draft = models["trigram"], models[args.draft]
    tokens = args.context.split() if args.context is not None else list(tree_tubes_context(args.lang))
    plan = trees.Plan.fixed(star(args.k), args.sampling)  # the first token needs the root's children only
    result = run_tree_tubes(target, draft, target.encode(tokens), plan, args.rule or NATURAL[args.sampling],
                            args.rounds, args.trials, np.random.default_rng(args.seed))
    result.pop("samples")
    return result


def cmd_tree_budget(args) -> dict:
    table = tree_budget.budget_table(args.lang, args.draft, args.k, args.d)
    roof = (args.gpu, args.model, args.batch, args.context)
    return {"table": table, "curves": tree_cost.curves(table, *roof, args.c),
            "batch_scan": tree_cost.batch_scan(table, args.gpu, args.model, args.context, args.c)}


def add_tree_cli(sub) -> None:
    """``python -m sim tree run|tubes|budget``: one tree pass after another, tubes for trees, and
    what a node budget buys on the roofline."""
    tree = sub.add_parser("tree", help="token trees: a run, tubes, tokens and speed-up by node budget")
    tsub = tree.add_subparsers(dest="tree_command", required=True, parser_class=Parser)
    shapes = dict(n=int_in(1, N_MAX), k=int_in(1, BRANCH_MAX), d=int_in(1, N_MAX))
    r = tsub.add_parser("run", help="write N tokens, a tree each pass; one pass traced in full")
    t = tsub.add_parser("tubes", help="plain sampling vs a tree pass's first token")
    b = tsub.add_parser("budget", help="tokens per pass and speed-up against the node budget")
    for p in (r, t, b):
        p.add_argument("--lang", choices=LANGS, required=True)
        p.add_argument("--draft", choices=DRAFTS, default="bigram")
        p.add_argument("--k", type=shapes["k"], default={r: 2, t: STAR, b: 4}[p], help="children per node")
    for p in (r, t):
        p.add_argument("--sampling", choices=trees.SAMPLINGS,
                       default=None if p is r else "wor", help="default: wor (dynamic, greedy: top)")
        p.add_argument("--rule", choices=TREE_RULES, help="default: the sampling's own (exact) rule")
        p.add_argument("--seed", type=int_in(0, 2**63 - 1), required=True)
        p.add_argument("--context", help="tokens separated by spaces (default: chosen from the data)")
    for p in (r, b):
        p.add_argument("--d", type=shapes["d"], default=3 if p is r else 8, help="depth limit")
    r.add_argument("--shape", choices=trees.SHAPES, default="kary")
    r.add_argument("--n", type=shapes["n"], default=8, help="node budget: guesses per pass")
    r.add_argument("--greedy", action="store_true")
    r.add_argument("--tokens", type=int_in(1, TREE_TOKENS_MAX), default=40)
    r.add_argument("--trace", type=int_in(0, TREE_TOKENS_MAX - 1), default=0, help="the pass traced")
    r.set_defaults(handler=cmd_tree_run)
    t.add_argument("--rounds", type=int_in(1, 100), default=10)
    t.add_argument("--trials", type=int_in(1, 1000), default=20)
    t.set_defaults(handler=cmd_tree_tubes)
    b.add_argument("--gpu", choices=tuple(roofline.GPUS), default="h100-sxm")
    b.add_argument("--model", choices=tuple(roofline.MODELS), default="llama-3.1-8b")
    b.add_argument("--batch", type=int_in(1, 1024), default=1)
    b.add_argument("--context", type=int_in(0, roofline.CONTEXT_MAX), default=4096,
                   help="cached tokens per stream")
    b.add_argument("--c", type=float_in(0.0, 1.0), default=0.05, help="draft cost per level / target step")
    b.set_defaults(handler=cmd_tree_budget)


def build_parser() -> Parser:
    parser = Parser(prog="python -m sim", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    d = sub.add_parser("dist", help="the next-token distribution of one model")
    d.add_argument("--lang", choices=LANGS, required=True)
    d.add_argument("--model", choices=tuple(MODEL_ORDERS), required=True)
    d.add_argument("--context", default="", help="tokens separated by spaces")
    d.add_argument("--top", type=int_in(1, 100000), help="only the N likeliest tokens")
    d.set_defaults(handler=cmd_dist)

    r = sub.add_parser("run", help="write N tokens by speculative decoding")
    r.add_argument("--lang", choices=LANGS, required=True)
    r.add_argument("--draft", choices=DRAFTS, default="bigram")
    r.add_argument("--gamma", type=int_in(0, GAMMA_MAX), required=True, help="0 = the target alone")
    r.add_argument("--greedy", action="store_true")
    r.add_argument("--rule", choices=RULES, default="exact")
    r.add_argument("--tokens", type=int_in(1, 1_000_000), required=True)
    r.add_argument("--seed", type=int_in(0, 2**63 - 1), required=True)
    r.add_argument("--context", help="tokens separated by spaces (default: the tubes' context)")
    r.set_defaults(handler=cmd_run)

    t = sub.add_parser("tubes", help="plain sampling vs speculative decoding's first token")
    t.add_argument("--lang", choices=LANGS, required=True)
    t.add_argument("--context", help="tokens separated by spaces (default: chosen from the data)")
    t.add_argument("--draft", choices=DRAFTS, default="bigram")
    t.add_argument("--rounds", type=int_in(1, 100000), required=True)
    t.add_argument("--trials", type=int_in(1, 100000), default=50)
    t.add_argument("--seed", type=int_in(0, 2**63 - 1), required=True)
    t.add_argument("--rule", choices=RULES, default="exact")
    t.set_defaults(handler=cmd_tubes)

    th = sub.add_parser("theory", help="expected tokens, speed-up, best γ, break-even α")
    th.add_argument("--alpha", type=float_in(0.0, 1.0), required=True)
    th.add_argument("--gamma", type=int_in(1, GAMMA_MAX), required=True)
    th.add_argument("--c", type=float_in(0.0, None), required=True, help="draft cost / target cost")
    th.set_defaults(handler=cmd_theory)

    roofline.add_cli(sub)
    add_tree_cli(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        result = args.handler(args)
    except (ArgumentError, ValueError) as exc:
        print(f"python -m sim: error: {exc}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
