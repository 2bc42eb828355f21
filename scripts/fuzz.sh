#!/usr/bin/env bash
# A long fuzz campaign on one target, under a memory limit:
#
#   scripts/fuzz.sh TARGET [--runs N] [--seconds S] [--seed N]
#   scripts/fuzz.sh list
#
# Targets are those of `bip-fuzz list` (the fuzz/ crate): gguf, safetensors, peft,
# episode, mmtom, hitom, tomi, virtualhome, theme, variance. The campaign starts from
# tests/fuzz/corpus/TARGET/ and writes any input that panics, runs longer than 5 s or
# dies (an abort, the memory limit) to tests/fuzz/crashes/TARGET/, to
# be committed with the fix (a hang is saved by the campaign itself, which exits with
# status 3); the test suite replays that folder. It prints the
# executions, their rate, the slowest one and the peak memory, and exits non-zero on any
# finding. FUZZ_MEMORY_MB (default 1024) bounds the whole process's address space beyond
# what it needs to start (FUZZ_BASE_MB, default 512), so that one allocation over
# FUZZ_MEMORY_MB fails (and aborts the campaign, which counts as a crash).
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:?usage: scripts/fuzz.sh TARGET [--runs N] [--seconds S] [--seed N] | list}
shift
cargo build --release --locked -p bip-fuzz --quiet
bin=target/release/bip-fuzz
if [[ $target == list ]]; then
    exec "$bin" list
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bip-fuzz-$target.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
crashes=tests/fuzz/crashes
limit_kb=$(( (${FUZZ_MEMORY_MB:-1024} + ${FUZZ_BASE_MB:-512}) * 1024 ))

set +e
(
    ulimit -v "$limit_kb"
    RAYON_NUM_THREADS=1 exec "$bin" run "$target" --corpus "tests/fuzz/corpus/$target" \
        --crashes "$crashes" --scratch "$scratch" "$@"
)
status=$?
set -e
if (( status > 128 )); then
    mkdir -p "$crashes/$target"
    saved="$crashes/$target/died-$(date +%Y%m%d-%H%M%S)"
    cp "$scratch/current" "$saved"
    echo "fuzz $target: the campaign died (status $status) on the input saved at $saved" >&2
fi
exit "$status"
