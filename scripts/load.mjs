#!/usr/bin/env node
// `npm run load`: HTTP load figures for /api/sign with a real load generator (autocannon 9, over loopback), for both
// apps side by side: the isolated app (FunctionApp.Isolated/) in its local host tools/WorkerHost, and the in-process
// app (FunctionApp/) in its local host tools/LocalHost, one after the other on the same machine, with the same client
// and the same bodies, on the apps' Release build output. Not a test: run it on a quiet machine.
//
//   1. builds the selected apps and their local hosts (dotnet build -c Release: FunctionApp.Isolated +
//      tools/WorkerHost, FunctionApp + tools/LocalHost) and starts Azurite (free ports, in memory, telemetry off);
//   2. per app, in LOAD_APPS order (default "isolated,inprocess"): starts its host on a free port with the app's
//      settings sample (FunctionApp.Isolated/local.settings.sample.json, or the root local.settings.sample.json), the
//      storage connection strings pointed at that Azurite, and waits for its ready line; then, for the seed's 1 MB
//      envelope at concurrency 1, 8, 64, 256, then a 10 MB envelope (the seed's widgets repeated with fresh ids) at
//      16: one warm-up second, then a fixed LOAD_DURATION seconds (default 20) each; then stops that host;
//   3. per step: requests/s, p50/p99 latency, share of 429 (the host's maxConcurrentRequests/maxOutstandingRequests),
//      5xx (must be 0), and peak working set during the step, sampled every 100 ms:
//        - isolated: the WorkerHost process and, separately, its worker process (the host's child, found through
//          /proc/<host>/task/*/children), both from /proc/<pid>/status VmRSS (VmHWM for the whole run; Linux only,
//          "n/a" elsewhere);
//        - in-process: the LocalHost process (the app runs inside it), from its local-only /local/stream-pool;
//      and the stream pool's bytes in use once the step is over (must return to 0). That drain check exists only for
//      the in-process app, whose pool lives in the LocalHost process and is read from /local/stream-pool; the
//      isolated app's pool lives in the worker process, which has no such endpoint, so its column says
//      "n/a (out of process)" and never fails the run;
//   4. writes results.json (both apps), results.md (one table per app, then a side-by-side table of req/s, p50, p99,
//      5xx and 429 per step) and load.svg (throughput and latency against concurrency, one series per app) to LOAD_OUT
//      (default docs/load/), stops everything it started, and exits 1 on any 5xx or an in-process pool that did not
//      drain.
//
// LOAD_APPS (comma-separated: isolated, inprocess), LOAD_DURATION, LOAD_WARMUP (seconds per step), LOAD_HOST_WARMUP
// (seconds, default 30: each host once, before its first step, until the JIT has tiered up) and LOAD_OUT override the
// defaults; LOAD_NO_BUILD=1 skips the build.
//
// Two clients (issue 30), to tell the client's cost from ours: LOAD_CLIENTS (comma-separated, default "autocannon,wrk")
// runs each step with each client in turn: autocannon 9 (Node.js, in this process) and wrk (C, Debian's package; a
// Lua script sends the pre-built body and counts statuses). Each row also gives the CPU time per answered request of
// each process from /proc/<pid>/stat (utime + stime): the client (this process for autocannon, wrk's own), the host,
// and for the isolated app its worker, so a row says where the machine's two cores went. Linux only ("n/a" elsewhere).

import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { azuriteConnection } from "./azurite.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const duration = Number(process.env.LOAD_DURATION ?? 20);
const warmup = Number(process.env.LOAD_WARMUP ?? 1);
// Before the first step, each host is warmed until the JIT has tiered up its hot paths (issue 30: on a 2-core machine
// the worker was still compiling, 0.4-0.6 s of JIT per second, 20 s into the first step; a 1 s warm-up measured a cold
// process at concurrency 1, which BenchmarkDotNet, the yardstick, never does).
const hostWarmup = Number(process.env.LOAD_HOST_WARMUP ?? 30);
const out = resolve(root, process.env.LOAD_OUT ?? join("docs", "load"));
const seedPath = join(root, "FunctionApp.Tests", "TestData", "vectors", "seed-3000-widgets", "input.json");
const say = (message) => console.error(`[load] ${message}`);
const children = [];
const outOfProcess = "n/a (out of process)";

const apps = {
  isolated: {
    name: "isolated",
    title: "isolated app (FunctionApp.Isolated) in tools/WorkerHost",
    hostName: "WorkerHost",
    projects: ["FunctionApp.Isolated/FunctionApp.Isolated.csproj", "tools/WorkerHost/WorkerHost.csproj"],
    hostDll: join(root, "tools", "WorkerHost", "bin", "Release", "net10.0", "WorkerHost.dll"),
    appOutput: join(root, "FunctionApp.Isolated", "bin", "Release", "net10.0"),
    settings: join(root, "FunctionApp.Isolated", "local.settings.sample.json"),
    streamPool: false,
    color: "#1f77b4",
  },
  inprocess: {
    name: "inprocess",
    title: "in-process app (FunctionApp) in tools/LocalHost",
    hostName: "LocalHost",
    projects: ["FunctionApp/FunctionApp.csproj", "tools/LocalHost/LocalHost.csproj"],
    hostDll: join(root, "tools", "LocalHost", "bin", "Release", "net8.0", "LocalHost.dll"),
    appOutput: join(root, "FunctionApp", "bin", "Release", "net8.0"),
    settings: join(root, "local.settings.sample.json"),
    streamPool: true,
    color: "#ff7f0e",
  },
};
const selected = (process.env.LOAD_APPS ?? "isolated,inprocess").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
for (const name of selected) {
  if (!apps[name]) throw new Error(`LOAD_APPS: unknown app "${name}" (known: ${Object.keys(apps).join(", ")})`);
}
if (selected.length === 0) throw new Error("LOAD_APPS names no app (isolated, inprocess)");
const clients = (process.env.LOAD_CLIENTS ?? "autocannon,wrk").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
for (const client of clients) {
  if (client !== "autocannon" && client !== "wrk") throw new Error(`LOAD_CLIENTS: unknown client "${client}" (known: autocannon, wrk)`);
}
if (clients.length === 0) throw new Error("LOAD_CLIENTS names no client (autocannon, wrk)");

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

function listening(port) {
  return new Promise((resolveConnect) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => { socket.destroy(); resolveConnect(true); });
    socket.once("error", () => resolveConnect(false));
  });
}

const running = (child) => child.exitCode === null && child.signalCode === null;

/** SIGTERM, then SIGKILL if still running after 10 s (requests still queued in the host). */
async function stopAndWait(list) {
  for (const child of list) if (running(child)) child.kill("SIGTERM");
  const deadline = Date.now() + 10_000;
  while (list.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const child of list) if (running(child)) child.kill("SIGKILL");
}

process.on("exit", () => {
  for (const child of children) if (running(child)) child.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

async function fetchJson(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

/** VmRSS and VmHWM of a process in bytes, from /proc/<pid>/status; null where there is no /proc or the process is gone. */
function procMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return null;
  }
}

/** The host's child processes (the isolated worker), from /proc/<pid>/task/<tid>/children. */
function childPids(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/** The seed's widgets repeated with fresh ids until the body reaches targetBytes. */
function largeEnvelope(targetBytes) {
  const seed = JSON.parse(readFileSync(seedPath, "utf8")).widgets;
  const widgets = [];
  let bytes = 16;
  for (let i = 0; bytes < targetBytes; i++) {
    const widget = { ...seed[i % seed.length], id: randomUUID() };
    bytes += JSON.stringify(widget).length + 2;
    widgets.push(widget);
  }
  return Buffer.from(JSON.stringify({ widgets }));
}

/** CPU time (ms, user + system) a process has used so far, from /proc/<pid>/stat; null where there is no /proc. */
const clockTicks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim() || 100);
function procCpuMs(pid) {
  try {
    // Fields after the command (which may hold spaces) start at ") ": utime and stime are the 12th and 13th of those.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return null;
  }
}

const wrkPath = ["/usr/bin/wrk", "/usr/local/bin/wrk"].find((p) => existsSync(p)) ?? null;

// wrk's Lua side: the body and headers once, a count per status, and one JSON line at the end (latency in µs).
const wrkScript = (bodyFile) => `
local f = assert(io.open(${JSON.stringify(bodyFile)}, "rb")); wrk.body = f:read("*all"); f:close()
wrk.method = "POST"; wrk.headers["Content-Type"] = "application/json"
statuses = {}
local threads = {}
function setup(thread) table.insert(threads, thread) end
function response(status, headers, body) statuses[status] = (statuses[status] or 0) + 1 end
function done(summary, latency, requests)
  local counts = {}
  for _, t in ipairs(threads) do for k, v in pairs(t:get("statuses")) do counts[k] = (counts[k] or 0) + v end end
  local parts = {}
  for k, v in pairs(counts) do table.insert(parts, string.format('"%d":%d', k, v)) end
  io.write(string.format('WRKJSON {"duration_us":%d,"requests":%d,"p50_us":%d,"p99_us":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d,"statuses":{%s}}\\n',
    summary.duration, summary.requests, latency:percentile(50), latency:percentile(99), summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.timeout, summary.errors.status, table.concat(parts, ",")))
end
`;

/** One wrk run (one thread, `connections` connections) in the shape autocannon's result has, plus wrk's pid for its CPU. */
function runWrk(url, body, connections, seconds, onPid) {
  const dir = mkdtempSync(join(tmpdir(), "load-wrk-"));
  const bodyFile = join(dir, "body.json");
  writeFileSync(bodyFile, body);
  writeFileSync(join(dir, "post.lua"), wrkScript(bodyFile));
  return new Promise((resolveRun, reject) => {
    const child = spawn(wrkPath, ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "60s", "-s", join(dir, "post.lua"), url], { stdio: ["ignore", "pipe", "inherit"] });
    children.push(child);
    onPid?.(child.pid);
    let text = "";
    child.stdout.on("data", (chunk) => { text += chunk; });
    child.once("error", reject);
    child.once("exit", (code) => {
      rmSync(dir, { recursive: true, force: true });
      const json = /WRKJSON (\{.*\})/.exec(text)?.[1];
      if (code !== 0 || !json) return reject(new Error(`wrk exited ${code}:\n${text}`));
      const w = JSON.parse(json);
      const statusCodeStats = Object.fromEntries(Object.entries(w.statuses).map(([k, v]) => [k, { count: v }]));
      const count5xx = Object.entries(w.statuses).filter(([k]) => Number(k) >= 500).reduce((sum, [, v]) => sum + v, 0);
      const durationSeconds = w.duration_us / 1e6;
      resolveRun({
        duration: durationSeconds,
        requests: { average: w.requests / durationSeconds },
        latency: { p50: w.p50_us / 1000, p99: w.p99_us / 1000 },
        statusCodeStats,
        "5xx": count5xx,
        errors: w.connect + w.read + w.write,
        timeouts: w.timeout,
        resets: 0,
      });
    });
  });
}

// 1. Build, Azurite.
if (clients.includes("wrk") && !wrkPath) throw new Error("LOAD_CLIENTS names wrk, which is not installed: apt-get install wrk, or set LOAD_CLIENTS=autocannon");
if (process.env.LOAD_NO_BUILD !== "1") {
  for (const project of selected.flatMap((name) => apps[name].projects)) {
    say(`dotnet build ${project} -c Release`);
    const built = spawnSync("dotnet", ["build", project, "-c", "Release", "--nologo", "-v", "quiet"], { cwd: root, stdio: "inherit" });
    if (built.status !== 0) throw new Error(`dotnet build ${project} failed`);
  }
}
for (const name of selected) {
  for (const path of [apps[name].hostDll, apps[name].appOutput]) {
    if (!existsSync(path)) throw new Error(`${path} is missing: build it (run without LOAD_NO_BUILD=1)`);
  }
}

const [blob, queue, tablePort] = await Promise.all([freePort(), freePort(), freePort()]);
const azurite = spawn(process.execPath, [
  join(root, "node_modules", "azurite", "dist", "src", "azurite.js"), "--silent", "--disableTelemetry", "--skipApiVersionCheck", "--loose", "--inMemoryPersistence",
  "--blobHost", "127.0.0.1", "--blobPort", String(blob), "--queueHost", "127.0.0.1", "--queuePort", String(queue), "--tableHost", "127.0.0.1", "--tablePort", String(tablePort),
], { stdio: "ignore" });
children.push(azurite);
for (const started = Date.now(); !(await listening(queue) && await listening(blob)); ) {
  if (Date.now() - started > 30_000) throw new Error(`Azurite did not listen on ${blob}/${queue} within 30 s`);
  await new Promise((r) => setTimeout(r, 100));
}
const storage = azuriteConnection("127.0.0.1", { blob, queue, table: tablePort });
say(`Azurite on ${blob}-${tablePort}`);

// 2. The steps: the same bodies and client for every app.
const oneMb = readFileSync(seedPath);
const tenMb = largeEnvelope(10 * 1024 * 1024);
const steps = [
  ...[1, 8, 64, 256].map((connections) => ({ name: "1 MB", body: oneMb, connections })),
  { name: "10 MB", body: tenMb, connections: 16 },
];

/** Starts the app's host on a free port and resolves with its base address and pid once it prints its ready line. */
async function startHost(app) {
  const port = await freePort();
  const host = spawn("dotnet", [app.hostDll, "--app", app.appOutput, "--settings", app.settings, "--port", String(port)], {
    cwd: root, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, AzureWebJobsStorage: storage, WidgetStorage: storage },
  });
  children.push(host);
  const ready = await new Promise((resolveReady, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`${app.hostName} was not ready within 120 s:\n${text}`)), 120_000);
    host.stdout.on("data", (chunk) => {
      text += chunk;
      const match = new RegExp(`${app.hostName} ready: (\\S+)/api/(?: \\(pid (\\d+))?`).exec(text);
      if (match) {
        clearTimeout(timer);
        resolveReady({ base: match[1], pid: Number(match[2] ?? host.pid) });
      }
    });
    host.once("exit", (code) => { clearTimeout(timer); reject(new Error(`${app.hostName} exited (code ${code}) before it was ready:\n${text}`)); });
  });
  // After the ready line, the host's own diagnostics ("WorkerHost: Sign (…): forwarding to the worker failed: …") go to
  // stderr, the first 5 per app (one a failed request under load would drown the run's output).
  let shown = 0, pending = "";
  host.stdout.removeAllListeners("data");
  host.stdout.on("data", (chunk) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop();
    for (const line of lines.filter((l) => l.startsWith(`${app.hostName}: `))) {
      if (shown++ < 5) say(`${app.name} host: ${line}`);
      else if (shown === 6) say(`${app.name} host: (further ${app.hostName} lines not shown)`);
    }
  });
  return { host, ...ready };
}

/** Peak working sets (bytes) while stop.done is false, every 100 ms: the host, and for the isolated app its worker. */
async function sample(app, hostInfo, stop) {
  const peak = { host: null, worker: null };
  const max = (a, b) => (b === null || Number.isNaN(b) ? a : Math.max(a ?? 0, b));
  while (!stop.done) {
    if (app.streamPool) {
      peak.host = max(peak.host, (await fetchJson(`${hostInfo.base}/local/stream-pool`)).workingSetBytes);
    } else {
      peak.host = max(peak.host, procMemory(hostInfo.pid)?.rss ?? null);
      const workers = childPids(hostInfo.pid).map(procMemory).filter(Boolean);
      if (workers.length > 0) peak.worker = max(peak.worker, workers.reduce((sum, m) => sum + m.rss, 0));
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return peak;
}

async function poolDrained(base) {
  for (let i = 0; i < 100; i++) {
    const probe = await fetchJson(`${base}/local/stream-pool`);
    if (probe.smallPoolInUseBytes === 0 && probe.largePoolInUseBytes === 0) return { drained: true, ...probe };
    await new Promise((r) => setTimeout(r, 100));
  }
  return { drained: false, ...(await fetchJson(`${base}/local/stream-pool`)) };
}

const mb = (bytes) => (bytes === null || bytes === undefined ? null : bytes / 1048576);

async function runApp(app) {
  const hostInfo = await startHost(app);
  say(`${app.title}: ${app.hostName} ready at ${hostInfo.base} (pid ${hostInfo.pid})`);
  if (hostWarmup > 0) {
    say(`${app.name}: warming the host up for ${hostWarmup} s (1 MB at concurrency 2)`);
    await autocannon({ url: `${hostInfo.base}/api/sign`, method: "POST", headers: { "content-type": "application/json" }, body: oneMb, connections: 2, duration: hostWarmup, timeout: 60 });
  }
  const results = [];
  for (const step of steps) for (const client of clients) {
    const options = {
      url: `${hostInfo.base}/api/sign`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: step.body,
      connections: step.connections,
      timeout: 60,
    };
    say(`${app.name}: ${step.name} (${step.body.length} bytes) at concurrency ${step.connections} with ${client}: warm-up ${warmup} s, then ${duration} s`);
    const send = (seconds, onPid) => (client === "wrk"
      ? runWrk(options.url, step.body, step.connections, seconds, onPid)
      : autocannon({ ...options, duration: seconds }));
    if (warmup > 0) await send(warmup);
    const stop = { done: false };
    const peak = sample(app, hostInfo, stop);
    // CPU before and after, per process: the host, its worker (isolated), the client (this process, or wrk).
    const workerPids = childPids(hostInfo.pid);
    const cpuNow = () => ({
      host: procCpuMs(hostInfo.pid),
      worker: workerPids.length > 0 ? workerPids.map(procCpuMs).reduce((sum, v) => (v === null || sum === null ? null : sum + v), 0) : null,
    });
    const before = cpuNow();
    const clientBefore = process.cpuUsage();
    let wrkPid = null;
    let wrkCpu = null;
    const pending = send(duration, (pid) => { wrkPid = pid; });
    if (client === "wrk") {
      // wrk's own CPU, read just before it exits (its stat is gone after): polled while it runs.
      const poll = setInterval(() => { const v = wrkPid ? procCpuMs(wrkPid) : null; if (v !== null) wrkCpu = v; }, 50);
      pending.then(() => clearInterval(poll), () => clearInterval(poll));
    }
    const run = await pending;
    const after = cpuNow();
    const clientUsage = process.cpuUsage(clientBefore);
    stop.done = true;
    const pool = app.streamPool ? await poolDrained(hostInfo.base) : null;
    const count = (code) => run.statusCodeStats?.[code]?.count ?? 0;
    const responses = Object.values(run.statusCodeStats ?? {}).reduce((sum, stats) => sum + stats.count, 0);
    const peaks = await peak;
    const okCount = count(200) || 1;
    const perRequest = (a, b) => (a === null || b === null ? null : (b - a) / okCount);
    const result = {
      app: app.name,
      client,
      envelope: step.name,
      bodyBytes: step.body.length,
      concurrency: step.connections,
      durationSeconds: run.duration,
      requests: responses,
      requestsPerSecond: run.requests.average,
      p50Ms: run.latency.p50,
      p99Ms: run.latency.p99,
      ok: count(200),
      okPerSecond: count(200) / (run.duration || 1),
      count429: count(429),
      share429: responses === 0 ? 0 : count(429) / responses,
      status5xx: run["5xx"],
      errors: run.errors,
      timeouts: run.timeouts,
      resets: run.resets,
      statusCodes: Object.fromEntries(Object.entries(run.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count])),
      peakHostWorkingSetMb: mb(peaks.host),
      peakWorkerWorkingSetMb: app.streamPool ? null : mb(peaks.worker),
      poolInUseAfterBytes: pool ? pool.smallPoolInUseBytes + pool.largePoolInUseBytes : null,
      poolCheck: pool ? (pool.drained ? "drained" : "not drained") : outOfProcess,
      cpuMsPerOk: {
        client: client === "wrk" ? (wrkCpu === null ? null : wrkCpu / okCount) : (clientUsage.user + clientUsage.system) / 1000 / okCount,
        host: perRequest(before.host, after.host),
        worker: perRequest(before.worker, after.worker),
      },
    };
    say(JSON.stringify(result));
    results.push(result);
  }
  let lifetime;
  if (app.streamPool) {
    lifetime = { hostMb: mb((await fetchJson(`${hostInfo.base}/local/stream-pool`)).peakWorkingSetBytes), workerMb: null };
  } else {
    const workers = childPids(hostInfo.pid).map(procMemory).filter(Boolean);
    lifetime = {
      hostMb: mb(procMemory(hostInfo.pid)?.hwm ?? null),
      workerMb: workers.length > 0 ? mb(Math.max(...workers.map((m) => m.hwm))) : null,
    };
  }
  await stopAndWait([hostInfo.host]);
  return { app: app.name, title: app.title, host: app.hostName, lifetimePeakHostWorkingSetMb: lifetime.hostMb, lifetimePeakWorkerWorkingSetMb: lifetime.workerMb, results };
}

const runs = [];
for (const name of selected) runs.push(await runApp(apps[name]));
await stopAndWait(children);

// 3. Outputs.
mkdirSync(out, { recursive: true });
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const when = new Date().toISOString();
writeFileSync(join(out, "results.json"), JSON.stringify({ when, machine, duration, warmup, apps: runs }, null, 2) + "\n");
const fmt = (v, digits = 0) => (v === null || v === undefined || Number.isNaN(v) ? "n/a" : v.toFixed(digits));
const pct = (r) => `${(100 * r.share429).toFixed(1)} %`;
const cpu = (r) => `${fmt(r.cpuMsPerOk?.client, 2)} / ${fmt(r.cpuMsPerOk?.host, 2)} / ${apps[r.app].streamPool ? "–" : fmt(r.cpuMsPerOk?.worker, 2)}`;
const row = (r) => `| ${r.envelope} | ${r.concurrency} | ${r.client} | ${cpu(r)} | ${r.requests} | ${r.requestsPerSecond.toFixed(1)} | ${r.okPerSecond.toFixed(1)} | ${r.p50Ms} | ${r.p99Ms} | ${pct(r)} | ${r.status5xx} | ${r.errors + r.timeouts + r.resets} | ${fmt(r.peakHostWorkingSetMb)} | ${apps[r.app].streamPool ? "n/a (in process)" : fmt(r.peakWorkerWorkingSetMb)} | ${r.poolInUseAfterBytes ?? outOfProcess} |`;
const appTable = (run) => [
  `### ${run.title}`,
  "",
  "| envelope | concurrency | client | CPU ms per 200: client / host / worker | requests | req/s (all answers) | 200/s | p50 ms | p99 ms | 429 | 5xx | errors+timeouts+resets | peak MB (host) | peak MB (worker) | pool bytes in use after |",
  "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...run.results.map(row),
  "",
  `Peak working set over the whole run: ${run.host} process ${fmt(run.lifetimePeakHostWorkingSetMb)} MB`
    + (apps[run.app].streamPool ? " (the app runs in it)." : `, worker process ${fmt(run.lifetimePeakWorkerWorkingSetMb)} MB (VmHWM).`),
  "",
];
const metrics = [
  ["req/s", (r) => r.requestsPerSecond.toFixed(1)],
  ["p50 ms", (r) => fmt(r.p50Ms, r.client === "wrk" ? 2 : 0)],
  ["p99 ms", (r) => fmt(r.p99Ms, r.client === "wrk" ? 2 : 0)],
  ["5xx", (r) => String(r.status5xx)],
  ["429", pct],
];
const sideBySide = [
  "### Side by side",
  "",
  `| envelope | concurrency | client | ${metrics.flatMap(([m]) => runs.map((run) => `${m} ${run.app}`)).join(" | ")} |`,
  `| --- | ---: | --- | ${metrics.flatMap(() => runs.map(() => "---:")).join(" | ")} |`,
  ...runs[0].results.map((first, i) => `| ${first.envelope} | ${first.concurrency} | ${first.client} | ${metrics.flatMap(([, f]) => runs.map((run) => f(run.results[i]))).join(" | ")} |`),
  "",
];
const table = [
  `Run ${when} on ${machine}: \`npm run load\`, each host warmed ${hostWarmup} s, then ${duration} s per step after ${warmup} s warm-up, over loopback with ${clients.map((c) => (c === "wrk" ? "wrk (one thread)" : "autocannon 9")).join(" and ")}, `
    + `one app after the other (${runs.map((run) => run.title).join("; ")}; Release builds).`,
  "",
  ...runs.flatMap(appTable),
  ...(runs.length > 1 ? sideBySide : []),
].join("\n");
writeFileSync(join(out, "results.md"), table);
writeFileSync(join(out, "load.svg"), plot(runs, when));
console.log(table);
say(`wrote ${join(out, "results.md")}, results.json and load.svg`);

const bad = runs.flatMap((run) => run.results).filter((r) => r.status5xx > 0 || (r.poolInUseAfterBytes !== null && r.poolInUseAfterBytes !== 0));
if (bad.length > 0) {
  say(`FAILED: ${bad.length} step(s) with 5xx or an in-process stream pool that did not return to 0`);
  process.exit(1);
}
process.exit(0);

/**
 * Two panels, throughput and p50/p99 latency against concurrency (log2 axis), 1 MB envelope, one colour per app.
 * Written by hand: a few points and two axes do not justify a plotting dependency.
 */
function plot(runs, title) {
  const width = 760, height = 320, panel = 320, top = 40, bottom = 250, left = [60, 440];
  // One series per app and client: the app's colour, the second client's lines lighter.
  const series = runs.flatMap((run) => clients.map((client, k) => ({
    app: apps[run.app], client, opacity: k === 0 ? 1 : 0.45, rows: run.results.filter((r) => r.envelope === "1 MB" && r.client === client),
  })));
  const all = series.flatMap((s) => s.rows);
  const xs = [...new Set(all.map((r) => r.concurrency))].sort((a, b) => a - b);
  const lo = Math.log2(Math.min(...xs)), hi = Math.log2(Math.max(...xs));
  const x = (c, i) => left[i] + (Math.log2(c) - lo) / ((hi - lo) || 1) * (panel - 20);
  const scale = (values) => { const max = Math.max(...values, 1) * 1.1; return { max, y: (v) => bottom - (v / max) * (bottom - top) }; };
  const rps = scale(all.flatMap((r) => [r.requestsPerSecond, r.okPerSecond]));
  const lat = scale(all.flatMap((r) => [r.p50Ms, r.p99Ms]));
  const line = (s, i, y, key, dashed) => `<g opacity="${s.opacity}"><polyline fill="none" stroke="${s.app.color}" stroke-width="2"${dashed ? ' stroke-dasharray="5,4"' : ""} points="${s.rows.map((r) => `${x(r.concurrency, i).toFixed(1)},${y(r[key]).toFixed(1)}`).join(" ")}"/>`
    + s.rows.map((r) => `<circle cx="${x(r.concurrency, i).toFixed(1)}" cy="${y(r[key]).toFixed(1)}" r="3" fill="${s.app.color}"/>`).join("") + "</g>";
  const axes = (i, s, label) => `<line x1="${left[i]}" y1="${bottom}" x2="${left[i] + panel}" y2="${bottom}" stroke="#333"/><line x1="${left[i]}" y1="${top}" x2="${left[i]}" y2="${bottom}" stroke="#333"/>`
    + xs.map((c) => `<text x="${x(c, i).toFixed(1)}" y="${bottom + 16}" font-size="11" text-anchor="middle">${c}</text>`).join("")
    + [0, 0.5, 1].map((f) => `<text x="${left[i] - 6}" y="${(bottom - f * (bottom - top) / 1.1 + 4).toFixed(1)}" font-size="11" text-anchor="end">${(f * s.max / 1.1).toFixed(0)}</text>`).join("")
    + `<text x="${left[i] + panel / 2}" y="${bottom + 34}" font-size="12" text-anchor="middle">concurrency (1 MB envelope)</text>`
    + `<text x="${left[i] + panel / 2}" y="${top - 12}" font-size="13" text-anchor="middle" font-weight="bold">${label}</text>`;
  const legend = series.map((s, k) => `<rect x="${20 + k * 185}" y="${height - 34}" width="12" height="12" fill="${s.app.color}" opacity="${s.opacity}"/>`
    + `<text x="${38 + k * 185}" y="${height - 24}" font-size="11">${s.app.name} (${s.app.hostName}), ${s.client}</text>`).join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">`
    + `<rect width="100%" height="100%" fill="white"/>`
    + axes(0, rps, "requests/s: answered solid, 200 dashed")
    + series.map((s) => line(s, 0, rps.y, "requestsPerSecond", false) + line(s, 0, rps.y, "okPerSecond", true)).join("")
    + axes(1, lat, "latency (ms): p50 solid, p99 dashed")
    + series.map((s) => line(s, 1, lat.y, "p50Ms", false) + line(s, 1, lat.y, "p99Ms", true)).join("")
    + legend
    + `<text x="${width - 6}" y="${height - 4}" font-size="9" text-anchor="end" fill="#666">npm run load, ${title}</text>`
    + `</svg>\n`;
}
