#!/usr/bin/env bash
# A soak: many generated episodes, some made invalid, through `bip eval` under a 2 GiB
# address-space limit, one file of episodes per run. Every run must end with status 0
# (valid) or 2 (refused, naming the fault), never a panic, an abort or a kill, and the
# peak memory of the runs must stay flat from the first files to the last.
#
#   scripts/soak.sh [EPISODES] [PER_FILE] [SEED]     # defaults: 10000 100 1
set -euo pipefail
cd "$(dirname "$0")/.."

episodes=${1:-10000}
per_file=${2:-100}
seed=${3:-1}
cargo build --locked --quiet
bip=$PWD/target/debug/bip
work=$(mktemp -d "${TMPDIR:-/tmp}/bip-soak.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$bip" generate --n "$episodes" --seed "$seed" --out "$work/all.jsonl" 2>/dev/null
# Every third file gets one line broken in one of a few ways, chosen by the file's number.
python3 - "$work" "$per_file" <<'PY'
import json, sys
work, per = sys.argv[1], int(sys.argv[2])
lines = open(f"{work}/all.jsonl").read().splitlines()
def world(change):
    def broken(line):
        d = json.loads(line)
        change(d)
        return json.dumps(d)
    return broken

def control(d):
    walks = [a for a in d["actions"] if "walk_to" in a]
    walks[0]["walk_to"] += "\u001b[2J"

breaks = [
    lambda l: l[: len(l) // 2],                                          # cut short
    world(lambda d: d["world"].update(x=1)),                             # a stray field
    world(lambda d: d["world"].update(rooms=3)),                         # a wrong type
    world(control),                                                      # a control character
    world(lambda d: d.update(actions=[{"walk_to": "nowhere"}])),         # an unknown place
    world(lambda d: d["world"]["objects"].append(d["world"]["objects"][0])),  # an id twice
]
for k in range(0, len(lines), per):
    chunk = lines[k : k + per]
    n = k // per
    if n % 3 == 2:
        chunk[n % len(chunk)] = breaks[n % len(breaks)](chunk[n % len(chunk)])
        name = f"{work}/bad-{n:05d}.jsonl"
    else:
        name = f"{work}/ok-{n:05d}.jsonl"
    open(name, "w").write("\n".join(chunk) + "\n")
PY
rm "$work/all.jsonl"

status=0
runs=0
peaks=()
for file in "$work"/*-*.jsonl; do
    runs=$((runs + 1))
    set +e
    ( ulimit -v 2097152; /usr/bin/time -f "%M" -o "$work/peak" "$bip" eval "$file" >/dev/null 2>"$work/err" )
    code=$?
    set -e
    peak=$(tail -1 "$work/peak")
    peaks+=("$peak")
    case "$(basename "$file")" in
        ok-*) expected=0 ;;
        *) expected=2 ;;
    esac
    if [[ $code -ne $expected ]]; then
        echo "soak: $(basename "$file"): status $code, expected $expected: $(head -c 300 "$work/err")" >&2
        status=1
    fi
done
read -r low high first last < <(printf '%s\n' "${peaks[@]}" | awk '
    { p[NR] = $1 }
    END {
        k = NR < 10 ? NR : 10; lo = p[1]; hi = p[1]; f = 0; l = 0
        for (i = 1; i <= NR; i++) { if (p[i] < lo) lo = p[i]; if (p[i] > hi) hi = p[i] }
        for (i = 1; i <= k; i++) { if (p[i] > f) f = p[i]; if (p[NR - i + 1] > l) l = p[NR - i + 1] }
        print lo, hi, f, l
    }')
echo "soak: $episodes episodes in $runs runs (seed $seed): peak memory per run $low to" \
    "$high KB; the first ten at most $first KB, the last ten at most $last KB"
# And every valid episode in one run, under the same limit.
cat "$work"/ok-*.jsonl > "$work/valid.jsonl"
set +e
( ulimit -v 2097152; /usr/bin/time -f "%M %e" -o "$work/peak" "$bip" eval "$work/valid.jsonl" >/dev/null 2>"$work/err" )
code=$?
set -e
read -r whole seconds < <(tail -1 "$work/peak")
echo "soak: the $(wc -l < "$work/valid.jsonl") valid episodes in one run: status $code," \
    "$whole KB peak, $seconds s"
if [[ $code -ne 0 ]]; then
    echo "soak: one run over every valid episode: status $code: $(head -c 300 "$work/err")" >&2
    status=1
fi
# Flat: the last runs need no more than the first ones, with room for noise.
if (( last > first * 3 / 2 + 10240 )); then
    echo "soak: memory grew from $first KB to $last KB" >&2
    status=1
fi
exit $status
