"""Parameters over HTTP: the declarations of sim/params.py (read by sim/param.py), with messages in the reader's language.

`parse` turns a request's query into typed values or raises `ParamError` naming the first bad
parameter and its range (the API answers it as a JSON 400); pages use `parse_lenient`, which keeps
the default for a bad value and reports it, so the page shows a notice instead of failing.
"""
from __future__ import annotations

from typing import Mapping

from views.translation import gettext

from sim import param
from sim import params as P
from sim.param import N_, Param, ParamError


def parse(args: Mapping, spec: Mapping[str, Param]) -> dict:
    return param.parse(args, spec, gettext)


def parse_lenient(args: Mapping, spec: Mapping[str, Param]) -> tuple[dict, list[ParamError]]:
    return param.parse_lenient(args, spec, gettext)


CAPPED = N_("%(name)s must be %(allowed)s when γ is %(gamma)s; %(value)s is out of range.")
CAPPED_TRACED = N_("%(name)s must be %(allowed)s when γ is %(gamma)s and every pass is traced; "
                     "%(value)s is out of range.")


def cap_positions(v: dict, positions: int, message: str = CAPPED) -> None:
    """The joint cap of a run: tokens × (γ+1) target positions at most (the target reads every
    position of every pass). Raises ParamError naming ``tokens`` and its range at this γ.
    (``tokens`` has passed its own range already, so the cap only ever lowers it.)"""
    most = positions // (v["gamma"] + 1)
    if v["tokens"] > most:
        raise P.TOKENS.but(hi=most).error(gettext, message, gamma=v["gamma"], value=v["tokens"])
