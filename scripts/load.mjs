#!/usr/bin/env node
// `npm run load`: HTTP load figures for /api/sign with a real load generator (autocannon 9, over loopback), for both
// apps side by side: the isolated app (FunctionApp.Isolated/) in its local host tools/WorkerHost, and the in-process
// app (FunctionApp/) in its local host tools/LocalHost, one after the other on the same machine, with the same client
// and the same bodies, on the apps' Release build output. Not a test: run it on a quiet machine.
//
//   1. builds the selected apps and their local hosts (dotnet build -c Release: FunctionApp.Isolated +
//      tools/WorkerHost, FunctionApp + tools/LocalHost, and tools/LocalIssuer when the isolated app runs with tokens),
//      starts Azurite (free ports, in memory, telemetry off) and, for tokens, the local issuer (tools/LocalIssuer on a
//      free loopback port, from its ready line), then grants the default local caller the `default` receiver in that
//      Azurite's `callergrants` table;
//   2. per round (LOAD_ROUNDS, default 1), per app in LOAD_APPS order (default "isolated,inprocess"), per caller check
//      mode (LOAD_AUTH, below): starts its host on a free port with the app's settings sample
//      (FunctionApp.Isolated/local.settings.sample.json, or the root local.settings.sample.json), the storage connection
//      strings pointed at that Azurite and Auth:Authority at that issuer, and waits for its ready line; mints one token
//      for the default local caller from the issuer's token endpoint (a token lasts an hour: one per host run); then,
//      for each step (LOAD_STEPS, below): one warm-up second, then a fixed LOAD_DURATION seconds (default 20); then
//      stops that host;
//   3. per step: requests/s, p50/p99 latency, share of 429 (the host's maxConcurrentRequests/maxOutstandingRequests),
//      5xx and 401/403 (both must be 0), and peak working set during the step, sampled every 100 ms:
//        - isolated: the WorkerHost process and, separately, its worker process (the host's child, found through
//          /proc/<host>/task/*/children), both from /proc/<pid>/status VmRSS (VmHWM for the whole run; Linux only,
//          "n/a" elsewhere);
//        - in-process: the LocalHost process (the app runs inside it), from its local-only /local/stream-pool;
//      and the stream pool's bytes in use once the step is over (must return to 0). That drain check exists only for
//      the in-process app, whose pool lives in the LocalHost process and is read from /local/stream-pool; the
//      isolated app's pool lives in the worker process, which has no such endpoint, so its column says
//      "n/a (out of process)" and never fails the run;
//   4. writes results.json (every run), results.md (one table per app, then a side-by-side table of req/s, p50, p99,
//      5xx and 429 per step, and with LOAD_AUTH=both the isolated app's req/s with and without tokens and their ratio)
//      and load.svg (throughput and latency against concurrency for the 1 MB envelope, one series per run and client)
//      to LOAD_OUT (default docs/load/), stops everything it started, and exits 1 on any 5xx, 401 or 403, or an
//      in-process pool that did not drain.
//
// Caller checks (LOAD_AUTH, default "on"): "on" runs the isolated app as deployed, validating an Entra-shaped bearer
// token from the local issuer and the caller's grant on every request, and sends that token on every request
// (autocannon's headers and wrk's Lua script); "off" runs it with Auth:Disabled=true (accepted in development only)
// and sends no Authorization header; "both" runs each step both ways, each in its own host, the order alternating from
// round to round (on, off; then off, on), and every table gets an auth column. The in-process app cannot validate
// tokens: it always runs with caller checks off, as its settings sample says.
//
// Steps (LOAD_STEPS, comma-separated, default all, in this order): 1kb@1, 1kb@8, 1kb@64, 1kb@256 (the seed's first 3
// widgets, 1030 bytes, at concurrency 1 to 256: at 8 a closed-loop client is bound by latency, at 64 and 256 by CPU), 1mb@1, 1mb@8, 1mb@64, 1mb@256 (the seed, 1 MB), 10mb@16 (the seed's widgets repeated with fresh ids
// to 10 MB). E.g. LOAD_STEPS=1kb@8 LOAD_AUTH=both LOAD_ROUNDS=2 LOAD_CLIENTS=autocannon for the token overhead alone.
//
// Audit store on and off (LOAD_STORE, default "on"; isolated app only): "off" runs the host with Audit:Disabled=true
// (accepted in development only, as the settings sample is), "both" runs each step both ways, each in its own host, the
// order alternating from round to round as LOAD_AUTH's; tables get a store column, and "both" adds a table of each
// step's 200/s, p50, p99 and worker CPU per 200 with the store on and off and their ratios.
//
// The store's own latency: during every step of the isolated app with the store on, a probe beside the load appends
// one 512-byte block every 100 ms to an append blob of its own in the same Azurite (@azure/storage-blob), and the row
// gets the probe's p50 and p99 (`appendProbe`), so a step's added latency can be set against what one append costs
// under the same load.
//
// Audit store counts (LOAD_AUDIT_COUNT=1; isolated app only): before and after each step, the audit trail checker
// (tools/AuditTrail's build output, `verify` against this run's Azurite and its widget-audit container) counts the
// `signed` records and `seal` lines (one per durable write) in the store; each row gets their increase over the step
// (its warm-up second included) as `audit` {records, seals, recordsPerSeal}. The store is on unless the environment
// turns it off (Audit__Disabled=true, accepted in development only), which this count then shows as 0 records.
//
// LOAD_APPS (comma-separated: isolated, inprocess), LOAD_DURATION, LOAD_WARMUP (seconds per step), LOAD_HOST_WARMUP
// (seconds, default 30: each host once, before its first step, until the JIT has tiered up) and LOAD_OUT override the
// defaults; LOAD_NO_BUILD=1 skips the build.
//
// Two clients, to tell the client's cost from ours: LOAD_CLIENTS (comma-separated, default "autocannon,wrk") runs each
// step with each client in turn: autocannon 9 (Node.js, in this process) and wrk (C, Debian's package; a Lua script
// sends the pre-built body and headers and counts statuses). Each row also gives the CPU time per answered request of
// each process from /proc/<pid>/stat (utime + stime): the client (this process for autocannon, wrk's own), the host,
// and for the isolated app its worker, and Azurite (the audit store's and the grants' server here), so a row says where
// the machine's two cores went. Linux only ("n/a" elsewhere).
//
// Telemetry (LOAD_OTLP=sink; unset, the hosts get the environment as it is): starts scripts/otlp-sink.mjs (npm run
// otlp-sink) as a child on a free loopback port and gives every host OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:<port>
// and OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (WorkerHost passes its environment on to the worker). Per host run
// (from before the host starts until it has stopped, after waiting for the exporters' batches to settle), the sink's
// counts per signal (export requests, bytes as sent, spans / metric data points / log records) and the run's 200s
// (signatures, warm-ups included) go to results.json (`telemetry`) and to a table in results.md: bytes per signal and
// per 1,000 signatures. Metrics are exported on a timer (OTEL_METRIC_EXPORT_INTERVAL, 60 s by default), not per
// request, so their share per signature falls as the rate rises; traces and logs follow the requests.

import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BlobServiceClient } from "@azure/storage-blob";
import autocannon from "autocannon";
import { azuriteConnection } from "./azurite.mjs";
import { childPids, freePort, listening, procCpuMs, procMemory } from "./proc.mjs";
import { grantsClient, setGrants } from "./grants.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const duration = Number(process.env.LOAD_DURATION ?? 20);
const warmup = Number(process.env.LOAD_WARMUP ?? 1);
// Before the first step, each host is warmed until the JIT has tiered up its hot paths (on a 2-core machine
// the worker was still compiling, 0.4-0.6 s of JIT per second, 20 s into the first step; a 1 s warm-up measured a cold
// process at concurrency 1, which BenchmarkDotNet, the yardstick, never does).
const hostWarmup = Number(process.env.LOAD_HOST_WARMUP ?? 30);
const out = resolve(root, process.env.LOAD_OUT ?? join("docs", "load"));
const seedPath = join(root, "FunctionApp.Tests", "TestData", "vectors", "seed-3000-widgets", "input.json");
const say = (message) => console.error(`[load] ${message}`);
const children = [];
const outOfProcess = "n/a (out of process)";

// The local Entra tenant tools/LocalIssuer serves, and its default caller (the token's oid when the request names none).
const localTenant = "7a1e0000-0000-4000-8000-000000000001";
const localCaller = "7a1e0000-0000-4000-8000-00000000000c";
const issuerProject = "tools/LocalIssuer/LocalIssuer.csproj";
const issuerDll = join(root, "tools", "LocalIssuer", "bin", "Release", "net10.0", "LocalIssuer.dll");

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
    tokens: true,
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
    tokens: false,
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
const authSetting = (process.env.LOAD_AUTH ?? "on").trim().toLowerCase();
const authModes = { on: ["on"], off: ["off"], both: ["on", "off"] }[authSetting];
if (!authModes) throw new Error(`LOAD_AUTH: "${authSetting}" is not on, off or both`);
const otlpSetting = (process.env.LOAD_OTLP ?? "").trim().toLowerCase();
if (otlpSetting !== "" && otlpSetting !== "sink") throw new Error(`LOAD_OTLP: "${process.env.LOAD_OTLP}" is not sink (or unset)`);
const storeSetting = (process.env.LOAD_STORE ?? "on").trim().toLowerCase();
const storeModes = { on: ["on"], off: ["off"], both: ["on", "off"] }[storeSetting];
if (!storeModes) throw new Error(`LOAD_STORE: "${storeSetting}" is not on, off or both`);
const auditCount = process.env.LOAD_AUDIT_COUNT === "1";
const auditDll = join(root, "tools", "AuditTrail", "bin", "Release", "net10.0", "AuditTrail.dll");
const rounds = Number(process.env.LOAD_ROUNDS ?? 1);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new Error(`LOAD_ROUNDS: "${process.env.LOAD_ROUNDS}" is not a whole number from 1 to 20`);
// The isolated app validates tokens unless LOAD_AUTH=off; the in-process app never does.
const needsIssuer = selected.some((name) => apps[name].tokens) && authModes.includes("on");
// The steps: the same bodies and client for every app.
const oneMb = readFileSync(seedPath);
const oneKb = Buffer.from(JSON.stringify({ widgets: JSON.parse(oneMb.toString("utf8")).widgets.slice(0, 3) }));
const allSteps = [
  ...[1, 8, 64, 256].map((connections) => ({ id: `1kb@${connections}`, name: "1 KB", body: () => oneKb, connections })),
  ...[1, 8, 64, 256].map((connections) => ({ id: `1mb@${connections}`, name: "1 MB", body: () => oneMb, connections })),
  { id: "10mb@16", name: "10 MB", body: () => largeEnvelope(10 * 1024 * 1024), connections: 16 },
];
const stepIds = (process.env.LOAD_STEPS ?? allSteps.map((s) => s.id).join(",")).split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
for (const id of stepIds) {
  if (!allSteps.some((s) => s.id === id)) throw new Error(`LOAD_STEPS: unknown step "${id}" (known: ${allSteps.map((s) => s.id).join(", ")})`);
}
if (stepIds.length === 0) throw new Error(`LOAD_STEPS names no step (${allSteps.map((s) => s.id).join(", ")})`);
const steps = allSteps.filter((s) => stepIds.includes(s.id)).map((s) => ({ ...s, body: s.body() }));
// The host warm-up sends the 1 MB envelope when a step does, else the first step's.
const warmupBody = steps.find((s) => s.name === "1 MB")?.body ?? steps[0].body;

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

const wrkPath = ["/usr/bin/wrk", "/usr/local/bin/wrk"].find((p) => existsSync(p)) ?? null;

// wrk's Lua side: the body and headers once, a count per status, and one JSON line at the end (latency in µs). The
// headers are autocannon's (Content-Type, and Authorization with caller checks on).
const wrkScript = (bodyFile, headers) => `
local f = assert(io.open(${JSON.stringify(bodyFile)}, "rb")); wrk.body = f:read("*all"); f:close()
wrk.method = "POST"
${Object.entries(headers).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`).join("\n")}
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
function runWrk(url, body, headers, connections, seconds, onPid) {
  // The script holds the token: a private directory (mkdtemp is 0700), removed when wrk exits.
  const dir = mkdtempSync(join(tmpdir(), "load-wrk-"));
  const bodyFile = join(dir, "body.json");
  writeFileSync(bodyFile, body);
  writeFileSync(join(dir, "post.lua"), wrkScript(bodyFile, headers), { mode: 0o600 });
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

// 1. Build, Azurite, the issuer and the grant.
if (clients.includes("wrk") && !wrkPath) throw new Error("LOAD_CLIENTS names wrk, which is not installed: apt-get install wrk, or set LOAD_CLIENTS=autocannon");
if (process.env.LOAD_NO_BUILD !== "1") {
  for (const project of [...selected.flatMap((name) => apps[name].projects), ...(needsIssuer ? [issuerProject] : [])]) {
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
if (needsIssuer && !existsSync(issuerDll)) throw new Error(`${issuerDll} is missing: build it (run without LOAD_NO_BUILD=1)`);
if (auditCount && !existsSync(auditDll)) throw new Error(`${auditDll} is missing: dotnet build tools/AuditTrail -c Release (LOAD_AUDIT_COUNT=1 counts with it)`);

const [blob, queue, tablePort] = await Promise.all([freePort(), freePort(), freePort()]);
const azurite = spawn(process.execPath, [
  join(root, "node_modules", "azurite", "dist", "src", "azurite.js"), "--silent", "--disableTelemetry", "--skipApiVersionCheck", "--loose", "--inMemoryPersistence",
  "--blobHost", "127.0.0.1", "--blobPort", String(blob), "--queueHost", "127.0.0.1", "--queuePort", String(queue), "--tableHost", "127.0.0.1", "--tablePort", String(tablePort),
], { stdio: "ignore" });
children.push(azurite);
for (const started = Date.now(); !(await listening(queue) && await listening(blob) && await listening(tablePort)); ) {
  if (Date.now() - started > 30_000) throw new Error(`Azurite did not listen on ${blob}/${queue} within 30 s`);
  await new Promise((r) => setTimeout(r, 100));
}
const storage = azuriteConnection("127.0.0.1", { blob, queue, table: tablePort });
say(`Azurite on ${blob}, ${queue}, ${tablePort}`);

/** Starts the local issuer on a free loopback port and resolves with its authority, from its ready line. */
async function startIssuer() {
  const issuer = spawn("dotnet", [issuerDll, "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  children.push(issuer);
  return new Promise((resolveReady, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`LocalIssuer was not ready within 60 s:\n${text}`)), 60_000);
    issuer.stdout.on("data", (chunk) => {
      text += chunk;
      const match = /LocalIssuer ready: (http:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]+\/v2\.0) /.exec(text);
      if (match) {
        clearTimeout(timer);
        issuer.stdout.removeAllListeners("data");
        issuer.stdout.resume();
        resolveReady(match[1]);
      }
    });
    issuer.once("exit", (code) => { clearTimeout(timer); reject(new Error(`LocalIssuer exited (code ${code}) before it was ready:\n${text}`)); });
  });
}

/** A token for the default local caller with every role, from the issuer's client-credentials endpoint (as npm run token). */
async function mintToken(authority) {
  const endpoint = authority.replace(/\/v2\.0$/, "/oauth2/v2.0/token");
  const form = new URLSearchParams({ grant_type: "client_credentials", scope: "api://widget-signing-local/.default" });
  const response = await fetch(endpoint, { method: "POST", body: form, signal: AbortSignal.timeout(10_000) });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || typeof body.access_token !== "string") {
    throw new Error(`The local issuer refused a token (${response.status}): ${body.error_description ?? body.error ?? "no access_token"}`);
  }
  return body.access_token;
}

let authority = null;
if (needsIssuer) {
  authority = await startIssuer();
  if (!authority.endsWith(`/${localTenant}/v2.0`)) throw new Error(`LocalIssuer serves ${authority}, not the local tenant ${localTenant}`);
  // The caller's grant for the one receiver the steps sign for; the app reads it from this run's Azurite.
  await setGrants(grantsClient("127.0.0.1", tablePort), localCaller, ["default"], "npm run load");
  say(`LocalIssuer at ${authority}; granted the local caller ${localCaller} the receiver default`);
}


/** Starts scripts/otlp-sink.mjs on a free loopback port and resolves with its endpoint, from its ready line. */
async function startSink() {
  const sink = spawn(process.execPath, [join(root, "scripts", "otlp-sink.mjs")], {
    cwd: root, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, OTLP_SINK_PORT: "0" },
  });
  children.push(sink);
  return new Promise((resolveReady, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`otlp-sink was not ready within 30 s:\n${text}`)), 30_000);
    sink.stderr.on("data", (chunk) => {
      text += chunk;
      const match = /otlp-sink listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        sink.stderr.removeAllListeners("data");
        sink.stderr.resume();
        resolveReady(match[1]);
      }
    });
    sink.once("exit", (code) => { clearTimeout(timer); reject(new Error(`otlp-sink exited (code ${code}) before it was ready:\n${text}`)); });
  });
}

const sinkEndpoint = otlpSetting === "sink" ? await startSink() : null;
const otlpEnv = sinkEndpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: sinkEndpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" } : {};
if (sinkEndpoint) say(`otlp-sink at ${sinkEndpoint}: every host exports OTLP (http/protobuf) to it`);
const signalNames = ["traces", "metrics", "logs"];
const sinkSummary = () => fetchJson(`${sinkEndpoint}/summary`);
/** The sink's counts once they stop moving: unchanged for `quietMs`, or after `maxMs`. */
async function settledSinkSummary(quietMs, maxMs) {
  const started = Date.now();
  let last = JSON.stringify(await sinkSummary());
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 250));
    const now = JSON.stringify(await sinkSummary());
    if (now !== last) { last = now; since = Date.now(); }
  }
  return JSON.parse(last);
}

// 2. The runs.
/**
 * Starts the app's host on a free port and resolves with its base address and pid once it prints its ready line.
 * With caller checks on, the app trusts this run's issuer; off, Auth:Disabled=true (the host's worker runs in the
 * Development environment, the only one that accepts it). The environment wins over the settings sample, key by key:
 * the variables are named as the sample names its keys ("Auth:Authority"), because the host copies a sample key the
 * environment lacks into the worker's environment, and an "Auth__Authority" beside it would leave .NET's
 * configuration to pick either, by enumeration order.
 */
async function startHost(app, auth, store) {
  const port = await freePort();
  const authEnv = !app.tokens ? {} : auth === "on" ? { "Auth:Authority": authority } : { "Auth:Disabled": "true" };
  if (store === "off") authEnv["Audit:Disabled"] = "true";
  const host = spawn("dotnet", [app.hostDll, "--app", app.appOutput, "--settings", app.settings, "--port", String(port)], {
    cwd: root, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, AzureWebJobsStorage: storage, WidgetStorage: storage, ...authEnv, ...otlpEnv },
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

/** The audit store's `signed` records and seals so far (the checker's summary line), or null if it could not say. */
function auditTotals() {
  const run = spawnSync("dotnet", [auditDll, "verify", "--container", "widget-audit"], {
    cwd: root, encoding: "utf8", env: { ...process.env, AUDIT_STORAGE: storage }, maxBuffer: 64 * 1024 * 1024,
  });
  const match = /checked: \d+ processes, \d+ streams, \d+ lines, (\d+) records, (\d+) seals/.exec(run.stdout ?? "");
  if (match) return { records: Number(match[1]), seals: Number(match[2]) };
  // An empty container (the store off) is not a chain to check: count it as nothing written.
  if (/no stream|not found|ContainerNotFound|does not exist/i.test(`${run.stdout}${run.stderr}`)) return { records: 0, seals: 0 };
  say(`audit count: the checker exited ${run.status}: ${`${run.stdout}${run.stderr}`.slice(0, 500)}`);
  return null;
}

/** Appends 512 bytes every 100 ms to a probe blob until stop.done; resolves with the appends' p50/p99 in ms. */
async function appendProbe(stop) {
  const container = BlobServiceClient.fromConnectionString(storage).getContainerClient("load-append-probe");
  await container.createIfNotExists();
  const blob = container.getAppendBlobClient(`probe-${randomUUID()}.bin`);
  await blob.create();
  const block = Buffer.alloc(512, 0x61);
  const times = [];
  while (!stop.done) {
    const started = process.hrtime.bigint();
    await blob.appendBlock(block, block.length);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    await new Promise((r) => setTimeout(r, 100));
  }
  times.sort((x, y) => x - y);
  const at = (q) => (times.length === 0 ? null : times[Math.min(times.length - 1, Math.floor(q * times.length))]);
  return { appends: times.length, p50Ms: at(0.5), p99Ms: at(0.99) };
}

const mb = (bytes) => (bytes === null || bytes === undefined ? null : bytes / 1048576);

async function runApp(app, auth, store, round) {
  const label = `${app.name} (auth ${auth}, store ${store}, round ${round})`;
  // Telemetry: the sink's counts before the host starts, and every 200 the host answers in this run.
  const sinkBefore = sinkEndpoint ? await settledSinkSummary(1000, 10_000) : null;
  const runStarted = Date.now();
  let signatures = 0;
  const countOk = (result) => { signatures += result?.statusCodeStats?.[200]?.count ?? 0; return result; };
  const hostInfo = await startHost(app, auth, store);
  say(`${app.title}, caller checks ${auth}, audit store ${store}, round ${round}: ${app.hostName} ready at ${hostInfo.base} (pid ${hostInfo.pid})`);
  const headers = { "content-type": "application/json" };
  if (auth === "on") headers.authorization = `Bearer ${await mintToken(authority)}`;
  if (hostWarmup > 0) {
    say(`${label}: warming the host up for ${hostWarmup} s (${warmupBody.length} bytes at concurrency 2)`);
    const warm = countOk(await autocannon({ url: `${hostInfo.base}/api/sign`, method: "POST", headers, body: warmupBody, connections: 2, duration: hostWarmup, timeout: 60 }));
    // A token or grant the app refuses would make every step measure refusals: stop before the first.
    const refused = [401, 403].map((code) => warm.statusCodeStats?.[code]?.count ?? 0).reduce((a, b) => a + b, 0);
    if (refused > 0) {
      const probe = await fetch(`${hostInfo.base}/api/sign`, { method: "POST", headers, body: warmupBody });
      throw new Error(`${label}: the warm-up got ${refused} answers 401/403; one more answered ${probe.status}: ${(await probe.text()).slice(0, 500)}`);
    }
  }
  const results = [];
  for (const step of steps) for (const client of clients) {
    const options = {
      url: `${hostInfo.base}/api/sign`,
      method: "POST",
      headers,
      body: step.body,
      connections: step.connections,
      timeout: 60,
    };
    say(`${label}: ${step.name} (${step.body.length} bytes) at concurrency ${step.connections} with ${client}: warm-up ${warmup} s, then ${duration} s`);
    const send = (seconds, onPid) => (client === "wrk"
      ? runWrk(options.url, step.body, headers, step.connections, seconds, onPid)
      : autocannon({ ...options, duration: seconds }));
    const auditBefore = auditCount && !app.streamPool ? auditTotals() : null;
    if (warmup > 0) countOk(await send(warmup));
    const stop = { done: false };
    const peak = sample(app, hostInfo, stop);
    const probe = app.tokens && store === "on" ? appendProbe(stop) : null;
    // CPU before and after, per process: the host, its worker (isolated), the client (this process, or wrk).
    const workerPids = childPids(hostInfo.pid);
    const cpuNow = () => ({
      host: procCpuMs(hostInfo.pid),
      worker: workerPids.length > 0 ? workerPids.map(procCpuMs).reduce((sum, v) => (v === null || sum === null ? null : sum + v), 0) : null,
      azurite: procCpuMs(azurite.pid),
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
    const run = countOk(await pending);
    const after = cpuNow();
    const clientUsage = process.cpuUsage(clientBefore);
    stop.done = true;
    const pool = app.streamPool ? await poolDrained(hostInfo.base) : null;
    const auditAfter = auditBefore ? auditTotals() : null;
    const audit = auditBefore && auditAfter ? { records: auditAfter.records - auditBefore.records, seals: auditAfter.seals - auditBefore.seals } : null;
    if (audit) audit.recordsPerSeal = audit.seals === 0 ? null : audit.records / audit.seals;
    const count = (code) => run.statusCodeStats?.[code]?.count ?? 0;
    const responses = Object.values(run.statusCodeStats ?? {}).reduce((sum, stats) => sum + stats.count, 0);
    const peaks = await peak;
    const probed = probe ? await probe : null;
    const okCount = count(200) || 1;
    const perRequest = (a, b) => (a === null || b === null ? null : (b - a) / okCount);
    const result = {
      app: app.name,
      auth,
      store,
      round,
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
      count401: count(401),
      count403: count(403),
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
      audit,
      appendProbe: probed,
      cpuMsPerOk: {
        client: client === "wrk" ? (wrkCpu === null ? null : wrkCpu / okCount) : (clientUsage.user + clientUsage.system) / 1000 / okCount,
        host: perRequest(before.host, after.host),
        worker: perRequest(before.worker, after.worker),
        azurite: perRequest(before.azurite, after.azurite),
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
  // The exporters batch (traces and logs every 5 s by default): wait for the sink to settle, stop the host (a clean
  // stop flushes), and wait again.
  if (sinkEndpoint) await settledSinkSummary(6000, 20_000);
  await stopAndWait([hostInfo.host]);
  let telemetry = null;
  if (sinkEndpoint) {
    const sinkAfter = await settledSinkSummary(1000, 10_000);
    telemetry = { signatures, seconds: (Date.now() - runStarted) / 1000 };
    for (const signal of signalNames) {
      telemetry[signal] = Object.fromEntries(["requests", "bytes", "uncompressedBytes", "items"].map((k) => [k, sinkAfter[signal][k] - sinkBefore[signal][k]]));
    }
    const refused = Object.entries(sinkAfter.refused).map(([code, n]) => [code, n - (sinkBefore.refused[code] ?? 0)]).filter(([, n]) => n > 0);
    if (refused.length > 0) say(`${label}: the sink refused exports: ${refused.map(([code, n]) => `${n} × ${code}`).join(", ")}`);
    telemetry.refused = Object.fromEntries(refused);
    say(`${label}: telemetry ${JSON.stringify(telemetry)}`);
  }
  return { app: app.name, auth, store, round, title: app.title, host: app.hostName, lifetimePeakHostWorkingSetMb: lifetime.hostMb, lifetimePeakWorkerWorkingSetMb: lifetime.workerMb, telemetry, results };
}

// Per round, per app, per caller check mode; the modes' order alternates from round to round, so neither always
// runs first (on a shared machine the load of others drifts).
const runs = [];
for (let round = 1; round <= rounds; round++) {
  for (const name of selected) {
    const modes = (apps[name].tokens ? authModes : ["off"]).flatMap((auth) => (apps[name].tokens ? storeModes : ["on"]).map((store) => ({ auth, store })));
    for (const { auth, store } of round % 2 === 1 ? modes : [...modes].reverse()) runs.push(await runApp(apps[name], auth, store, round));
  }
}
await stopAndWait(children);

// 3. Outputs.
mkdirSync(out, { recursive: true });
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const when = new Date().toISOString();
writeFileSync(join(out, "results.json"), JSON.stringify({ when, machine, duration, warmup, auth: authSetting, store: storeSetting, rounds, otlp: otlpSetting || null, steps: steps.map((st) => st.id), apps: runs }, null, 2) + "\n");
const fmt = (v, digits = 0) => (v === null || v === undefined || Number.isNaN(v) ? "n/a" : v.toFixed(digits));
const pct = (r) => `${(100 * r.share429).toFixed(1)} %`;
const cpu = (r) => `${fmt(r.cpuMsPerOk?.client, 2)} / ${fmt(r.cpuMsPerOk?.host, 2)} / ${apps[r.app].streamPool ? "–" : fmt(r.cpuMsPerOk?.worker, 2)} / ${fmt(r.cpuMsPerOk?.azurite, 2)}`;
const row = (r) => `| ${r.round} | ${r.auth} | ${r.store} | ${r.envelope} | ${r.concurrency} | ${r.client} | ${cpu(r)} | ${r.requests} | ${r.requestsPerSecond.toFixed(1)} | ${r.okPerSecond.toFixed(1)} | ${r.p50Ms} | ${r.p99Ms} | ${pct(r)} | ${r.status5xx} | ${r.count401 + r.count403} | ${r.errors + r.timeouts + r.resets} | ${fmt(r.peakHostWorkingSetMb)} | ${apps[r.app].streamPool ? "n/a (in process)" : fmt(r.peakWorkerWorkingSetMb)} | ${r.poolInUseAfterBytes ?? outOfProcess} |`;
const appTable = (name) => {
  const appRuns = runs.filter((run) => run.app === name);
  return [
    `### ${apps[name].title}`,
    "",
    "| round | auth | store | envelope | concurrency | client | CPU ms per 200: client / host / worker / Azurite | requests | req/s (all answers) | 200/s | p50 ms | p99 ms | 429 | 5xx | 401+403 | errors+timeouts+resets | peak MB (host) | peak MB (worker) | pool bytes in use after |",
    "| ---: | --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...appRuns.flatMap((run) => run.results.map(row)),
    "",
    ...appRuns.map((run) => `Peak working set over the run (auth ${run.auth}, store ${run.store}, round ${run.round}): ${run.host} process ${fmt(run.lifetimePeakHostWorkingSetMb)} MB`
      + (apps[run.app].streamPool ? " (the app runs in it)." : `, worker process ${fmt(run.lifetimePeakWorkerWorkingSetMb)} MB (VmHWM).`)),
    "",
  ];
};
const metrics = [
  ["req/s", (r) => r.requestsPerSecond.toFixed(1)],
  ["p50 ms", (r) => fmt(r.p50Ms, r.client === "wrk" ? 2 : 0)],
  ["p99 ms", (r) => fmt(r.p99Ms, r.client === "wrk" ? 2 : 0)],
  ["5xx", (r) => String(r.status5xx)],
  ["429", pct],
];
const runLabel = (run) => `${run.app} auth ${run.auth}${storeModes.length > 1 ? ` store ${run.store}` : ""}${rounds > 1 ? ` r${run.round}` : ""}`;
const sideBySide = [
  "### Side by side",
  "",
  `| envelope | concurrency | client | ${metrics.flatMap(([m]) => runs.map((run) => `${m} ${runLabel(run)}`)).join(" | ")} |`,
  `| --- | ---: | --- | ${metrics.flatMap(() => runs.map(() => "---:")).join(" | ")} |`,
  ...runs[0].results.map((first, i) => `| ${first.envelope} | ${first.concurrency} | ${first.client} | ${metrics.flatMap(([, f]) => runs.map((run) => f(run.results[i]))).join(" | ")} |`),
  "",
];
// With and without tokens, per step and client: each round's req/s, their mean, and the ratio of the means.
const withRuns = runs.filter((run) => apps[run.app].tokens && run.auth === "on" && run.store === storeModes[0]);
const withoutRuns = runs.filter((run) => apps[run.app].tokens && run.auth === "off" && run.store === storeModes[0]);
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const tokenCost = withRuns.length === 0 || withoutRuns.length === 0 ? [] : [
  "### Caller checks: the isolated app with and without tokens",
  "",
  "| envelope | concurrency | client | req/s with token, per round | req/s without, per round | mean with | mean without | with / without |",
  "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
  ...withRuns[0].results.map((first, i) => {
    const on = withRuns.map((run) => run.results[i].requestsPerSecond);
    const off = withoutRuns.map((run) => run.results[i].requestsPerSecond);
    return `| ${first.envelope} | ${first.concurrency} | ${first.client} | ${on.map((v) => v.toFixed(1)).join(" / ")} | ${off.map((v) => v.toFixed(1)).join(" / ")} | ${mean(on).toFixed(1)} | ${mean(off).toFixed(1)} | ${(mean(on) / mean(off)).toFixed(3)} |`;
  }),
  "",
];
// The audit store on and off, per step and client (the first caller check mode): 200/s, p50, p99 and CPU per 200 of
// the worker and of Azurite, each round's, and the ratio of the means.
const storeOn = runs.filter((run) => apps[run.app].tokens && run.store === "on" && run.auth === authModes[0]);
const storeOff = runs.filter((run) => apps[run.app].tokens && run.store === "off" && run.auth === authModes[0]);
const series = (list, i, f) => list.map((run) => f(run.results[i]));
const ratio = (on, off) => (mean(off) === 0 ? "n/a" : `${(mean(on) / mean(off)).toFixed(2)}×`);
const storeCost = storeOn.length === 0 || storeOff.length === 0 ? [] : [
  "### The audit store: the isolated app with the store on and off",
  "",
  "| envelope | concurrency | client | 200/s on | 200/s off | on ÷ off | p50 ms on / off | p99 ms on / off | one append's p50 / p99 ms | worker CPU ms per 200 on / off | on ÷ off | Azurite CPU ms per 200 on | records per durable write |",
  "| --- | ---: | --- | ---: | ---: | ---: | --- | --- | --- | --- | ---: | ---: | ---: |",
  ...storeOn[0].results.map((first, i) => {
    const ok = (list) => series(list, i, (r) => r.okPerSecond);
    const worker = (list) => series(list, i, (r) => r.cpuMsPerOk?.worker ?? 0);
    const join = (values, digits) => values.map((v) => fmt(v, digits)).join(", ");
    return `| ${first.envelope} | ${first.concurrency} | ${first.client} | ${join(ok(storeOn), 1)} | ${join(ok(storeOff), 1)} | ${ratio(ok(storeOn), ok(storeOff))} `
      + `| ${join(series(storeOn, i, (r) => r.p50Ms))} / ${join(series(storeOff, i, (r) => r.p50Ms))} | ${join(series(storeOn, i, (r) => r.p99Ms))} / ${join(series(storeOff, i, (r) => r.p99Ms))} `
      + `| ${series(storeOn, i, (r) => `${fmt(r.appendProbe?.p50Ms, 1)} / ${fmt(r.appendProbe?.p99Ms, 1)}`).join(", ")} `
      + `| ${join(worker(storeOn), 3)} / ${join(worker(storeOff), 3)} | ${ratio(worker(storeOn), worker(storeOff))} | ${join(series(storeOn, i, (r) => r.cpuMsPerOk?.azurite), 3)} | ${join(series(storeOn, i, (r) => r.audit?.recordsPerSeal), 1)} |`;
  }),
  "",
];
// Telemetry per host run: what reached the sink, per signal and per 1,000 signatures.
const kb = (bytes) => (bytes / 1024).toFixed(1);
const perThousand = (t, bytes) => (t.signatures === 0 ? "n/a" : (1000 * bytes / t.signatures / 1024).toFixed(1));
const telemetryTable = !sinkEndpoint ? [] : [
  "### Telemetry: OTLP/HTTP protobuf to scripts/otlp-sink.mjs, per host run",
  "",
  "Bytes as the exporters sent them (after any gzip); items are spans, metric data points and log records. Signatures are the run's 200s, warm-ups included. Metrics go out on a timer (OTEL_METRIC_EXPORT_INTERVAL), not per request.",
  "",
  "| app | auth | store | round | signatures | seconds | traces: exports / KB / spans | metrics: exports / KB / points | logs: exports / KB / records | KB per 1,000 signatures: traces / metrics / logs | KB per 1,000 signatures, all |",
  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...runs.map((run) => {
    const t = run.telemetry;
    const cells = signalNames.map((signal) => `${t[signal].requests} / ${kb(t[signal].bytes)} / ${t[signal].items}`);
    const all = signalNames.reduce((sum, signal) => sum + t[signal].bytes, 0);
    return `| ${run.app} | ${run.auth} | ${run.store} | ${run.round} | ${t.signatures} | ${t.seconds.toFixed(0)} | ${cells.join(" | ")} | ${signalNames.map((signal) => perThousand(t, t[signal].bytes)).join(" / ")} | ${perThousand(t, all)} |`;
  }),
  "",
];
const table = [
  `Run ${when} on ${machine}: \`npm run load\` (LOAD_AUTH=${authSetting}, LOAD_STORE=${storeSetting}${sinkEndpoint ? ", LOAD_OTLP=sink" : ""}, ${rounds} round${rounds > 1 ? "s" : ""}, steps ${steps.map((st) => st.id).join(", ")}), each host warmed ${hostWarmup} s, then ${duration} s per step after ${warmup} s warm-up, over loopback with ${clients.map((c) => (c === "wrk" ? "wrk (one thread)" : "autocannon 9")).join(" and ")}, `
    + `one host after the other (${selected.map((name) => apps[name].title).join("; ")}; Release builds).`,
  "",
  ...selected.flatMap(appTable),
  ...(runs.length > 1 ? sideBySide : []),
  ...tokenCost,
  ...storeCost,
  ...telemetryTable,
].join("\n");
writeFileSync(join(out, "results.md"), table);
// The plot is of the 1 MB envelope against concurrency: without a 1 MB step there is nothing to draw.
const plotted = steps.some((st) => st.name === "1 MB");
if (plotted) writeFileSync(join(out, "load.svg"), plot(runs, when));
console.log(table);
say(`wrote ${join(out, "results.md")}, results.json${plotted ? " and load.svg" : ""}`);

const bad = runs.flatMap((run) => run.results).filter((r) => r.status5xx > 0 || r.count401 + r.count403 > 0 || (r.poolInUseAfterBytes !== null && r.poolInUseAfterBytes !== 0));
if (bad.length > 0) {
  say(`FAILED: ${bad.length} step(s) with 5xx, 401 or 403, or an in-process stream pool that did not return to 0`);
  process.exit(1);
}
process.exit(0);

/**
 * Two panels, throughput and p50/p99 latency against concurrency (log2 axis), 1 MB envelope, one colour per app.
 * Written by hand: a few points and two axes do not justify a plotting dependency.
 */
function plot(runs, title) {
  // One series per run (app, caller checks, round) and client: the app's colour, the second client's lines lighter
  // and, for an app that validates tokens, the run without them lighter still. The legend wraps four to a line.
  const series = runs.flatMap((run) => clients.map((client, k) => ({
    app: apps[run.app], client, label: `${run.app}, auth ${run.auth}${storeModes.length > 1 ? `, store ${run.store}` : ""}${rounds > 1 ? `, r${run.round}` : ""}, ${client}`,
    opacity: (k === 0 ? 1 : 0.45) * (apps[run.app].tokens && run.auth === "off" ? 0.6 : 1),
    rows: run.results.filter((r) => r.envelope === "1 MB" && r.client === client),
  })));
  const legendLines = Math.ceil(series.length / 4);
  const width = 760, height = 306 + 14 * legendLines, panel = 320, top = 40, bottom = 250, left = [60, 440];
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
  const legend = series.map((s, k) => `<rect x="${20 + (k % 4) * 185}" y="${bottom + 46 + 14 * Math.floor(k / 4)}" width="12" height="12" fill="${s.app.color}" opacity="${s.opacity}"/>`
    + `<text x="${38 + (k % 4) * 185}" y="${bottom + 56 + 14 * Math.floor(k / 4)}" font-size="11">${s.label}</text>`).join("");
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
