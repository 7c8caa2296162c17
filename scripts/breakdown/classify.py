#!/usr/bin/env python3
"""Classifies `perf script` samples (system-wide, call graphs) into the breakdown's rows: per process role and per
category, each sample assigned by the first category whose pattern matches any frame of its stack (innermost first
in priority order below). Usage: perf script -i perf.data | classify.py --roles pid=role,... --requests N"""
import sys, re, collections, argparse

ap = argparse.ArgumentParser()
ap.add_argument("--roles", required=True)  # e.g. 123=client,456=host,789=worker
ap.add_argument("--requests", type=float, required=True)
ap.add_argument("--hz", type=float, required=True)
ap.add_argument("--top", type=int, default=0)
a = ap.parse_args()
roles = dict(kv.split("=") for kv in a.roles.split(","))

# (category, pattern on any frame); first match in this order wins.
CATEGORIES = [
    ("reading (strict reader, Newtonsoft)", r"WidgetEnvelopeReader(\+\w+)?::|Newtonsoft\.Json[\w.+]*::|SurrogateEscapeScanner::|IsoDateTimeParser::|System\.IO\.StreamReader::|UTF8Encoding[\w.+]*::"),
    ("signing (canonical writer + HMAC)", r"CanonicalUtf8Writer[\w.+]*::|SigningPipeline::|HashTargets::|HashingBufferWriter::|KeyMacs::|OverlappedHashingBufferWriter::|libcrypto|EnvelopeSigner::Seal"),
    ("body copy into the pool", r"PooledRequestBody[\w.+<>]*::"),
    ("writing the answer", r"SignatureResult[\w.+<>]*::|ResponseWrite[\w.+<>]*::|SmallJson::"),
    ("host hop: YARP forwarder + HttpClient", r"Yarp\.[\w.+<>`]*::|System\.Net\.Http\.[\w.+<>`]*::"),
    ("host hop: gRPC invocation", r"Grpc\.[\w.+<>`]*::|Google\.Protobuf[\w.+<>`]*::|WorkerChannel[\w.+<>]*::|Functions\.Worker\.Grpc"),
    ("worker: Functions middleware (ASP.NET Core integration)", r"Microsoft\.Azure\.Functions\.Worker[\w.+<>`]*::"),
    # The in-process HTTP binding reads every Content-Length body into a string (api.md): WebJobs' frames, and the
    # continuations that run without them on the stack: ASP.NET Core's FileBufferingReadStream (which spills a body over
    # 30 KB to a temporary file), StreamReader.ReadToEndAsync and the StringBuilder it fills.
    ("in-process binding (the body buffered and read into a string)",
     r"Microsoft\.Azure\.WebJobs[\w.+<>`]*::|FileBufferingReadStream|ReadToEndAsyncInternal|StringBuilder::ToString|Interop/Sys/FileStatus|System\.IO\.RandomAccess|System\.IO\.FileStream|SafeFileHandle"),
    ("logging", r"Microsoft\.Extensions\.Logging[\w.+<>`]*::|System\.Console[\w.+<>`]*::"),
    ("Kestrel + ASP.NET Core pipeline", r"Microsoft\.AspNetCore[\w.+<>`]*::|System\.IO\.Pipelines[\w.+<>`]*::"),
    ("sockets and thread pool (managed)", r"System\.Net\.Sockets[\w.+<>`]*::|System\.Threading[\w.+<>`]*::"),
]
COMPILED = [(c, re.compile(p)) for c, p in CATEGORIES]

counts = collections.Counter()
byrole = collections.Counter()
leaf = collections.Counter()
role = None; frames = []; keep = False; current_comm = ""

def flush():
    if not keep or role is None: return
    comm = current_comm
    joined = "\n".join(frames)
    cat = "other"
    inner = frames[0] if frames else ""
    if comm.startswith(".NET Tiered"):
        counts[(role, "JIT: tiered compilation thread")] += 1; byrole[role] += 1; return
    if comm.startswith(".NET BGC") or comm.startswith(".NET Server GC") or comm.startswith(".NET GC"):
        counts[(role, "GC threads")] += 1; byrole[role] += 1; return
    kernel_leaf = "kernel.kallsyms" in inner
    # Innermost kernel frames: the socket when any kernel frame of the sample is TCP/IP, else the rest of the kernel.
    kframes = "\n".join(f for f in frames if "kernel.kallsyms" in f)
    if kernel_leaf and re.search(r"tcp_|inet_|sock_|skb|ip_|__dev_queue|net_rx|loopback|sendmsg|recvmsg", kframes):
        cat = "socket (kernel TCP over loopback)"
    elif kernel_leaf and re.search(r"futex|schedule|sched_|hrtimer|do_nanosleep|epoll", kframes):
        cat = "kernel: waits, wake-ups, epoll"
    elif ("libcoreclr.so" in inner or "libclrjit.so" in inner) and not re.search(r"WidgetSigning|Newtonsoft", joined):
        cat = "runtime native outside our code (GC, JIT, type system)"
    else:
        for c, rx in COMPILED:
            if rx.search(joined):
                cat = c; break
        if cat == "other" and kernel_leaf:
            cat = "kernel: other (page faults, memory)"
    counts[(role, cat)] += 1
    byrole[role] += 1
    if a.top and frames:
        leaf[(role, cat, frames[0][:120])] += 1

head = re.compile(r"^(.*?)\s+(\d+)/(\d+)\s*$")
for line in sys.stdin:
    if not line.strip():
        flush(); role = None; frames = []; keep = False; continue
    if not line.startswith((" ", "\t")):
        m = head.match(line)
        if m:
            pid = m.group(2)
            keep = pid in roles
            role = roles.get(pid)
            current_comm = m.group(1).strip()
        continue
    parts = line.strip().split(None, 1)
    if len(parts) == 2:
        frames.append(parts[1])
flush()

ms_per_sample = 1000.0 / a.hz
print(f"| process | category | CPU ms per request | share of process |")
print(f"|---|---|---:|---:|")
for r in sorted(byrole, key=lambda r: -byrole[r]):
    rows = sorted(((c, n) for (rr, c), n in counts.items() if rr == r), key=lambda x: -x[1])
    for c, n in rows:
        print(f"| {r} | {c} | {n*ms_per_sample/a.requests:.3f} | {100*n/byrole[r]:.1f} % |")
    print(f"| **{r}** | **total** | **{byrole[r]*ms_per_sample/a.requests:.3f}** | |")
if a.top:
    print()
    for (r, c, f), n in leaf.most_common(a.top):
        print(f"{n*ms_per_sample/a.requests:.3f} ms  {r}  {c}  {f}")
