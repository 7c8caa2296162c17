#!/usr/bin/env python3
"""Where a small signature's CPU goes in the worker: classifies `perf script` samples of one process into the parts of
docs/performance.md's profile table. Unlike classify.py (one 1 MB request, where reading and hashing dominate and the
outermost match is what matters), a sample here goes to the innermost frame of our categories, so the answer written
after the audit wait counts as the answer, not as the wait it resumed from, and HMAC's libcrypto frames inside the
storage SDK's request signing count as the SDK. Usage:
  perf script -i perf.data -F comm,pid,tid,ip,sym,dso | classify-small.py --pid N --requests N --hz N [--top N]"""
import argparse
import collections
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--pid", required=True)
ap.add_argument("--requests", type=float, required=True)
ap.add_argument("--hz", type=float, required=True)
ap.add_argument("--top", type=int, default=0)
a = ap.parse_args()

# (row, pattern on one frame); per sample, frames are tried from the innermost out, and per frame the rows in this order.
ROWS = [
    ("logging", r"Microsoft\.Extensions\.Logging|WidgetSigning\.Audit\.AuditLog[:+]|WidgetSigning\.\w+\.\w*Log[:+]|System\.Console"),
    ("telemetry (spans, metrics)", r"System\.Diagnostics\.(Activity|Metrics|DiagnosticListener|DiagnosticSource)|OpenTelemetry|WidgetSigning\.Telemetry|SigningMetrics"),
    ("audit: seal (Ed25519)", r"Org\.BouncyCastle|Ed25519Key"),
    # The worker's gRPC client to the host runs over HttpClient's HTTP/2; the storage SDK's calls are HTTP/1.1.
    ("receiving the hop: Functions worker (gRPC, invocation, ASP.NET Core integration)", r"Microsoft\.Azure\.Functions\.Worker|Grpc\.|Google\.Protobuf|System\.Net\.Http\.Http2|System\.Threading\.Channels"),
    ("audit: storage SDK append (pipeline, policies, HTTP)", r"Azure\.Core|Azure\.Storage|AuditBlobStore|System\.Net\.Http|WidgetSigning\.Storage"),
    ("audit: record, chain, queue, wait", r"WidgetSigning\.Audit\."),
    ("authentication", r"WidgetSigning\.Callers|WidgetSigning\.Entra|IdentityModel"),
    ("reading (strict reader, Newtonsoft)", r"WidgetSigning\.Envelopes|Newtonsoft\.Json|PooledRequestBody|System\.IO\.StreamReader"),
    ("signing (canonical writer, MACs, digest)", r"WidgetSigning\.(Signing|Hashing|SpareCores|Keys)|System\.Security\.Cryptography"),
    ("the answer and the handler", r"WidgetSigning\.Http|WidgetSigning\.Primitives|FunctionApp\.Isolated"),
    ("receiving the hop: Functions worker (gRPC, invocation, ASP.NET Core integration)", r"Microsoft\.Azure\.Functions\.Worker|Grpc\.|Google\.Protobuf"),
    ("receiving the hop: Kestrel, ASP.NET Core", r"Microsoft\.AspNetCore|System\.IO\.Pipelines|System\.Net\.Sockets"),
    ("thread pool, timers, async continuations", r"System\.Threading|System\.Runtime\.CompilerServices|PortableThreadPool"),
]
COMPILED = [(row, re.compile(p)) for row, p in ROWS]
NATIVE_LEAF = re.compile(r"libcrypto|libc\.so|libssl|ld-linux|libSystem\.")

counts = collections.Counter()
leaves = collections.Counter()
total = 0


def classify(comm, frames):
    if comm.startswith(".NET Tiered"):
        return "JIT (tiering thread)"
    if comm.startswith(".NET BGC") or comm.startswith(".NET GC") or comm.startswith(".NET Server GC"):
        return "GC (background thread)"
    inner = frames[0] if frames else ""
    if "kernel.kallsyms" in inner:
        kernel = "\n".join(f for f in frames if "kernel.kallsyms" in f)
        if re.search(r"tcp_|inet_|sock_|skb|ip_|__dev_queue|net_rx|loopback|sendmsg|recvmsg", kernel):
            return "kernel: socket (TCP over loopback)"
        if re.search(r"futex|schedule|sched_|hrtimer|do_nanosleep|epoll|finish_task_switch|irqentry_exit", kernel):
            return "kernel: waits, wake-ups, epoll"
        return "kernel: other"
    if "libcoreclr.so" in inner or "libclrjit.so" in inner:
        return "runtime native (GC on the allocating thread, JIT, stubs)"
    for frame in frames:
        for row, rx in COMPILED:
            if rx.search(frame):
                return row
    return "other" if not NATIVE_LEAF.search(inner) else "other native"


def flush(comm, frames):
    global total
    if frames is None:
        return
    row = classify(comm, frames)
    counts[row] += 1
    total += 1
    if a.top and frames:
        leaves[(row, frames[0][:140])] += 1


head = re.compile(r"^(.*?)\s+(\d+)/(\d+)\s*$")
comm, frames = "", None
for line in sys.stdin:
    if not line.strip():
        flush(comm, frames)
        frames = None
        continue
    if not line.startswith((" ", "\t")):
        m = head.match(line)
        frames = [] if m and m.group(2) == a.pid else None
        comm = m.group(1).strip() if m else ""
        continue
    if frames is not None:
        parts = line.strip().split(None, 1)
        if len(parts) == 2:
            frames.append(parts[1])
flush(comm, frames)

ms = 1000.0 / a.hz
print("| part | CPU µs per answer | share |")
print("| --- | ---: | ---: |")
for row, n in sorted(counts.items(), key=lambda kv: -kv[1]):
    print(f"| {row} | {1000 * n * ms / a.requests:.1f} | {100 * n / max(total, 1):.1f} % |")
print(f"| **total** | **{1000 * total * ms / a.requests:.1f}** | |")
if a.top:
    print()
    for (row, frame), n in leaves.most_common(a.top):
        print(f"{1000 * n * ms / a.requests:6.1f} µs  {row}  {frame}")
