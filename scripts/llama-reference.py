#!/usr/bin/env python3
"""llama.cpp's side of bip's parity tests on a real GGUF file (tests/qwen.rs).

Tokenizes texts as llama.cpp does (special tokens parsed, the model's own BOS rule for
prompts) and computes, from llama.cpp's logits, the log-probability of each continuation
token after its prompt, on token ids given by the caller, so that tokenization and
arithmetic are compared separately. Runs llama-cpp-python's `Llama` from the virtual
environment scripts/llama-env.sh makes.

usage: llama-reference.py MODEL.gguf REQUEST.json
REQUEST: {"prompts": [text], "texts": [text], "score": [{"prompt": [ids],
          "continuation": [ids]}], "threads": T}
Prints one JSON object: {"prompts": [[ids]], "texts": [[ids]], "logprobs": [[lp]],
"version": "..."}; "prompts" are tokenized as prompts (BOS when the model asks for one),
"texts" as they stand.
"""

import json
import sys

import llama_cpp
import numpy as np
from llama_cpp import Llama


def log_softmax(row):
    """Log-softmax of one logits row, in float64."""
    row = np.asarray(row, dtype=np.float64)
    shifted = row - row.max()
    return shifted - np.log(np.exp(shifted).sum())


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: llama-reference.py MODEL.gguf REQUEST.json")
    with open(sys.argv[2], encoding="utf-8") as f:
        request = json.load(f)
    longest = max((len(s["prompt"]) + len(s["continuation"]) for s in request["score"]),
                  default=0)
    llm = Llama(
        model_path=sys.argv[1],
        n_ctx=max(64, longest + 8),
        n_batch=512,
        n_threads=request.get("threads", 2),
        n_threads_batch=request.get("threads", 2),
        logits_all=True,
        verbose=False,
    )

    def tokenize(text, prompt):
        return llm.tokenize(text.encode("utf-8"), add_bos=prompt, special=True)

    logprobs = []
    for case in request["score"]:
        prompt, continuation = case["prompt"], case["continuation"]
        llm.reset()
        llm.eval(prompt + continuation)
        first = len(prompt) - 1
        logprobs.append([
            float(log_softmax(llm.scores[first + i])[token])
            for i, token in enumerate(continuation)
        ])
    json.dump({
        "prompts": [tokenize(t, True) for t in request.get("prompts", [])],
        "texts": [tokenize(t, False) for t in request.get("texts", [])],
        "logprobs": logprobs,
        "version": llama_cpp.__version__,
    }, sys.stdout)


if __name__ == "__main__":
    main()
