"""``python -m sim SUBCOMMAND ...``: the simulator from the command line, one JSON object out.

Subcommands: dist, run, tubes, theory, roofline. A bad argument prints one line and exits with 2.
Context tokens are separated by spaces: ", when" is the two tokens "," and "when".
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from . import examples, roofline, theory
from .ngram import MODEL_ORDERS, load_models
from .speculative import DRAFTS, GAMMA_MAX, RULES, generate
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
