#!/usr/bin/env node
// `npm run load:queue`: queue signing throughput of the isolated app (FunctionApp.Isolated in tools/WorkerHost, whose
// queue trigger is the official WebJobs Storage Queues extension) against Azurite, and where the machine's CPU goes per
// signed message. Not a test: run it on a quiet machine.
//
//   1. builds the app and its local host (dotnet build -c Release; LOAD_NO_BUILD=1 skips it), starts Azurite on free
//      ports (in memory; QLOAD_AZURITE=disk keeps it on disk in a temporary folder, as `npm start` does) and the host
//      with the app's settings sample, its storage pointed at that Azurite (audit store on, as the sample has it);
//   2. warms the host up for QLOAD_WARMUP seconds (default 30: until the JIT has tiered up), 200 inline messages and
//      10 claim checks at a time;
//   3. per step (QLOAD_STEPS, comma-separated, default "inline@1000,claim@100"), QLOAD_ROUNDS times (default 1):
//        - inline@N: N one-widget envelopes (352 bytes) inline on the input queue;
//        - claim@N: N claim checks of the seed's 1.1 MB envelope (one blob in WidgetClaimsContainer, uploaded once);
//      the producer enqueues them 16 at a time (@azure/storage-queue, base64, as docs/queue.md says) while the client
//      reads the output queue's approximate count every 50 ms (taking nothing off it while the clock runs); the rate is
//      N over the time from the first enqueue until the output queue holds N; MB/s counts envelope bytes. Off the clock,
//      it then drains the outputs and checks that every message id has one (a late redelivery still counts as its
//      message's duplicate). Each row gives the runs' durations
//      (p50 and p99 of the host's "Executed" lines: how long a message holds a trigger slot) and the CPU time per
//      signed message of each process from /proc/<pid>/stat: this client, Azurite, the host and its worker;
//   4. prints one Markdown table, writes it with the raw figures to QLOAD_OUT (default: a temporary folder) and exits 1
//      if any message was rejected, poisoned or not forwarded within QLOAD_TIMEOUT seconds (default 300), or an output
//      carried another message's id.
//
// Trigger settings come from the app's host.json; the environment overrides them as the host reads it, e.g.
// AzureFunctionsJobHost__extensions__queues__batchSize=8 (WorkerHost passes its environment to the extension).

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BlobServiceClient } from "@azure/storage-blob";
import { QueueServiceClient } from "@azure/storage-queue";
import { azuriteConnection } from "./azurite.mjs";
import { childPids, freePort, listening, procCpuMs } from "./proc.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const say = (message) => console.error(`[load:queue] ${message}`);
const children = [];
const running = (child) => child.exitCode === null && child.signalCode === null;
process.on("exit", () => { for (const child of children) if (running(child)) child.kill("SIGKILL"); });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

const rounds = Number(process.env.QLOAD_ROUNDS ?? 1);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new Error(`QLOAD_ROUNDS: "${process.env.QLOAD_ROUNDS}" is not a whole number from 1 to 20`);
const timeoutMs = Number(process.env.QLOAD_TIMEOUT ?? 300) * 1000;
if (!(timeoutMs > 0)) throw new Error(`QLOAD_TIMEOUT: "${process.env.QLOAD_TIMEOUT}" is not a number of seconds`);
// Until the JIT has tiered up the hot paths of the host and its worker (as npm run load's LOAD_HOST_WARMUP).
const warmupSeconds = Number(process.env.QLOAD_WARMUP ?? 30);
if (!(warmupSeconds >= 0)) throw new Error(`QLOAD_WARMUP: "${process.env.QLOAD_WARMUP}" is not a number of seconds`);
const azuriteMode = (process.env.QLOAD_AZURITE ?? "memory").trim().toLowerCase();
if (azuriteMode !== "memory" && azuriteMode !== "disk") throw new Error(`QLOAD_AZURITE: "${azuriteMode}" is not memory or disk`);
const steps = (process.env.QLOAD_STEPS ?? "inline@1000,claim@100").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean).map((id) => {
  const match = /^(inline|claim)@(\d+)$/.exec(id);
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 100_000) throw new Error(`QLOAD_STEPS: "${id}" is not inline@N or claim@N (N from 1 to 100000)`);
  return { id, kind: match[1], count: Number(match[2]) };
});
if (steps.length === 0) throw new Error("QLOAD_STEPS names no step (inline@N, claim@N)");

const seed = readFileSync(join(root, "FunctionApp.Tests", "TestData", "vectors", "seed-3000-widgets", "input.json"));
const oneWidget = Buffer.from(JSON.stringify({ widgets: JSON.parse(seed.toString("utf8")).widgets.slice(0, 1) }));
const settings = JSON.parse(readFileSync(join(root, "FunctionApp.Isolated", "local.settings.sample.json"), "utf8")).Values;
const names = {
  input: process.env.WidgetInputQueue ?? settings.WidgetInputQueue,
  output: process.env.WidgetOutputQueue ?? settings.WidgetOutputQueue,
  rejected: process.env.WidgetRejectedQueue ?? settings.WidgetRejectedQueue,
  claims: process.env.WidgetClaimsContainer ?? settings.WidgetClaimsContainer,
};
const hostDll = join(root, "tools", "WorkerHost", "bin", "Release", "net10.0", "WorkerHost.dll");
const appOutput = join(root, "FunctionApp.Isolated", "bin", "Release", "net10.0");

// 1. Build, Azurite, the host.
if (process.env.LOAD_NO_BUILD !== "1") {
  for (const project of ["FunctionApp.Isolated/FunctionApp.Isolated.csproj", "tools/WorkerHost/WorkerHost.csproj"]) {
    say(`dotnet build ${project} -c Release`);
    if (spawnSync("dotnet", ["build", project, "-c", "Release", "--nologo", "-v", "quiet"], { cwd: root, stdio: "inherit" }).status !== 0) {
      throw new Error(`dotnet build ${project} failed`);
    }
  }
}

const [blob, queue, table, port] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
const azuriteDir = azuriteMode === "disk" ? mkdtempSync(join(tmpdir(), "load-queue-azurite-")) : null;
const azurite = spawn(process.execPath, [
  join(root, "node_modules", "azurite", "dist", "src", "azurite.js"), "--silent", "--disableTelemetry", "--skipApiVersionCheck", "--loose",
  ...(azuriteDir ? ["--location", azuriteDir] : ["--inMemoryPersistence"]),
  "--blobHost", "127.0.0.1", "--blobPort", String(blob), "--queueHost", "127.0.0.1", "--queuePort", String(queue), "--tableHost", "127.0.0.1", "--tablePort", String(table),
], { stdio: "ignore" });
children.push(azurite);
process.on("exit", () => { if (azuriteDir) rmSync(azuriteDir, { recursive: true, force: true }); });
for (const started = Date.now(); !(await listening(queue) && await listening(blob) && await listening(table)); ) {
  if (Date.now() - started > 30_000) throw new Error("Azurite did not listen within 30 s");
  await new Promise((r) => setTimeout(r, 100));
}
const storage = azuriteConnection("127.0.0.1", { blob, queue, table });
say(`Azurite (${azuriteMode}) on ${blob}, ${queue}, ${table}`);

const queues = QueueServiceClient.fromConnectionString(storage);
const inputQueue = queues.getQueueClient(names.input);
const outputQueue = queues.getQueueClient(names.output);
const rejectedQueue = queues.getQueueClient(names.rejected);
const poisonQueue = queues.getQueueClient(`${names.input}-poison`);
for (const q of [inputQueue, outputQueue, rejectedQueue, poisonQueue]) await q.createIfNotExists();
const claims = BlobServiceClient.fromConnectionString(storage).getContainerClient(names.claims);
await claims.createIfNotExists();
await claims.getBlockBlobClient("load/seed.json").uploadData(seed);

// Each run's duration from the WebJobs host's "Executed 'Functions.SignQueue' (Succeeded, Id=…, Duration=…ms)" lines:
// how long a message holds one of the trigger's concurrent slots.
let durations = [];
let pendingLine = "";
function onHostOutput(chunk) {
  const lines = (pendingLine + chunk).split("\n");
  pendingLine = lines.pop();
  for (const line of lines) {
    const match = /Executed '(?:Functions\.)?SignQueue' \((\w+)[^)]*Duration=(\d+)ms/.exec(line);
    if (match) durations.push(Number(match[2]));
  }
}
const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

const host = spawn("dotnet", [hostDll, "--app", appOutput, "--settings", join(root, "FunctionApp.Isolated", "local.settings.sample.json"), "--port", String(port)], {
  cwd: root, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, AzureWebJobsStorage: storage, WidgetStorage: storage },
});
children.push(host);
const hostPid = await new Promise((resolveReady, reject) => {
  let text = "";
  const timer = setTimeout(() => reject(new Error(`WorkerHost was not ready within 120 s:\n${text}`)), 120_000);
  host.stdout.on("data", (chunk) => {
    text += chunk;
    const match = /WorkerHost ready: \S+\/api\/(?: \(pid (\d+))?/.exec(text);
    if (match) {
      clearTimeout(timer);
      host.stdout.removeAllListeners("data");
      host.stdout.on("data", onHostOutput);
      resolveReady(Number(match[1] ?? host.pid));
    }
  });
  host.once("exit", (code) => { clearTimeout(timer); reject(new Error(`WorkerHost exited (code ${code}) before it was ready:\n${text}`)); });
});
say(`WorkerHost ready (pid ${hostPid})`);

const encode = (buffer) => buffer.toString("base64");
const claimMessage = encode(Buffer.from(JSON.stringify({ claimCheck: { blob: "load/seed.json" } })));
const inlineMessage = encode(oneWidget);

/** Runs `count` tasks from `make(i)`, at most `width` at once. */
async function pooled(count, width, make) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, count) }, async () => {
    while (next < count) await make(next++);
  }));
}

/** Receives and deletes every output there is now, 32 at a time; the message ids, in order. */
async function drainOutputs() {
  const ids = [];
  for (;;) {
    const batch = (await outputQueue.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 60 })).receivedMessageItems;
    if (batch.length === 0) return ids;
    for (const message of batch) ids.push(JSON.parse(Buffer.from(message.messageText, "base64").toString("utf8")).messageId);
    await Promise.all(batch.map((m) => outputQueue.deleteMessage(m.messageId, m.popReceipt)));
  }
}

// Every message id enqueued so far and how many outputs it has had: a redelivery of an earlier step's message that
// arrives late still counts as that message's duplicate.
const outputsById = new Map();
const countOutputs = (ids) => {
  let foreign = 0;
  for (const id of ids) {
    if (outputsById.has(id)) outputsById.set(id, outputsById.get(id) + 1);
    else foreign++;
  }
  return foreign;
};

/**
 * Enqueues `count` messages of `kind` and waits until the output queue holds as many outputs (its approximate count,
 * read every 50 ms: the client takes nothing off the queue while the clock runs, so its reads do not compete with the
 * app's); then, off the clock, drains the outputs and checks each id. The step's figures.
 */
async function runStep(kind, count) {
  const text = kind === "inline" ? inlineMessage : claimMessage;
  const envelopeBytes = kind === "inline" ? oneWidget.length : seed.length;
  const ids = [];
  const workers = childPids(hostPid);
  const cpuNow = () => ({
    client: process.cpuUsage(),
    azurite: procCpuMs(azurite.pid),
    host: procCpuMs(hostPid),
    worker: workers.map(procCpuMs).reduce((sum, v) => sum + (v ?? 0), 0),
  });
  const before = cpuNow();
  durations = [];
  const started = performance.now();
  let enqueued = started;
  await Promise.all([
    pooled(count, 16, async () => {
      ids.push((await inputQueue.sendMessage(text)).messageId);
      enqueued = performance.now();
    }),
    (async () => {
      while ((await outputQueue.getProperties()).approximateMessagesCount < count && performance.now() - started < timeoutMs) {
        await new Promise((r) => setTimeout(r, 50));
      }
    })(),
  ]);
  const last = performance.now();
  const after = cpuNow();
  const runMs = { runs: durations.length, p50: percentile(durations, 50), p99: percentile(durations, 99) };
  for (const id of ids) outputsById.set(id, 0);
  let foreign = countOutputs(await drainOutputs());
  for (const drained = performance.now(); ids.some((id) => outputsById.get(id) === 0) && performance.now() - drained < timeoutMs; ) {
    await new Promise((r) => setTimeout(r, 200));
    foreign += countOutputs(await drainOutputs());
  }
  const missing = ids.filter((id) => outputsById.get(id) === 0).length;
  const seconds = (last - started) / 1000;
  const perMessage = (a, b) => (a === null || b === null ? null : (b - a) / count);
  return {
    kind, count, envelopeBytes, seconds, enqueueSeconds: (enqueued - started) / 1000,
    messagesPerSecond: count / seconds, megabytesPerSecond: (count * envelopeBytes) / 1e6 / seconds,
    ids, missing, foreign, runMs,
    rejected: (await rejectedQueue.getProperties()).approximateMessagesCount,
    poisoned: (await poisonQueue.getProperties()).approximateMessagesCount,
    cpuMsPerMessage: {
      client: (after.client.user + after.client.system - before.client.user - before.client.system) / 1000 / count,
      azurite: perMessage(before.azurite, after.azurite),
      host: perMessage(before.host, after.host),
      worker: perMessage(before.worker, after.worker),
    },
  };
}

// 2. Warm-up, 3. the steps.
say(`warming up for ${warmupSeconds} s: 200 inline messages and 10 claim checks at a time`);
for (const started = Date.now(); Date.now() - started < warmupSeconds * 1000; ) {
  await runStep("inline", 200);
  await runStep("claim", 10);
}
const results = [];
for (let round = 1; round <= rounds; round++) {
  for (const step of steps) {
    say(`round ${round}: ${step.id}`);
    const result = { round, step: step.id, ...(await runStep(step.kind, step.count)) };
    results.push(result);
    say(`  ${result.messagesPerSecond.toFixed(1)} messages/s, ${result.megabytesPerSecond.toFixed(1)} MB/s; ${result.missing} missing`);
  }
}

// Late redeliveries: a last look after a pause as long as the trigger's lease renewal.
await new Promise((r) => setTimeout(r, 5000));
const lateForeign = countOutputs(await drainOutputs());
for (const r of results) {
  r.outputs = r.ids.reduce((sum, id) => sum + outputsById.get(id), 0);
  r.duplicates = r.outputs - (r.count - r.missing);
  delete r.ids;
}

// 4. The table.
const fmt = (v, digits = 2) => (v === null || v === undefined ? "n/a" : v.toFixed(digits));
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const trigger = Object.entries(process.env).filter(([k]) => k.startsWith("AzureFunctionsJobHost__extensions__queues__")).map(([k, v]) => `${k.split("__").pop()}=${v}`);
const lines = [
  `Queue signing, isolated app in WorkerHost, Azurite ${azuriteMode}; ${machine}; trigger: host.json${trigger.length ? ` with ${trigger.join(", ")}` : ""}.`,
  "",
  "| round | step | messages/s | MB/s | seconds (enqueued in) | CPU ms per message: client / Azurite / host / worker | run ms p50 / p99 | outputs | duplicates | missing | rejected | poisoned |",
  "| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...results.map((r) => `| ${r.round} | ${r.step} | ${fmt(r.messagesPerSecond, 1)} | ${fmt(r.megabytesPerSecond, 1)} | ${fmt(r.seconds, 1)} (${fmt(r.enqueueSeconds, 1)}) | ` +
    `${fmt(r.cpuMsPerMessage.client)} / ${fmt(r.cpuMsPerMessage.azurite)} / ${fmt(r.cpuMsPerMessage.host)} / ${fmt(r.cpuMsPerMessage.worker)} | ${r.runMs.p50 ?? "n/a"} / ${r.runMs.p99 ?? "n/a"} | ` +
    `${r.outputs} | ${r.duplicates} | ${r.missing} | ${r.rejected} | ${r.poisoned} |`),
];
console.log(lines.join("\n"));
const out = resolve(process.env.QLOAD_OUT ?? mkdtempSync(join(tmpdir(), "load-queue-")));
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "results.md"), `${lines.join("\n")}\n`);
writeFileSync(join(out, "results.json"), `${JSON.stringify({ machine, azurite: azuriteMode, trigger, results }, null, 2)}\n`);
say(`wrote ${out}/results.md and results.json`);

host.kill("SIGTERM");
await new Promise((r) => { host.once("exit", r); setTimeout(r, 15_000); });
const failed = results.filter((r) => r.missing > 0 || r.foreign > 0 || r.rejected > 0 || r.poisoned > 0);
if (lateForeign > 0) say(`${lateForeign} outputs carried an id this run never enqueued`);
for (const r of failed) say(`round ${r.round} ${r.step}: ${r.missing} missing, ${r.foreign} foreign, ${r.rejected} rejected, ${r.poisoned} poisoned`);
process.exit(failed.length > 0 || lateForeign > 0 ? 1 : 0);
