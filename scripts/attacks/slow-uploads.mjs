#!/usr/bin/env node
// Slow uploads against a running host (`npm start`, or any base URL): SLOW clients each declare a ~1.1 MB
// Content-Length and send RATE bytes per second, while one normal client signs the one-widget vector in a loop. Prints
// the normal requests' p50/p99/max latency and statuses during the attack, and each slow client's answer (status, time).
// Bounded: ATTACK_SECONDS of normal traffic (default 30), then at most WAIT_SECONDS (default 60) for the slow clients'
// answers, then every socket is closed. Loopback only. Exits 1 unless every normal request was a 200 and their p99 stayed
// within P99_LIMIT_MS (default 1000): the slow clients' own answers are reported, not judged (through the isolated app's
// host they are the host's 500 unless their body ends; docs/security.md).
//
// Every request, normal and slow, carries a bearer token (the app refuses a call without one before it would sign, and
// an attacker with a valid token is the stronger case): --token, else the TOKEN environment variable, else one minted
// for the default local caller from the local issuer `npm start` runs on 127.0.0.1:ISSUER_PORT (default 7079), as
// `npm run token` does. The token is never printed.
//
//   node scripts/attacks/slow-uploads.mjs [--url http://127.0.0.1:7071] [--slow 8] [--rate 500] [--token <jwt>]
import { connect } from "node:net";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const base = new URL(arg("url", process.env.SIGN_URL ?? "http://127.0.0.1:7071"));
if (!["127.0.0.1", "localhost", "[::1]"].includes(base.hostname)) {
  console.error(`slow-uploads: ${base.hostname} is not a loopback address; this attack only runs against this machine.`);
  process.exit(2);
}
const slowCount = Number(arg("slow", 8));
const rate = Number(arg("rate", 500));
const attackSeconds = Number(process.env.ATTACK_SECONDS ?? 30);
const waitSeconds = Number(process.env.WAIT_SECONDS ?? 60);
const declared = 1167610;
const body = readFileSync(join(root, "FunctionApp.Tests", "TestData", "vectors", "one-widget", "input.json"));
const port = Number(base.port || 80);

/** The token from the local issuer's client-credentials endpoint (tools/LocalIssuer), for the default local caller. */
async function mintToken() {
  const issuerPort = Number(process.env.ISSUER_PORT || 7079);
  if (!Number.isInteger(issuerPort) || issuerPort < 1 || issuerPort > 65535) {
    console.error(`slow-uploads: ISSUER_PORT must be a port number (1-65535), not '${process.env.ISSUER_PORT}'.`);
    process.exit(2);
  }
  const endpoint = `http://127.0.0.1:${issuerPort}/7a1e0000-0000-4000-8000-000000000001/oauth2/v2.0/token`;
  const form = new URLSearchParams({ grant_type: "client_credentials", scope: "api://widget-signing-local/.default" });
  try {
    const response = await fetch(endpoint, { method: "POST", body: form, signal: AbortSignal.timeout(10_000) });
    const answer = await response.json().catch(() => ({}));
    if (response.ok && typeof answer.access_token === "string") return answer.access_token;
    console.error(`slow-uploads: the local issuer at ${endpoint} answered ${response.status} without a token: ${answer.error_description ?? answer.error ?? ""}`);
  } catch (error) {
    console.error(`slow-uploads: no local issuer at ${endpoint} (${error.cause?.code ?? error.message}): run npm start (it starts the issuer), set ISSUER_PORT, or give --token / TOKEN.`);
  }
  process.exit(2);
}

const token = arg("token", undefined) || process.env.TOKEN || (await mintToken());
if (!/^[A-Za-z0-9._~+/=-]+$/.test(token) || token.length > 16384) {
  console.error("slow-uploads: the token is not a bearer token (base64url parts, at most 16 KiB).");
  process.exit(2);
}
const authorization = `Bearer ${token}`;
const started = performance.now();
const since = () => (performance.now() - started) / 1000;

function slowClient(index) {
  return new Promise((done) => {
    const socket = connect({ host: base.hostname.replace(/^\[|\]$/g, ""), port });
    let sent = 0;
    let answer = "";
    let timer;
    const finish = (status) => {
      clearInterval(timer);
      socket.destroy();
      done({ index, status, seconds: since(), sent });
    };
    socket.on("connect", () => {
      socket.write(`POST /api/sign HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
      const chunk = Math.max(1, Math.round(rate / 10));
      timer = setInterval(() => {
        if (sent + chunk > declared) return;
        socket.write(Buffer.alloc(chunk, 0x20));
        sent += chunk;
      }, 100);
    });
    socket.on("data", (d) => {
      answer += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (m) finish(Number(m[1]));
    });
    socket.on("error", () => finish(answer ? "error" : "reset"));
    socket.on("close", () => finish(answer ? "closed" : "closed without an answer"));
    setTimeout(() => finish("no answer"), (attackSeconds + waitSeconds) * 1000);
  });
}

const slow = Array.from({ length: slowCount }, (_, i) => slowClient(i));
await new Promise((r) => setTimeout(r, 1000));
const latencies = [];
const statuses = new Map();
while (since() < attackSeconds + 1) {
  const t0 = performance.now();
  let status;
  try {
    const res = await fetch(new URL("/api/sign", base), {
      method: "POST",
      headers: { "content-type": "application/json", authorization },
      body,
      signal: AbortSignal.timeout(attackSeconds * 1000),
    });
    await res.arrayBuffer();
    status = res.status;
  } catch (e) {
    status = e.name;
  }
  latencies.push(performance.now() - t0);
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  await new Promise((r) => setTimeout(r, 100));
}

const sorted = [...latencies].sort((a, b) => a - b);
const pct = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(1);
console.log(`slow uploads: ${slowCount} at ${rate} B/s, Content-Length ${declared}; normal requests for ${attackSeconds} s`);
console.log(`normal: ${sorted.length} requests, p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${sorted.at(-1).toFixed(1)} ms, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
const answers = await Promise.all(slow);
const byStatus = new Map();
for (const a of answers) {
  const key = String(a.status);
  const entry = byStatus.get(key) ?? { count: 0, first: Infinity, last: 0, sent: 0 };
  entry.count++;
  entry.first = Math.min(entry.first, a.seconds);
  entry.last = Math.max(entry.last, a.seconds);
  entry.sent = Math.max(entry.sent, a.sent);
  byStatus.set(key, entry);
}
for (const [status, e] of byStatus) {
  console.log(`slow: ${e.count} × ${status}, answered ${e.first.toFixed(1)}–${e.last.toFixed(1)} s after the start, up to ${e.sent} bytes sent`);
}
const limit = Number(process.env.P99_LIMIT_MS ?? 1000);
const held = [...statuses.keys()].some((s) => s !== 200) || Number(pct(99)) > limit;
if (held) console.log(`normal requests were held: not all 200, or p99 above ${limit} ms`);
process.exit(held ? 1 : 0);
