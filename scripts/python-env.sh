#!/usr/bin/env bash
# Makes (once) the virtual environment that builds bip's Python wheel and runs its tests:
# maturin, pytest and numpy from python/requirements-test.txt, and VirtualHome's executor
# (the PyPI package virtualhome==2.3.0, without the dependencies of its Unity client),
# all from PyPI. It is cached under ${BIP_CACHE:-~/.cache/bip}/, keyed by the
# requirements and the interpreter's version, and prints its path.
#
# Needs python3 (or $PYTHON) with the venv module and pip.
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null; then
    echo "python-env: $python is required (CPython 3.9 or later, with venv and pip)" >&2
    exit 1
fi
virtualhome="virtualhome==2.3.0"
key="$( { cat python/requirements-test.txt; echo "$virtualhome"; \
          "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-16)"
venv="${BIP_CACHE:-$HOME/.cache/bip}/python-$key"

if [[ ! -f "$venv/.complete" ]]; then
    echo "python-env: making $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        -r python/requirements-test.txt >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-deps "$virtualhome" >&2
    touch "$venv/.complete"
fi
echo "$venv"
