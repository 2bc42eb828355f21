#!/usr/bin/env bash
# Makes (once) the virtual environment with llama.cpp's Python package and its
# OpenAI-compatible server (llama-cpp-python[server], built from source from PyPI: about
# 4-10 minutes on two cores), which the remote-scoring tests serve SmolLM2 from and the
# side-by-side LM benchmark compares bip against. It is cached under
# ${BIP_CACHE:-~/.cache/bip}/, keyed by the version and the interpreter, and prints its
# path.
#
# Needs python3 (or $PYTHON) with venv and pip, and a C++ compiler.
set -euo pipefail

python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null; then
    echo "llama-env: $python is required (CPython 3.9 or later, with venv and pip)" >&2
    exit 1
fi
package="llama-cpp-python[server]==0.3.36"
key="$( { echo "$package"; "$python" -c 'import sys; print(sys.version)'; } \
        | sha256sum | cut -c1-16)"
venv="${BIP_CACHE:-$HOME/.cache/bip}/llama-$key"

mkdir -p "$(dirname "$venv")"
# One build at a time: a second caller waits for the first, then finds it done.
exec 9>"$venv.lock"
flock 9
if [[ ! -f "$venv/.complete" ]]; then
    echo "llama-env: making $venv (building llama.cpp from source takes minutes)" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=ON}" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-cache-dir "$package" >&2
    touch "$venv/.complete"
fi
echo "$venv"
