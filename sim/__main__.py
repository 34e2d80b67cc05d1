"""``python -m sim SUBCOMMAND ...``: the simulator from the command line, one JSON object out.

Subcommands: dist, run, tubes, theory, roofline, tree (run, tubes, budget). A bad argument prints one
line and exits with 2.
Context tokens are separated by spaces: ", when" is the two tokens "," and "when".
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

import numpy as np

from . import examples, roofline, theory
from . import tree as trees
from . import params as P
from .param import add_argument
from .ngram import load_models
from .speculative import generate
from .tree import BRANCH_MAX, N_MAX, NATURAL, STAR, generate_tree, run_tree_tubes, star, tree_tubes_context
from .tubes import run_tubes


class ArgumentError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line on stderr and exit status 2, never a usage dump."""

    def error(self, message):
        raise ArgumentError(message)


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


def cmd_roofline(args) -> dict:
    if args.gpu == "list":
        return {"gpus": {k: asdict(g) for k, g in roofline.GPUS.items()}}
    if args.model == "list":
        return {"models": {k: asdict(m) for k, m in roofline.MODELS.items()}}
    out = roofline.decode_step(args.gpu, args.model, args.batch, args.context)
    if args.lanes is not None:
        out["lanes"] = roofline.lanes(args.gpu, args.model, args.lanes)
    if args.gamma is not None:
        spec = roofline.speculative(args.gpu, args.model, args.batch, args.context, args.gamma, args.alpha, args.c)
        out["speculative"] = spec
        out["tokens_per_s_spec"] = spec["tokens_per_s_spec"]
        out["speedup"] = spec["speedup"]
        out["breakeven_batch"] = roofline.breakeven_batch(args.gpu, args.model, args.context, args.gamma,
                                                          args.alpha, args.c)
    return out


# Each subcommand's options are the API's declarations (sim/params.py), with the command line's
# larger ranges where it runs longer than a web request may.
_TOKENS = P.TOKENS.but(hi=P.CLI_TOKENS_MAX, default=None)
_SEED = P.SEED.but(hi=P.CLI_SEED_MAX, default=None)
_CONTEXT = P.CONTEXT.but(help="tokens separated by spaces (default: the language's example)",
                         max_len=P.CLI_TOKENS_MAX, default=None)


def tree_plan(args) -> trees.Plan:
    sampling = args.sampling or ("top" if args.shape == "dynamic" or args.greedy else "wor")
    P = None
    if args.shape == "best":   # Sequoia's shape from the acceptance its own sampling gets
        table = trees.budget_table(args.lang, args.draft, args.k, args.d)
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
    table = trees.budget_table(args.lang, args.draft, args.k, args.d)
    roof = (args.gpu, args.model, args.batch, args.context)
    return {"table": table, "curves": trees.curves(table, *roof, args.c),
            "batch_scan": trees.batch_scan(table, args.gpu, args.model, args.context, args.c)}


def add_tree_cli(sub) -> None:
    """``python -m sim tree run|tubes|budget``: one tree pass after another, tubes for trees, and
    what a node budget buys on the roofline. The tree's parameters are sim/params.py's (the page's
    and the API's), with the command line's larger ranges and its own defaults."""
    arg = add_argument
    k = P.TREE_K.but(hi=BRANCH_MAX, help="children per node (EAGLE-2: its top-k; tubes: the star's)")
    d = P.TREE_D.but(hi=N_MAX)
    tree = sub.add_parser("tree", help="token trees: a run, tubes, tokens and speed-up by node budget")
    tsub = tree.add_subparsers(dest="tree_command", required=True, parser_class=Parser)
    r = tsub.add_parser("run", help="write N tokens, a tree each pass; one pass traced in full")
    t = tsub.add_parser("tubes", help="plain sampling vs a tree pass's first token")
    b = tsub.add_parser("budget", help="tokens per pass and speed-up against the node budget")
    for p in (r, t, b):
        arg(p, P.LANG, required=True)
        arg(p, P.DRAFT)
    for p in (r, t):
        arg(p, P.TREE_SAMPLING_ANY if p is r else P.SAMPLING)
        arg(p, P.TREE_RULE_ANY)
        arg(p, _SEED, required=True)
        arg(p, _CONTEXT.but(help="tokens separated by spaces (default: chosen from the data)"))
    arg(r, k.but(default=2))
    arg(r, d.but(default=3))
    arg(r, P.SHAPE.but(default="kary"))
    arg(r, P.TREE_N)
    arg(r, P.GREEDY)
    arg(r, P.TOKENS)
    arg(r, P.TREE_TRACE)
    r.set_defaults(handler=cmd_tree_run)
    arg(t, k.but(default=STAR))
    arg(t, P.ROUNDS.but(hi=100, default=10))
    arg(t, P.TRIALS.but(hi=1000, default=20))
    t.set_defaults(handler=cmd_tree_tubes)
    arg(b, k.but(default=4))
    arg(b, d.but(default=8))
    arg(b, P.GPU)
    arg(b, P.MODEL)
    arg(b, P.BATCH.but(default=1))
    arg(b, P.CTX.but(name="context"))
    arg(b, P.C.but(default=0.05, help="one draft level's cost, in target runs"))
    b.set_defaults(handler=cmd_tree_budget)


def build_parser() -> Parser:
    parser = Parser(prog="python -m sim", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    arg = add_argument

    d = sub.add_parser("dist", help="the next-token distribution of one model")
    arg(d, P.LANG, required=True)
    arg(d, P.NGRAM, required=True)
    arg(d, _CONTEXT.but(default=""))
    arg(d, P.TOP.but(hi=P.CLI_TOKENS_MAX, default=None), help="only the N likeliest tokens")
    d.set_defaults(handler=cmd_dist)

    r = sub.add_parser("run", help="write N tokens by speculative decoding")
    arg(r, P.LANG, required=True)
    arg(r, P.DRAFT)
    arg(r, P.GAMMA_RUN, required=True)
    arg(r, P.GREEDY)
    arg(r, P.RULE)
    arg(r, _TOKENS, required=True)
    arg(r, _SEED, required=True)
    arg(r, _CONTEXT)
    r.set_defaults(handler=cmd_run)

    t = sub.add_parser("tubes", help="plain sampling vs speculative decoding's first token")
    arg(t, P.LANG, required=True)
    arg(t, _CONTEXT)
    arg(t, P.DRAFT)
    arg(t, P.ROUNDS.but(hi=P.CLI_DRAWS_MAX, default=None), required=True)
    arg(t, P.TRIALS.but(hi=P.CLI_DRAWS_MAX))
    arg(t, _SEED, required=True)
    arg(t, P.RULE)
    t.set_defaults(handler=cmd_tubes)

    th = sub.add_parser("theory", help="expected tokens, speed-up, best γ, break-even α")
    arg(th, P.ALPHA_GIVEN.but(default=None), required=True)
    arg(th, P.GAMMA_ANY.but(default=None), required=True)
    arg(th, P.C.but(hi=None, default=None), required=True)
    th.set_defaults(handler=cmd_theory)

    ro = sub.add_parser("roofline", help="cost of one decoding step on a GPU, plain and speculative",
                        description="Roofline model of one decoding step (on paper). "
                                    "Use --gpu list or --model list to see the presets.")
    arg(ro, P.GPU.but(choices=P.GPU.choices + ("list",)))
    arg(ro, P.MODEL.but(choices=P.MODEL.choices + ("list",)))
    arg(ro, P.BATCH.but(hi=P.CLI_BATCH_MAX, default=1))
    arg(ro, P.CTX.but(name="context", default=0))
    arg(ro, P.LANES.but(default=None), help="also report n lanes sharing one read")
    arg(ro, P.GAMMA_ANY.but(default=None), help="also report speculation with γ guesses per cycle")
    arg(ro, P.ALPHA_GIVEN.but(default=0.8))
    arg(ro, P.C)
    ro.set_defaults(handler=cmd_roofline)
    add_tree_cli(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        result = args.handler(args)
    except (ArgumentError, ValueError) as exc:  # a ParamError is a ValueError
        print(f"python -m sim: error: {exc}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
