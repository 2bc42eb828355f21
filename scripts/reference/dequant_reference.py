#!/usr/bin/env python3
"""Reference dequantization for bip's GGUF reader: writes tests/data/lm/dequant.json.

For every GGML type bip reads, two blocks of random bytes (with finite, moderate scale
fields) are dequantized by the `gguf` package's own numpy code; bip's unit tests decode the
same bytes and compare.

    /tmp/ref-venv/bin/python scripts/reference/dequant_reference.py tests/data/lm
"""

import json
import sys

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf.constants import GGML_QUANT_SIZES
from gguf.quants import dequantize

# Byte offsets of the float16 scale fields in each block, and of float32 ones.
F16_FIELDS = {
    T.Q4_0: [0],
    T.Q4_1: [0, 2],
    T.Q5_0: [0],
    T.Q5_1: [0, 2],
    T.Q8_0: [0],
    T.Q4_K: [0, 2],
    T.Q5_K: [0, 2],
    T.Q6_K: [208],
}


def random_blocks(rng, qtype, n_blocks):
    block, size = GGML_QUANT_SIZES[qtype]
    if qtype == T.F16:
        return rng.normal(size=n_blocks).astype("<f2").view(np.uint8)
    if qtype == T.BF16:
        bits = rng.normal(size=n_blocks).astype("<f4").view("<u4") >> 16
        return bits.astype("<u2").view(np.uint8)
    data = rng.integers(0, 256, size=(n_blocks, size), dtype=np.uint8)
    for b in range(n_blocks):
        for off in F16_FIELDS.get(qtype, []):
            data[b, off : off + 2] = np.array([rng.uniform(-0.1, 0.1)], "<f2").view(np.uint8)
    return data.reshape(-1)


def main():
    out_dir = sys.argv[1]
    rng = np.random.default_rng(5)
    cases = []
    for qtype in [T.F16, T.BF16, T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.Q4_K, T.Q5_K, T.Q6_K]:
        block, size = GGML_QUANT_SIZES[qtype]
        n_blocks = 2 if block > 1 else 64
        raw = random_blocks(rng, qtype, n_blocks)
        values = dequantize(raw.reshape(1, -1), qtype).reshape(-1)
        cases.append(
            {
                "type": qtype.name,
                "id": int(qtype.value),
                "hex": raw.tobytes().hex(),
                "values": [float(v) for v in values.astype(np.float32)],
            }
        )
    with open(f"{out_dir}/dequant.json", "w") as fh:
        json.dump({"cases": cases}, fh)
        fh.write("\n")


if __name__ == "__main__":
    main()
