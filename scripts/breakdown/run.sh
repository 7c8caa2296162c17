#!/usr/bin/env bash
# A breakdown of one app's /api/sign over a socket: where the machine's CPU goes per 1 MB request, by process
# (client, host, worker) and by part (socket, Kestrel, the host's hop, reading, signing, ...). Not a test: run it on a
# quiet machine, after `npm run load`'s build (Release output of the apps and their local hosts).
#
#   scripts/breakdown/run.sh isolated|inprocess CONCURRENCY SECONDS [OUT_DIR]
#
# Starts Azurite (in memory) and the app's local host (the isolated app with caller checks off: Auth:Disabled=true,
# accepted in development only) with DOTNET_PerfMapEnabled=1 (JIT'd code named in perf's samples;
# W^X off so the code is where the map says), warms it with wrk for WARMUP seconds (default 30: until the JIT has tiered
# up), then runs wrk (C, one thread, the pre-built body) for SECONDS while `perf record -a -g` samples every CPU at
# 499 Hz, and classifies each sample (classify.py) by process and by the first of our categories its stack shows.
# BREAKDOWN_BODY=1kb sends the seed's first 3 widgets (1,030 bytes, as npm run load's 1 KB steps) instead of the 1 MB
# seed, and adds the worker's table by part (classify-small.py); BREAKDOWN_STORE=off runs the isolated app with Audit:Disabled=true (development only), so a row of the store
# on and one of it off come from the same script; BREAKDOWN_TRACE=1 also records the worker over the same seconds with
# dotnet-trace collect-linux (CPU samples from perf_events with .NET's own stacks, worker.nettrace in OUT_DIR).
# Needs perf (Debian: apt-get install linux-perf) and wrk (apt-get install wrk); where wrk is not installed, or with
# BREAKDOWN_CLIENT=autocannon, the client is autocannon (Node.js, from node_modules) instead. Prints the client's
# figures and the table; keeps perf.data.
set -euo pipefail
APP=${1:?isolated or inprocess}; C=${2:?concurrency}; D=${3:?seconds}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${4:-$(mktemp -d)}
WARMUP=${WARMUP:-30}
HZ=499
mkdir -p "$OUT"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
BLOB=$(free_port); QUEUE=$(free_port); TABLE=$(free_port); PORT=$(free_port)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
node "$ROOT/node_modules/azurite/dist/src/azurite.js" --silent --disableTelemetry --skipApiVersionCheck --loose --inMemoryPersistence \
  --blobHost 127.0.0.1 --blobPort "$BLOB" --queueHost 127.0.0.1 --queuePort "$QUEUE" --tableHost 127.0.0.1 --tablePort "$TABLE" >/dev/null 2>&1 &
PIDS+=($!)
KEY="Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==" # Azurite's published dev key
export AzureWebJobsStorage="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$KEY;BlobEndpoint=http://127.0.0.1:$BLOB/devstoreaccount1;QueueEndpoint=http://127.0.0.1:$QUEUE/devstoreaccount1;TableEndpoint=http://127.0.0.1:$TABLE/devstoreaccount1;"
export WidgetStorage="$AzureWebJobsStorage"
export DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0
sleep 2
cd "$ROOT"
if [ "$APP" = isolated ]; then
  STORE=()
  if [ "${BREAKDOWN_STORE:-on}" = off ]; then STORE=("Audit:Disabled=true"); fi
  env "Auth:Disabled=true" "${STORE[@]}" dotnet tools/WorkerHost/bin/Release/net10.0/WorkerHost.dll --app FunctionApp.Isolated/bin/Release/net10.0 \
    --settings FunctionApp.Isolated/local.settings.sample.json --port "$PORT" > "$OUT/host.log" 2>&1 &
else
  dotnet tools/LocalHost/bin/Release/net8.0/LocalHost.dll --app FunctionApp/bin/Release/net8.0 \
    --settings local.settings.sample.json --port "$PORT" > "$OUT/host.log" 2>&1 &
fi
PIDS+=($!)
for _ in $(seq 1 120); do grep -q "ready:" "$OUT/host.log" && break; sleep 1; done
HOST=$(grep -oP "ready: .*\(pid \K\d+" "$OUT/host.log" | head -1 || true)
HOST=${HOST:-${PIDS[-1]}}
WORKER=none
if [ "$APP" = isolated ]; then
  for c in $(cat /proc/"$HOST"/task/*/children); do
    if tr '\0' ' ' < /proc/"$c"/cmdline | grep -q FunctionApp.Isolated; then WORKER=$c; fi
  done
fi
SEED="$ROOT/FunctionApp.Tests/TestData/vectors/seed-3000-widgets/input.json"
BODY="$SEED"
if [ "${BREAKDOWN_BODY:-1mb}" = 1kb ]; then
  BODY="$OUT/body-1kb.json"
  python3 -c "import json,sys; w=json.load(open('$SEED'))['widgets'][:3]; sys.stdout.write(json.dumps({'widgets': w}, separators=(',', ':')))" > "$BODY"
fi
cat > "$OUT/post.lua" <<LUA
local f = assert(io.open("$BODY", "rb")); wrk.body = f:read("*all"); f:close()
wrk.method = "POST"; wrk.headers["Content-Type"] = "application/json"
LUA
URL="http://127.0.0.1:$PORT/api/sign"
CLIENT=${BREAKDOWN_CLIENT:-$(command -v wrk > /dev/null && echo wrk || echo autocannon)}
AUTOCANNON=(node "$ROOT/node_modules/autocannon/autocannon.js" -c "$C" -m POST -H "content-type=application/json" -i "$BODY")
if [ "$CLIENT" = wrk ]; then
  wrk -t1 -c"$C" -d"${WARMUP}s" -s "$OUT/post.lua" "$URL" > /dev/null
  wrk -t1 -c"$C" -d"${D}s" --latency -s "$OUT/post.lua" "$URL" > "$OUT/client.txt" &
else
  "${AUTOCANNON[@]}" -d "$WARMUP" "$URL" > /dev/null 2>&1
  "${AUTOCANNON[@]}" -d "$D" --json "$URL" > "$OUT/client.txt" 2> /dev/null &
fi
CLIENT_PID=$!
sleep 1
if [ "${BREAKDOWN_TRACE:-0}" = 1 ] && [ "$WORKER" != none ]; then
  PATH="$PATH:$HOME/.dotnet/tools" dotnet-trace collect-linux -p "$WORKER" --profile cpu-sampling \
    --duration "00:00:00:$(printf %02d $((D - 2)))" -o "$OUT/worker.nettrace" > "$OUT/trace.log" 2>&1
else
  perf record -F $HZ -a -g -o "$OUT/perf.data" -- sleep $((D - 2)) 2> /dev/null
fi
wait $CLIENT_PID
if [ "$CLIENT" = wrk ]; then
  RATE=$(grep -oP "Requests/sec:\s*\K[\d.]+" "$OUT/client.txt")
  grep -A5 "Latency Distribution" "$OUT/client.txt"
else
  RATE=$(python3 -c "import json; r = json.load(open('$OUT/client.txt')); print(r['2xx'] / r['duration'])")
  python3 -c "import json; r = json.load(open('$OUT/client.txt')); print('latency p50 %s ms, p99 %s ms' % (r['latency']['p50'], r['latency']['p99']))"
fi
echo "$APP at concurrency $C with $CLIENT: $RATE answers 200 per second; host pid $HOST, worker pid $WORKER, client pid $CLIENT_PID"
if [ ! -f "$OUT/perf.data" ]; then echo "worker trace: $OUT/worker.nettrace ($(tail -1 "$OUT/trace.log"))"; exit 0; fi
perf script -i "$OUT/perf.data" -F comm,pid,tid,ip,sym,dso 2>/dev/null \
  | python3 "$ROOT/scripts/breakdown/classify.py" --roles "$CLIENT_PID=client ($CLIENT),$HOST=host,$WORKER=worker" \
      --requests "$(python3 -c "print($RATE * ($D - 2))")" --hz $HZ --top "${TOP:-0}"
if [ "${BREAKDOWN_BODY:-1mb}" = 1kb ] && [ "$WORKER" != none ]; then
  echo; echo "the worker by part (classify-small.py):"
  perf script -i "$OUT/perf.data" -F comm,pid,tid,ip,sym,dso 2>/dev/null \
    | python3 "$ROOT/scripts/breakdown/classify-small.py" --pid "$WORKER" --requests "$(python3 -c "print($RATE * ($D - 2))")" --hz $HZ --top "${TOP:-0}"
fi
