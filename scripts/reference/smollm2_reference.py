#!/usr/bin/env python3
"""Independent reference for bip's SmolLM2 forward pass: writes tests/data/lm/*.json.

A Llama forward pass written from scratch with numpy (float64 activations) over the tensors
of a GGUF file, dequantized by the `gguf` package (not by bip's code), and a byte-level BPE
tokenizer written here from the file's own vocabulary and merges. bip's tests compare their
per-token log-probs (within 1e-3) and greedy tokens (exactly) against these outputs.

Usage (a throwaway venv; nothing of it is committed):

    python3 -m venv /tmp/ref-venv
    /tmp/ref-venv/bin/pip install numpy gguf regex
    scripts/fetch-models.sh
    /tmp/ref-venv/bin/python scripts/reference/smollm2_reference.py \
        ~/.cache/bip/models/SmolLM2-135M-Instruct.Q4_1.gguf tests/data/lm

Conventions that the reference pins down, and bip must follow:
- a prompt and its continuation are tokenized separately and concatenated;
- special tokens (`<|im_start|>`, ...) in text are matched literally before BPE;
- no BOS token is added (the file says add_bos_token = false);
- the chat prompt is SmolLM2's ChatML template with its default system message.
"""

import json
import math
import sys

import numpy as np
import regex
from gguf import GGUFReader
from gguf.quants import dequantize

# GPT-2 byte-level pre-tokenizer pattern (what tokenizers' ByteLevel(use_regex=True) uses).
GPT2_PATTERN = regex.compile(
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
)

SCORING_CASES = [
    ("The capital of France is", " Paris, a city on the Seine."),
    (
        "goal: get a cupcake\nstate: Mark is in the living room; the fridge and the "
        "microwave are in the kitchen.\nbelief: the cupcake is inside the fridge.\naction:",
        " walk to the kitchen",
    ),
    ("There are 12 apples and 37 pears, so in total there are", " 49 fruits."),
    (
        "<|im_start|>user\nName a colour.<|im_end|>\n<|im_start|>assistant\n",
        "Blue.<|im_end|>",
    ),
]

CHAT_QUESTION = "What is the capital of France?"
GREEDY_MAX_TOKENS = 24


def bytes_to_unicode():
    """GPT-2's reversible map from bytes to printable unicode characters."""
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


class Tokenizer:
    """Byte-level BPE from a GGUF vocabulary, with SmolLM2's digit splitting."""

    def __init__(self, reader):
        f = reader.fields
        self.tokens = list(f["tokenizer.ggml.tokens"].contents())
        types = list(f["tokenizer.ggml.token_type"].contents())
        merges = list(f["tokenizer.ggml.merges"].contents())
        self.ids = {t: i for i, t in enumerate(self.tokens)}
        self.ranks = {tuple(m.split(" ")): r for r, m in enumerate(merges)}
        self.special = [t for t, ty in zip(self.tokens, types) if ty == 3]
        self.byte_map = bytes_to_unicode()
        self.byte_unmap = {c: b for b, c in self.byte_map.items()}

    def bpe(self, word):
        parts = list(word)
        while len(parts) > 1:
            pairs = [(self.ranks.get((a, b), math.inf), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
            rank, i = min(pairs)
            if rank == math.inf:
                break
            parts = parts[:i] + [parts[i] + parts[i + 1]] + parts[i + 2 :]
        return [self.ids[p] for p in parts]

    def encode_plain(self, text):
        out = []
        # Digits(individual_digits=True) isolates every digit, then the GPT-2 regex splits.
        for chunk in regex.split(r"(\p{N})", text):
            if not chunk:
                continue
            for piece in GPT2_PATTERN.findall(chunk):
                mapped = "".join(self.byte_map[b] for b in piece.encode("utf-8"))
                out.extend(self.bpe(mapped))
        return out

    def encode(self, text):
        pattern = "(" + "|".join(regex.escape(s) for s in self.special) + ")"
        out = []
        for part in regex.split(pattern, text):
            if part in self.special:
                out.append(self.ids[part])
            elif part:
                out.extend(self.encode_plain(part))
        return out

    def decode(self, ids):
        data = bytearray()
        for i in ids:
            t = self.tokens[i]
            if t in self.special:
                data.extend(t.encode("utf-8"))
            else:
                data.extend(self.byte_unmap[c] for c in t)
        return data.decode("utf-8", errors="replace")


class Model:
    """Llama decoder over dequantized GGUF tensors, float64 activations."""

    def __init__(self, reader):
        f = reader.fields
        arch = f["general.architecture"].contents()
        self.n_layers = int(f[f"{arch}.block_count"].contents())
        self.n_heads = int(f[f"{arch}.attention.head_count"].contents())
        self.n_kv = int(f[f"{arch}.attention.head_count_kv"].contents())
        self.hidden = int(f[f"{arch}.embedding_length"].contents())
        self.eps = float(f[f"{arch}.attention.layer_norm_rms_epsilon"].contents())
        self.base = float(f[f"{arch}.rope.freq_base"].contents())
        self.head_dim = self.hidden // self.n_heads
        self.w = {}
        for t in reader.tensors:
            # dequantize returns float32 in numpy order ([rows, cols] = GGUF [out, in]).
            self.w[t.name] = dequantize(t.data, t.tensor_type).astype(np.float64)
        self.embed = self.w["token_embd.weight"]
        self.head = self.w.get("output.weight", self.embed)

    def rms(self, x, w):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * w

    def rope(self, x, positions):
        # GGUF Q/K rows are already permuted for rotation of adjacent pairs (2i, 2i+1).
        d = self.head_dim
        inv = self.base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
        ang = positions[:, None] * inv[None, :]  # [seq, d/2]
        cos, sin = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
        x0, x1 = x[..., 0::2], x[..., 1::2]
        out = np.empty_like(x)
        out[..., 0::2] = x0 * cos - x1 * sin
        out[..., 1::2] = x0 * sin + x1 * cos
        return out

    def logits(self, ids):
        """Logits at every position, [seq, vocab]."""
        n = len(ids)
        pos = np.arange(n, dtype=np.float64)
        x = self.embed[np.array(ids)]
        mask = np.triu(np.full((n, n), -np.inf), 1)
        group = self.n_heads // self.n_kv
        for i in range(self.n_layers):
            w = lambda name: self.w[f"blk.{i}.{name}.weight"]
            h = self.rms(x, w("attn_norm"))
            q = (h @ w("attn_q").T).reshape(n, self.n_heads, self.head_dim)
            k = (h @ w("attn_k").T).reshape(n, self.n_kv, self.head_dim)
            v = (h @ w("attn_v").T).reshape(n, self.n_kv, self.head_dim)
            q, k = self.rope(q, pos), self.rope(k, pos)
            heads = []
            for hd in range(self.n_heads):
                kv = hd // group
                s = q[:, hd, :] @ k[:, kv, :].T / math.sqrt(self.head_dim) + mask
                s = np.exp(s - s.max(axis=-1, keepdims=True))
                s /= s.sum(axis=-1, keepdims=True)
                heads.append(s @ v[:, kv, :])
            x = x + np.concatenate(heads, axis=-1) @ w("attn_output").T
            h = self.rms(x, w("ffn_norm"))
            g = h @ w("ffn_gate").T
            u = h @ w("ffn_up").T
            x = x + ((g / (1.0 + np.exp(-g))) * u) @ w("ffn_down").T
        return self.rms(x, self.w["output_norm.weight"]) @ self.head.T


def log_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def chat_prompt(question):
    return (
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
        "Face<|im_end|>\n<|im_start|>user\n" + question + "<|im_end|>\n<|im_start|>assistant\n"
    )


def main():
    model_path, out_dir = sys.argv[1], sys.argv[2]
    reader = GGUFReader(model_path)
    tok = Tokenizer(reader)
    model = Model(reader)

    cases = []
    for prompt, continuation in SCORING_CASES:
        p, c = tok.encode(prompt), tok.encode(continuation)
        ids = p + c
        lp = log_softmax(model.logits(ids))
        # Log-prob of every token after the first, given all tokens before it.
        seq = [float(lp[i - 1, ids[i]]) for i in range(1, len(ids))]
        cases.append(
            {
                "prompt": prompt,
                "continuation": continuation,
                "prompt_tokens": p,
                "continuation_tokens": c,
                "sequence_logprobs": seq,
                "continuation_logprobs": seq[len(p) - 1 :],
            }
        )
    with open(f"{out_dir}/smollm2_logprobs.json", "w") as fh:
        json.dump({"model": "SmolLM2-135M-Instruct.Q4_1.gguf", "cases": cases}, fh, indent=1)
        fh.write("\n")

    prompt = chat_prompt(CHAT_QUESTION)
    ids = tok.encode(prompt)
    prompt_len = len(ids)
    eos = tok.ids["<|im_end|>"]
    margins = []
    for _ in range(GREEDY_MAX_TOKENS):
        last = model.logits(ids)[-1]
        order = np.argsort(-last)
        margins.append(float(last[order[0]] - last[order[1]]))
        ids.append(int(order[0]))
        if ids[-1] == eos:
            break
    generated = ids[prompt_len:]
    with open(f"{out_dir}/smollm2_greedy.json", "w") as fh:
        json.dump(
            {
                "model": "SmolLM2-135M-Instruct.Q4_1.gguf",
                "question": CHAT_QUESTION,
                "prompt": prompt,
                "prompt_tokens": ids[:prompt_len],
                "max_tokens": GREEDY_MAX_TOKENS,
                "stop_token": eos,
                "generated_tokens": generated,
                "generated_text": tok.decode(generated),
                "top2_logit_margins": margins,
            },
            fh,
            indent=1,
        )
        fh.write("\n")
    print("greedy:", repr(tok.decode(generated)))


if __name__ == "__main__":
    main()
