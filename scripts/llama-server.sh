#!/usr/bin/env bash
# Starts or stops llama.cpp's OpenAI-compatible server (llama-cpp-python, from the virtual
# environment scripts/llama-env.sh makes) on the loopback, for the remote-scoring tests
# and benchmarks.
#
#   scripts/llama-server.sh start [MODEL.gguf]   # prints "PORT PID" once it answers
#   scripts/llama-server.sh stop PID
#
# The model defaults to SmolLM2-135M-Instruct (scripts/fetch-models.sh). The port is a
# free one the system picks. Environment: BIP_LLAMA_THREADS (default 2), BIP_LLAMA_CTX
# (context, default 2048; llama.cpp keeps logits for every position, 4 bytes × vocabulary
# each), BIP_LLAMA_LOG (the server's log file, default a temporary file).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: scripts/llama-server.sh start [MODEL.gguf] | stop PID" >&2
    exit 2
}

start() {
    local model="${1:-${BIP_MODELS:-$HOME/.cache/bip/models}/SmolLM2-135M-Instruct.Q4_1.gguf}"
    if [[ ! -f "$model" ]]; then
        echo "llama-server: $model not found (scripts/fetch-models.sh fetches SmolLM2)" >&2
        exit 1
    fi
    local venv python port log pid
    venv="$(scripts/llama-env.sh)"
    python="$venv/bin/python"
    # A port nobody listens on now (another process may take it before the server does:
    # then the server fails to bind and the wait below says so).
    port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    log="${BIP_LLAMA_LOG:-$(mktemp -t bip-llama-server.XXXXXX.log)}"
    "$python" -m llama_cpp.server --model "$model" --logits_all true \
        --host 127.0.0.1 --port "$port" \
        --n_threads "${BIP_LLAMA_THREADS:-2}" --n_ctx "${BIP_LLAMA_CTX:-2048}" \
        >"$log" 2>&1 </dev/null &
    pid=$!
    # Ready when /v1/models answers; the model loads in seconds, the import in more.
    for _ in $(seq 1 240); do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "llama-server: the server exited while starting; its log ($log):" >&2
            tail -n 20 "$log" >&2
            exit 1
        fi
        if "$python" -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$port/v1/models', timeout=2)" 2>/dev/null; then
            echo "$port $pid"
            return 0
        fi
        sleep 0.5
    done
    kill "$pid" 2>/dev/null || true
    echo "llama-server: no answer on port $port after 120 s; its log ($log):" >&2
    tail -n 20 "$log" >&2
    exit 1
}

stop() {
    local pid="${1:?}"
    [[ "$pid" =~ ^[0-9]+$ ]] || usage
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.25
    done
    kill -9 "$pid" 2>/dev/null || true
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) [[ $# -eq 2 ]] || usage; stop "$2" ;;
    *) usage ;;
esac
