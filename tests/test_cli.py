"""python -m sim and python -m corpus from the command line: JSON out, one-line errors."""
import json
import subprocess
import sys

import pytest


def sim(*args):
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True, timeout=120)


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
