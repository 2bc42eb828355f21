#!/usr/bin/env bash
# The Python bindings' tests: builds the wheel of python/ with maturin (the dev profile,
# so that it reuses what `cargo test` compiled), installs it into the cached virtual
# environment of scripts/python-env.sh and runs python/tests with pytest — against the
# `bip` command built by `cargo test` (target/debug/bip), VirtualHome's real executor and
# the real scene in ../shared/data/virtualhome/.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="$(scripts/python-env.sh)"
wheels=target/python-wheels
rm -rf "$wheels"
"$venv/bin/maturin" build --quiet --locked --profile dev --strip -m python/Cargo.toml \
    -i "$venv/bin/python" --out "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --force-reinstall --no-deps "$wheels"/bip-*.whl
# `cargo test --workspace` built it; this only checks that it is current.
cargo test --workspace --locked --no-run --quiet
BIP_BIN="$PWD/target/debug/bip" "$venv/bin/python" -m pytest -q python/tests
