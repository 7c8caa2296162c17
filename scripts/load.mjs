#!/usr/bin/env node
// `npm run load`: HTTP load figures for /api/sign with a real load generator (autocannon 9, over loopback) against the
// local host (tools/LocalHost) on the app's Release build output. Not a test: run it on a quiet machine.
//
//   1. builds the app and the local host (dotnet build -c Release), starts Azurite (free ports, telemetry off) and the
//      local host (free port), and waits for its ready line;
//   2. for the seed's 1 MB envelope at concurrency 1, 8, 64, 256, then a 10 MB envelope (the seed's widgets repeated
//      with fresh ids) at 16: one warm-up second, then a fixed LOAD_DURATION seconds (default 20) each;
//   3. per step: requests/s, p50/p99 latency, share of 429 (the host's maxConcurrentRequests/maxOutstandingRequests),
//      5xx (must be 0), the host process's peak working set during the step (sampled every 100 ms from the local
//      host's /local/stream-pool), and the stream pool's bytes in use once the step is over (must return to 0);
//   4. writes results.json, results.md (the table) and load.svg (throughput and latency against concurrency) to
//      LOAD_OUT (default docs/load/), stops everything it started, and exits 1 if any 5xx or a pool that did not drain.
//
// LOAD_DURATION, LOAD_WARMUP (seconds) and LOAD_OUT override the defaults; LOAD_NO_BUILD=1 skips the build.

import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { cpus, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const duration = Number(process.env.LOAD_DURATION ?? 20);
const warmup = Number(process.env.LOAD_WARMUP ?? 1);
const out = resolve(root, process.env.LOAD_OUT ?? join("docs", "load"));
const seedPath = join(root, "FunctionApp.Tests", "TestData", "vectors", "seed-3000-widgets", "input.json");
const say = (message) => console.error(`[load] ${message}`);
const children = [];

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

function stopAll() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  }
}

/** SIGTERM to every child, then SIGKILL to those still running after 10 s (requests still queued in the host). */
async function stopAndWait() {
  stopAll();
  const deadline = Date.now() + 10_000;
  while (children.some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

process.on("exit", () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
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

// 1. Build, Azurite, local host.
if (process.env.LOAD_NO_BUILD !== "1") {
  for (const project of ["FunctionApp/FunctionApp.csproj", "tools/LocalHost/LocalHost.csproj"]) {
    say(`dotnet build ${project} -c Release`);
    const built = spawnSync("dotnet", ["build", project, "-c", "Release", "--nologo", "-v", "quiet"], { cwd: root, stdio: "inherit" });
    if (built.status !== 0) throw new Error(`dotnet build ${project} failed`);
  }
}

const [blob, queue, tablePort, http] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
const azurite = spawn(process.execPath, [
  join(root, "node_modules", "azurite", "dist", "src", "azurite.js"), "--silent", "--disableTelemetry", "--skipApiVersionCheck", "--loose", "--inMemoryPersistence",
  "--blobHost", "127.0.0.1", "--blobPort", String(blob), "--queueHost", "127.0.0.1", "--queuePort", String(queue), "--tableHost", "127.0.0.1", "--tablePort", String(tablePort),
], { stdio: "ignore" });
children.push(azurite);
for (const started = Date.now(); !(await listening(queue) && await listening(blob)); ) {
  if (Date.now() - started > 30_000) throw new Error(`Azurite did not listen on ${blob}/${queue} within 30 s`);
  await new Promise((r) => setTimeout(r, 100));
}
const key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="; // Azurite's published dev key
const storage = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};BlobEndpoint=http://127.0.0.1:${blob}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${queue}/devstoreaccount1;TableEndpoint=http://127.0.0.1:${tablePort}/devstoreaccount1;`;

const host = spawn("dotnet", [
  join(root, "tools", "LocalHost", "bin", "Release", "net8.0", "LocalHost.dll"),
  "--app", join(root, "FunctionApp", "bin", "Release", "net8.0"),
  "--settings", join(root, "local.settings.sample.json"),
  "--port", String(http),
], { cwd: root, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, AzureWebJobsStorage: storage, WidgetStorage: storage } });
children.push(host);
const base = await new Promise((resolveReady, reject) => {
  let text = "";
  const timer = setTimeout(() => reject(new Error(`the local host was not ready within 120 s:\n${text}`)), 120_000);
  host.stdout.on("data", (chunk) => {
    text += chunk;
    const ready = /LocalHost ready: (\S+)\/api\//.exec(text);
    if (ready) {
      clearTimeout(timer);
      resolveReady(ready[1]);
    }
  });
  host.once("exit", (code) => reject(new Error(`the local host exited (code ${code}) before it was ready:\n${text}`)));
});
host.stdout.resume();
say(`local host ready at ${base} (pid ${host.pid}); Azurite on ${blob}-${tablePort}`);

// 2. The steps.
const oneMb = readFileSync(seedPath);
const tenMb = largeEnvelope(10 * 1024 * 1024);
const steps = [
  ...[1, 8, 64, 256].map((connections) => ({ name: "1 MB", body: oneMb, connections })),
  { name: "10 MB", body: tenMb, connections: 16 },
];

async function sample(stop) {
  let peak = 0;
  while (!stop.done) {
    const probe = await fetchJson(`${base}/local/stream-pool`);
    peak = Math.max(peak, probe.workingSetBytes);
    await new Promise((r) => setTimeout(r, 100));
  }
  return peak;
}

async function poolDrained() {
  for (let i = 0; i < 100; i++) {
    const probe = await fetchJson(`${base}/local/stream-pool`);
    if (probe.smallPoolInUseBytes === 0 && probe.largePoolInUseBytes === 0) return { drained: true, ...probe };
    await new Promise((r) => setTimeout(r, 100));
  }
  return { drained: false, ...(await fetchJson(`${base}/local/stream-pool`)) };
}

const results = [];
for (const step of steps) {
  const options = {
    url: `${base}/api/sign`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: step.body,
    connections: step.connections,
    timeout: 60,
  };
  say(`${step.name} (${step.body.length} bytes) at concurrency ${step.connections}: warm-up ${warmup} s, then ${duration} s`);
  if (warmup > 0) await autocannon({ ...options, duration: warmup });
  const stop = { done: false };
  const peak = sample(stop);
  const run = await autocannon({ ...options, duration });
  stop.done = true;
  const pool = await poolDrained();
  const count = (code) => run.statusCodeStats?.[code]?.count ?? 0;
  const responses = Object.values(run.statusCodeStats ?? {}).reduce((sum, stats) => sum + stats.count, 0);
  const result = {
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
    share429: responses === 0 ? 0 : count(429) / responses,
    status5xx: run["5xx"],
    errors: run.errors,
    timeouts: run.timeouts,
    resets: run.resets,
    statusCodes: Object.fromEntries(Object.entries(run.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count])),
    peakWorkingSetMb: (await peak) / 1048576,
    poolInUseAfterBytes: pool.smallPoolInUseBytes + pool.largePoolInUseBytes,
  };
  say(JSON.stringify(result));
  results.push(result);
}
const lifetimePeak = (await fetchJson(`${base}/local/stream-pool`)).peakWorkingSetBytes / 1048576;
await stopAndWait();

// 3. Outputs.
mkdirSync(out, { recursive: true });
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const when = new Date().toISOString();
writeFileSync(join(out, "results.json"), JSON.stringify({ when, machine, duration, warmup, lifetimePeakWorkingSetMb: lifetimePeak, results }, null, 2) + "\n");
const row = (r) => `| ${r.envelope} | ${r.concurrency} | ${r.requests} | ${r.requestsPerSecond.toFixed(1)} | ${r.okPerSecond.toFixed(1)} | ${r.p50Ms} | ${r.p99Ms} | ${(100 * r.share429).toFixed(1)} % | ${r.status5xx} | ${r.errors + r.timeouts + r.resets} | ${r.peakWorkingSetMb.toFixed(0)} | ${r.poolInUseAfterBytes} |`;
const table = [
  `Run ${when} on ${machine}: \`npm run load\`, ${duration} s per step after ${warmup} s warm-up, autocannon 9 over loopback against tools/LocalHost (Release).`,
  "",
  "| envelope | concurrency | requests | req/s (all answers) | 200/s | p50 ms | p99 ms | 429 | 5xx | errors+timeouts+resets | peak MB (host) | pool bytes in use after |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...results.map(row),
  "",
  `Host process peak working set over the whole run: ${lifetimePeak.toFixed(0)} MB.`,
  "",
].join("\n");
writeFileSync(join(out, "results.md"), table);
writeFileSync(join(out, "load.svg"), plot(results.filter((r) => r.envelope === "1 MB"), when));
console.log(table);
say(`wrote ${join(out, "results.md")}, results.json and load.svg`);

const bad = results.filter((r) => r.status5xx > 0 || r.poolInUseAfterBytes !== 0);
if (bad.length > 0) {
  say(`FAILED: ${bad.length} step(s) with 5xx or a stream pool that did not return to 0`);
  process.exit(1);
}
process.exit(0);

/**
 * Two panels, throughput and p50/p99 latency against concurrency (log2 axis). Written by hand: four points and two
 * axes do not justify a plotting dependency.
 */
function plot(rows, title) {
  const width = 760, height = 300, panel = 320, top = 40, bottom = 250, left = [60, 440];
  const xs = rows.map((r) => r.concurrency);
  const x = (c, i) => left[i] + (Math.log2(c) - Math.log2(Math.min(...xs))) / ((Math.log2(Math.max(...xs)) - Math.log2(Math.min(...xs))) || 1) * (panel - 20);
  const scale = (values) => { const max = Math.max(...values, 1) * 1.1; return { max, y: (v) => bottom - (v / max) * (bottom - top) }; };
  const rps = scale(rows.flatMap((r) => [r.requestsPerSecond, r.okPerSecond]));
  const lat = scale(rows.flatMap((r) => [r.p50Ms, r.p99Ms]));
  const line = (i, y, key, color) => `<polyline fill="none" stroke="${color}" stroke-width="2" points="${rows.map((r) => `${x(r.concurrency, i).toFixed(1)},${y(r[key]).toFixed(1)}`).join(" ")}"/>`
    + rows.map((r) => `<circle cx="${x(r.concurrency, i).toFixed(1)}" cy="${y(r[key]).toFixed(1)}" r="3" fill="${color}"/>`).join("");
  const axes = (i, s, label) => `<line x1="${left[i]}" y1="${bottom}" x2="${left[i] + panel}" y2="${bottom}" stroke="#333"/><line x1="${left[i]}" y1="${top}" x2="${left[i]}" y2="${bottom}" stroke="#333"/>`
    + xs.map((c) => `<text x="${x(c, i).toFixed(1)}" y="${bottom + 16}" font-size="11" text-anchor="middle">${c}</text>`).join("")
    + [0, 0.5, 1].map((f) => `<text x="${left[i] - 6}" y="${(bottom - f * (bottom - top) / 1.1 + 4).toFixed(1)}" font-size="11" text-anchor="end">${(f * s.max / 1.1).toFixed(0)}</text>`).join("")
    + `<text x="${left[i] + panel / 2}" y="${bottom + 34}" font-size="12" text-anchor="middle">concurrency (1 MB envelope)</text>`
    + `<text x="${left[i] + panel / 2}" y="${top - 12}" font-size="13" text-anchor="middle" font-weight="bold">${label}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">`
    + `<rect width="100%" height="100%" fill="white"/>`
    + axes(0, rps, "requests/s: answered blue, 200 green") + line(0, rps.y, "requestsPerSecond", "#1f77b4") + line(0, rps.y, "okPerSecond", "#2ca02c")
    + axes(1, lat, "latency (ms): p50 blue, p99 red") + line(1, lat.y, "p50Ms", "#1f77b4") + line(1, lat.y, "p99Ms", "#d62728")
    + `<text x="${width - 6}" y="${height - 4}" font-size="9" text-anchor="end" fill="#666">npm run load, ${title}</text>`
    + `</svg>\n`;
}
