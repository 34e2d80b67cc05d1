"""python -m sim and python -m corpus from the command line: JSON out, one-line errors.

Most calls run the command line's main() in this process (what `python -m sim` runs, without a
new interpreter importing numpy and loading the models each time); test_cli_subprocess* start
the real command.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim import params as P
from sim import roofline as r
from tests.cli import run_main

REPO = Path(__file__).resolve().parent.parent


def sim(*args):
    return run_main(list(args))


def test_dist_prints_the_whole_distribution():
    out = json.loads(sim("dist", "--lang", "en", "--model", "bigram", "--context", "Mock").stdout)
    assert out["vocab_size"] == len(out["probs"])
    assert sum(out["probs"].values()) == pytest.approx(1.0)
    assert max(out["probs"], key=out["probs"].get) == "Turtle"


def test_run_is_reproducible_and_gamma_zero_is_plain():
    a = sim("run", "--lang", "zh", "--gamma", "3", "--tokens", "40", "--seed", "5")
    b = sim("run", "--lang", "zh", "--gamma", "3", "--tokens", "40", "--seed", "5")
    assert a.returncode == 0 and a.stdout == b.stdout
    out = json.loads(a.stdout)
    assert len(out["tokens"]) == 40 and set(out) >= {"alpha", "acceptance_rate", "tokens_per_pass", "passes"}
    plain = json.loads(sim("run", "--lang", "en", "--gamma", "0", "--tokens", "10", "--seed", "1").stdout)
    assert plain["tokens_per_pass"] == 1.0


def test_tubes_and_theory():
    out = json.loads(sim("tubes", "--lang", "en", "--context", ", when", "--rounds", "4", "--seed", "1").stdout)
    assert sum(out["plain"]["counts"].values()) == 200 and 0 <= out["speculative"]["pvalue"] <= 1
    th = json.loads(sim("theory", "--alpha", "0.631", "--gamma", "4", "--c", "0.1").stdout)
    assert th["best_gamma"] == 3 and round(th["expected_tokens"], 2) == 2.44


@pytest.mark.parametrize("args", [
    ["run", "--lang", "en", "--gamma", "99", "--tokens", "5", "--seed", "1"],
    ["run", "--lang", "xx", "--gamma", "2", "--tokens", "5", "--seed", "1"],
    ["theory", "--alpha", "abc", "--gamma", "2", "--c", "0.1"],
    ["dist", "--lang", "en", "--model", "fourgram"],
    ["tubes", "--lang", "en", "--rounds", "0", "--seed", "1"],
    ["nope"],
    [],
])
def test_bad_arguments_give_one_line_and_status_2(args):
    r = sim(*args)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


# --- roofline ---------------------------------------------------------------

def _handler(argv):
    from sim.__main__ import build_parser
    args = build_parser().parse_args(["roofline", *argv])
    return args.handler(args)


def test_cli_handler_plain_and_speculative():
    out = _handler(["--gpu", "h100-sxm", "--model", "llama-3.1-8b",
                    "--batch", "64", "--context", "4096"])
    for key in ("ms_per_step", "tokens_per_s", "arithmetic_busy", "bytes_per_step",
                "kv_bytes_per_token", "ridge_ops_per_byte"):
        assert key in out
    assert round(out["tokens_per_s"], -1) == 4250
    assert "speedup" not in out
    out = _handler(["--gamma", "4", "--alpha", "0.8", "--c", "0.1"])
    assert out["speedup"] == pytest.approx(3.3616 / 1.4)
    assert out["tokens_per_s_spec"] == out["speculative"]["tokens_per_s_spec"]
    json.dumps(out)   # the whole object must be JSON-serialisable


def test_cli_handler_lists():
    assert set(_handler(["--gpu", "list"])["gpus"]) == set(r.GPUS)
    assert set(_handler(["--model", "list"])["models"]) == set(r.MODELS)


@pytest.mark.parametrize("argv, name", [
    (["--gpu", "tpu"], "gpu"), (["--model", "x"], "model"),
    (["--batch", "0"], "batch"), (["--batch", "abc"], "batch"),
    (["--batch", str(P.CLI_BATCH_MAX + 1)], "batch"),
    (["--context", str(P.CTX_MAX + 1)], "context"),
    (["--gamma", "17"], "gamma"), (["--gamma", "4", "--alpha", "2"], "alpha"),
    (["--gamma", "4", "--c", "x"], "c"), (["--lanes", "0"], "lanes"),
])
def test_cli_handler_rejects_bad_input(argv, name):
    from sim.__main__ import ArgumentError
    with pytest.raises(ArgumentError, match=rf"--{name}: {name} must be") as e:
        _handler(argv)
    assert "\n" not in str(e.value)


_HAS_MAIN = (REPO / "sim" / "__main__.py").exists()


def _run(*argv):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "sim", "roofline", *argv], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(not _HAS_MAIN, reason="sim/__main__.py (the lead's) not there yet")
def test_cli_subprocess():
    p = _run("--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "1",
             "--context", "0", "--gamma", "2", "--alpha", "0.6", "--c", "0")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert round(out["tokens_per_s"]) == 209
    assert round(100 * (out["speedup"] - 1)) == 96
    p = _run("--gpu", "list")
    assert p.returncode == 0 and "h100-sxm" in json.loads(p.stdout)["gpus"]


@pytest.mark.skipif(not _HAS_MAIN, reason="sim/__main__.py (the lead's) not there yet")
@pytest.mark.parametrize("argv", [["--gpu", "nope"], ["--batch", "-3"], ["--gamma", "99"]])
def test_cli_subprocess_errors(argv):
    p = _run(*argv)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1
    assert "Traceback" not in p.stderr


