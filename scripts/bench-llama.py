#!/usr/bin/env python3
"""llama.cpp's column of `cargo bench --bench lm_score`.

Runs the bench's own token ids through llama.cpp (llama-cpp-python's `Llama`, from the
virtual environment scripts/llama-env.sh makes) on the same GGUF file with the same
number of threads, timed as the bench times bip: one warm-up, then the best of REPEATS.
Log-probabilities are taken from the logits as bip takes them (log-softmax of the rows
the scored tokens are drawn from), so both sides do the same work.

usage: bench-llama.py MODEL.gguf WORKLOAD.json
WORKLOAD: {"prefix": [ids], "menu": [[ids]], "unshared": [[ids]], "repeats": N,
           "threads": T}
Prints one JSON object: {"prefill": s, "menu": s, "unshared": s, "version": "..."},
seconds for the prefill with logits at every position and for scoring the menu and the
unshared continuations after the cached prompt.
"""

import json
import sys
import time

import llama_cpp
import numpy as np
from llama_cpp import Llama


def log_softmax_rows(rows):
    """Row-wise log-softmax, as a scorer reads log-probabilities off logits."""
    top = rows.max(axis=1, keepdims=True)
    shifted = rows - top
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def best(repeats, run):
    """The shortest of `repeats` runs after one warm-up, in seconds."""
    run()
    times = []
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench-llama.py MODEL.gguf WORKLOAD.json")
    with open(sys.argv[2], encoding="utf-8") as f:
        work = json.load(f)
    prefix, repeats, threads = work["prefix"], work["repeats"], work["threads"]
    longest = max(len(c) for c in work["menu"] + work["unshared"])
    llm = Llama(
        model_path=sys.argv[1],
        n_ctx=len(prefix) + longest + 8,
        n_batch=512,
        n_ubatch=512,
        n_threads=threads,
        n_threads_batch=threads,
        logits_all=True,
        verbose=False,
    )
    n = len(prefix)

    def prefill():
        llm.reset()
        llm.eval(prefix)
        rows = llm.scores[: n - 1]
        picked = log_softmax_rows(rows)[np.arange(n - 1), prefix[1:]]
        assert np.isfinite(picked).all()

    def after_prompt(continuations):
        # The prompt's cache is kept (evaluated once, outside the timing); each
        # continuation rewinds to its end, as a prefix cache would.
        def run():
            for cont in continuations:
                llm.n_tokens = n
                llm.eval(cont)
                rows = llm.scores[n - 1 : n - 1 + len(cont)]
                picked = log_softmax_rows(rows)[np.arange(len(cont)), cont]
                assert np.isfinite(picked).all()

        return run

    times = {"prefill": best(repeats, prefill)}
    llm.reset()
    llm.eval(prefix)
    times["menu"] = best(repeats, after_prompt(work["menu"]))
    times["unshared"] = best(repeats, after_prompt(work["unshared"]))
    times["version"] = llama_cpp.__version__
    print(json.dumps(times))


if __name__ == "__main__":
    main()
