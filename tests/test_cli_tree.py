"""python -m sim tree run|tubes|budget: JSON out, reproducible, one-line errors (the command
line's main() in this process: tests/cli.py)."""
import json

import pytest

from tests.cli import run_main


def sim(*args):
    return run_main(["tree", *args])


def test_run_prints_the_metrics_and_one_pass_in_full():
    a = sim("run", "--lang", "en", "--seed", "3", "--tokens", "30", "--shape", "kary", "--n", "8", "--k", "2")
    b = sim("run", "--lang", "en", "--seed", "3", "--tokens", "30", "--shape", "kary", "--n", "8", "--k", "2")
    assert a.returncode == 0 and a.stdout == b.stdout
    out = json.loads(a.stdout)
    assert len(out["tokens"]) == 30 and out["mean_acceptance_length"] >= 1
    trace = out["trace"]
    assert trace["tree"]["n"] == 8 and len(trace["tree"]["mask"]) == 9 and trace["rule"] == "sequoia"
    assert [w["token"] for w in trace["written"]] == out["tokens"][:len(trace["written"])]


def test_tubes_and_budget():
    t = json.loads(sim("tubes", "--lang", "zh", "--seed", "1", "--rounds", "2", "--trials", "50",
                       "--sampling", "top", "--rule", "specinfer").stdout)
    assert t["context"] == ["，", "说"] and t["exact"] is False and sum(t["tree"]["counts"].values()) == 100
    b = json.loads(sim("budget", "--lang", "en", "--batch", "512", "--context", "0").stdout)
    assert len(b["table"]["n"]) == 64 and b["curves"]["batch"] == 512
    assert b["batch_scan"]["trees_stop_paying_batch"] is not None


@pytest.mark.parametrize("args", [
    ["run", "--lang", "en", "--seed", "1", "--n", "65"],
    ["run", "--lang", "en", "--seed", "1", "--shape", "dynamic", "--sampling", "wor"],
    ["run", "--lang", "en", "--seed", "1", "--greedy", "--sampling", "iid"],
    ["run", "--lang", "en", "--seed", "1", "--tokens", "3", "--trace", "40"],
    ["run", "--lang", "en", "--seed", "1", "--rule", "nope"],
    ["tubes", "--lang", "en"],
    ["budget", "--lang", "en", "--c", "2"],
    [],
])
def test_bad_arguments_give_one_line_and_status_2(args):
    r = sim(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
