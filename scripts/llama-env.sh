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
cmake_args="${CMAKE_ARGS:--DGGML_NATIVE=ON}"
# llama.cpp's AMX kernels fault (a general-protection fault at the first `ldtilecfg`) on
# hosts whose CPU reports AMX but which do not enable it for processes (some VMs), and a
# native build uses them wherever the CPU reports them: build without AMX where the
# compiler knows the flags (one that does not cannot emit AMX either).
no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
# shellcheck disable=SC2086 # the flags are words
if echo | "${CC:-cc}" $no_amx -E - >/dev/null 2>&1; then
    extra_flags="$no_amx"
else
    extra_flags=""
fi
key="$( { echo "$package"; echo "$cmake_args $extra_flags"
          "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-16)"
venv="${BIP_CACHE:-$HOME/.cache/bip}/llama-$key"

mkdir -p "$(dirname "$venv")"
# One build at a time: a second caller waits for the first, then finds it done.
exec 9>"$venv.lock"
flock 9
if [[ ! -f "$venv/.complete" ]]; then
    echo "llama-env: making $venv (building llama.cpp from source takes minutes)" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
        CFLAGS="${CFLAGS:-} $extra_flags" CXXFLAGS="${CXXFLAGS:-} $extra_flags" \
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-cache-dir "$package" >&2
    touch "$venv/.complete"
fi
echo "$venv"
