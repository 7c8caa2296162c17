#!/usr/bin/env node
// `npm run trace-screenshot`: a picture of one signature's trace in the local Aspire dashboard, taken by headless
// Chromium, written to docs/images/trace-of-a-signature.png (the image the docs show; run this again to refresh it).
//
//   1. finds headless Chromium: CHROMIUM (a path), else /usr/bin/chromium-headless-shell (Debian's
//      chromium-headless-shell package), else `chromium-headless-shell` or `chromium` on the PATH; when none is there,
//      installs it with `apt-get install -y chromium-headless-shell` (apt-get update first if that fails) when running
//      as root on Linux, and otherwise exits 2 naming that command;
//   2. starts the dashboard (`node scripts/dashboard.mjs`: UI on 127.0.0.1:18888, OTLP on 4318/4317) and the isolated
//      app with its telemetry sent there (`node scripts/start.mjs --otlp`: Azurite, the local issuer on 7079 and the
//      host on 127.0.0.1:7071; it builds what changed first), each in its own process group, their output to one log
//      file in the temp folder (its path is printed, and its tail on failure; Chromium's output goes to another);
//      waits until the dashboard's UI and OTLP/HTTP port and the app's HTTP port answer;
//   3. gets a token for the default local caller (`node scripts/token.mjs`), and signs the one-widget test vector
//      (../shared/vectors/one-widget/input.json) for partner-a four times (POST /api/sign?receiver=partner-a): three
//      warm-up requests, then one with a traceparent naming a fresh trace id, the trace the picture shows;
//   4. starts Chromium (--headless --no-sandbox --window-size=1600,1000, a throw-away profile, DevTools on a free
//      loopback port) and drives it over the DevTools protocol (Node's global WebSocket where there is one, Node 22+;
//      else a minimal client below): opens the dashboard's trace detail page, /traces/detail/<trace id>, and polls the
//      page's text until every span of a signature is there (the page is reloaded every 10 s while the dashboard has not
//      got the whole trace yet; 90 s at most), then takes a PNG of the page's width down to the waterfall's last row
//      (the empty page below it left out);
//   5. stops everything it started (SIGTERM to each process group, SIGKILL after 20 s; the dashboard and npm start
//      stop their own children on SIGTERM), and exits 0 only when the picture was written with the whole trace on the
//      page; 1 when something failed (the log's tail says what, and a process that exited on its own is named at
//      once), 2 on a usage error or no Chromium; 130/143 on Ctrl-C/SIGTERM.
//
// The usual ports must be free (18888, 4317, 4318, 7071, 7079, 10000-10002; DASHBOARD_PORT, DASHBOARD_OTLP_HTTP_PORT,
// HTTP_PORT and the others npm start and the dashboard read move them). Where other things hold them, run it in a
// network namespace of its own: `unshare --net bash -c 'ip link set lo up && npm run trace-screenshot'` (as root; the
// namespace has no network, so install Chromium and run `dotnet tool restore` outside it first).
// Needs Node 20+, the .NET 10 SDK, and npm ci done (Azurite). About 45 s when the app is built.

import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { canConnect, envPort, findOnPath } from "./local-tools.mjs";
import { freePort } from "./proc.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const host = "127.0.0.1";
const say = (message) => console.log(`[trace-screenshot] ${message}`);
const fail = (message) => console.error(`[trace-screenshot] ${message}`);

const output = join(root, "docs", "images", "trace-of-a-signature.png");
const vector = resolve(root, "..", "shared", "vectors", "one-widget", "input.json");
const receiver = "partner-a";
const viewport = { width: 1600, height: 1000 };
// The spans of one signature over HTTP, as the dashboard names them: the host's and the worker's, then the app's own
// (WidgetSigning/Telemetry/WidgetSigningTelemetry.cs). The picture counts only when the page shows all of them.
const spanNames = ["Invoke Sign", "function Sign", "widgetsigning.sign", "widgetsigning.read", "widgetsigning.audit.wait"];
// The first start may build the app (a few minutes on a cold machine); the dashboard unpacks itself on first use.
const appStartTimeoutMs = 600_000;
const dashboardStartTimeoutMs = 180_000;
const renderTimeoutMs = 90_000;
const reloadEveryMs = 10_000;
const stopTimeoutMs = 20_000;

if (process.argv.length > 2) {
  fail(`Unknown argument '${process.argv.slice(2).join(" ")}'. usage: node scripts/trace-screenshot.mjs  (npm run trace-screenshot; no arguments)`);
  process.exit(2);
}
const dashboardPort = envPort("DASHBOARD_PORT", 18888, fail);
const otlpHttpPort = envPort("DASHBOARD_OTLP_HTTP_PORT", 4318, fail);
const httpPort = envPort("HTTP_PORT", 7071, fail);
const dashboardUrl = `http://${host}:${dashboardPort}`;
const appUrl = `http://${host}:${httpPort}`;

let body;
try {
  body = readFileSync(vector);
} catch (error) {
  fail(`Cannot read the test vector ${vector} (${error.code ?? error.message}): it lives in the shared folder next to the repository.`);
  process.exit(1);
}

// 1. Headless Chromium.
function findChromium() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  try {
    if (statSync("/usr/bin/chromium-headless-shell").isFile()) return "/usr/bin/chromium-headless-shell";
  } catch {
    // not installed there
  }
  return findOnPath("chromium-headless-shell") ?? findOnPath("chromium");
}

const aptInstall = "apt-get install -y chromium-headless-shell";
let chromium = findChromium();
if (!chromium) {
  const isRoot = process.platform === "linux" && process.getuid?.() === 0;
  if (!isRoot || !findOnPath("apt-get")) {
    fail(`Headless Chromium is not installed (no /usr/bin/chromium-headless-shell, no chromium on the PATH). Install it with `
      + `'sudo ${aptInstall}' (Debian/Ubuntu), or set CHROMIUM to a Chromium or Chrome binary.`);
    process.exit(2);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  say(`Headless Chromium is not installed: ${aptInstall}`);
  let installed = spawnSync("apt-get", ["install", "-y", "chromium-headless-shell"], { stdio: "inherit", env });
  if (installed.status !== 0) {
    say("apt-get install failed: apt-get update, then once more.");
    spawnSync("apt-get", ["update"], { stdio: "inherit", env });
    installed = spawnSync("apt-get", ["install", "-y", "chromium-headless-shell"], { stdio: "inherit", env });
  }
  chromium = findChromium();
  if (installed.status !== 0 || !chromium) {
    fail(`'${aptInstall}' failed (${installed.error?.message ?? `code ${installed.status}`}): no headless Chromium.`);
    process.exit(1);
  }
}
const version = spawnSync(chromium, ["--version"], { encoding: "utf8" });
say(`Chromium: ${chromium} (${(version.stdout || version.stderr || "version unknown").trim()})`);

// Everything started from here on is stopped by stopAll(), whatever happens.
const logFile = join(tmpdir(), `trace-screenshot-${process.pid}.log`);
const log = openSync(logFile, "w");
// Chromium's own lines (D-Bus and GPU complaints, the page's console) apart, so the log's tail is about the services.
const chromiumLogFile = join(tmpdir(), `trace-screenshot-${process.pid}-chromium.log`);
const children = [];
let profile;
let stopping = false;

function start(name, command, args, to = log) {
  writeFileSync(to, `\n===== ${name}: ${command} ${args.join(" ")}\n`, { flag: "a" });
  const child = spawn(command, args, { cwd: root, stdio: ["ignore", to, to], detached: true });
  const entry = { name, child, exited: false };
  child.once("error", (error) => {
    entry.exited = true;
    entry.error = error;
  });
  child.once("exit", (code, signal) => {
    entry.exited = true;
    entry.code = code;
    entry.signal = signal;
  });
  children.push(entry);
  return entry;
}

async function stopAll() {
  if (stopping) return;
  stopping = true;
  for (const entry of [...children].reverse()) {
    if (entry.exited || entry.child.pid === undefined) continue;
    try {
      process.kill(-entry.child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + stopTimeoutMs;
  while (children.some((e) => !e.exited) && Date.now() < deadline) await sleep(100);
  for (const entry of children) {
    if (entry.child.pid === undefined) continue;
    try {
      // The group too: a grandchild that outlived its parent (Chromium's helpers, a host the script left) goes with it.
      process.kill(-entry.child.pid, "SIGKILL");
    } catch {
      // no such group left: all stopped
    }
  }
  if (profile) rmSync(profile, { recursive: true, force: true });
}

function logTail(lines = 40) {
  try {
    return readFileSync(logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

async function giveUp(message) {
  fail(message);
  console.error(`----- the last lines of ${logFile} (Chromium's: ${chromiumLogFile}):\n${logTail()}\n-----`);
  await stopAll();
  process.exit(1);
}

const exitCodes = { SIGINT: 130, SIGTERM: 143 };
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    if (stopping) return;
    say(`${signal}: stopping everything this script started.`);
    await stopAll();
    process.exit(exitCodes[signal]);
  });
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Whether anything answers HTTP at url (any status: the app's root is a 404, and that is an answer). */
async function answers(url) {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) }).then((r) => r.arrayBuffer());
    return true;
  } catch {
    return false;
  }
}

/** Gives up when one of the processes started so far has exited on its own (a failed start, a signal from elsewhere). */
async function checkAlive(when) {
  const gone = children.find((e) => e.exited);
  if (gone) await giveUp(`${gone.name} exited ${when} (${gone.error?.message ?? gone.signal ?? `code ${gone.code}`}).`);
}

async function waitFor(what, timeoutMs, ready) {
  const started = Date.now();
  while (!(await ready())) {
    await checkAlive(`before ${what.toLowerCase()} was ready`);
    if (Date.now() - started > timeoutMs) await giveUp(`${what} was not ready within ${timeoutMs / 1000} s.`);
    await sleep(250);
  }
  say(`${what} is ready (${((Date.now() - started) / 1000).toFixed(1)} s).`);
}

// 2. The dashboard and the app, side by side (the app's build, if any, takes longest).
const began = Date.now();
say(`Output of the dashboard and the app: ${logFile}; Chromium's: ${chromiumLogFile}`);
for (const [name, busy] of [["the dashboard", dashboardPort], ["the dashboard's OTLP/HTTP", otlpHttpPort], ["the app", httpPort]]) {
  if (await canConnect(host, busy)) {
    fail(`Port ${busy} (${name}) on ${host} is already in use: stop whatever listens there, or run this in a network namespace `
      + "of its own: unshare --net bash -c 'ip link set lo up && npm run trace-screenshot'");
    process.exit(1);
  }
}
say("Starting the dashboard (node scripts/dashboard.mjs) and the app (node scripts/start.mjs --otlp)...");
start("the dashboard", process.execPath, [join(root, "scripts", "dashboard.mjs")]);
start("the app", process.execPath, [join(root, "scripts", "start.mjs"), "--otlp"]);
await waitFor("The dashboard", dashboardStartTimeoutMs, async () => await answers(dashboardUrl) && await canConnect(host, otlpHttpPort));
await waitFor("The app", appStartTimeoutMs, () => answers(appUrl));

// 3. A token and four signatures; the last one's trace id is ours.
const token = spawnSync(process.execPath, [join(root, "scripts", "token.mjs")], { cwd: root, encoding: "utf8" });
if (token.status !== 0 || !token.stdout.trim()) await giveUp(`node scripts/token.mjs failed (code ${token.status}): ${token.stderr.trim()}`);
const traceId = randomBytes(16).toString("hex");
const traceparent = `00-${traceId}-${randomBytes(8).toString("hex")}-01`;
for (let i = 1; i <= 4; i++) {
  const last = i === 4;
  const headers = { "Content-Type": "application/json", Authorization: `Bearer ${token.stdout.trim()}`, ...(last ? { traceparent } : {}) };
  let response;
  let text;
  try {
    response = await fetch(`${appUrl}/api/sign?receiver=${receiver}`, { method: "POST", headers, body, signal: AbortSignal.timeout(30_000) });
    text = await response.text();
  } catch (error) {
    await giveUp(`POST /api/sign?receiver=${receiver} failed: ${error.cause?.code ?? error.message}`);
  }
  if (response.status !== 200) await giveUp(`POST /api/sign?receiver=${receiver} answered ${response.status}: ${text.slice(0, 300)}`);
  if (last) say(`Signed the one-widget vector for ${receiver} four times; the last in trace ${traceId} (traceparent ${traceparent}).`);
}

// 4. Chromium, over the DevTools protocol.
profile = mkdtempSync(join(tmpdir(), "trace-screenshot-chromium-"));
const debugPort = await freePort();
start("Chromium", chromium, [
  `--remote-debugging-port=${debugPort}`, `--remote-debugging-address=${host}`, `--remote-allow-origins=http://${host}:${debugPort}`,
  "--headless", "--no-sandbox", `--window-size=${viewport.width},${viewport.height}`, `--user-data-dir=${profile}`,
  "--no-first-run", "--no-default-browser-check", "--disable-dev-shm-usage", "--hide-scrollbars", "about:blank",
], openSync(chromiumLogFile, "w"));
let pageSocket;
await waitFor("Chromium", 30_000, async () => {
  try {
    const targets = await (await fetch(`http://${host}:${debugPort}/json/list`, { signal: AbortSignal.timeout(2_000) })).json();
    pageSocket = targets.find((t) => t.type === "page" && t.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
    return pageSocket !== undefined;
  } catch {
    return false;
  }
});

let cdp;
try {
  cdp = await devtools(pageSocket);
} catch (error) {
  await giveUp(`Could not open the DevTools connection ${pageSocket}: ${error.message}`);
}
const traceUrl = `${dashboardUrl}/traces/detail/${traceId}`;
let shown = false;
try {
  await cdp.send("Emulation.setDeviceMetricsOverride", { ...viewport, deviceScaleFactor: 1, mobile: false });
  await cdp.send("Page.enable");
  say(`Opening ${traceUrl}`);
  await cdp.send("Page.navigate", { url: traceUrl });
  const started = Date.now();
  let reloaded = started;
  let missing = spanNames;
  while (Date.now() - started < renderTimeoutMs) {
    await sleep(500);
    await checkAlive("while the trace page was open");
    const result = await cdp.send("Runtime.evaluate", { expression: "document.body ? document.body.innerText : ''", returnByValue: true });
    const text = result.result?.value ?? "";
    missing = spanNames.filter((name) => !text.includes(name));
    if (missing.length === 0) {
      shown = true;
      break;
    }
    if (Date.now() - reloaded > reloadEveryMs) {
      reloaded = Date.now();
      await cdp.send("Page.reload", { ignoreCache: true });
    }
  }
  if (!shown) await giveUp(`The trace page did not show ${missing.join(", ")} within ${renderTimeoutMs / 1000} s: ${traceUrl}`);
  // The page's last layout and the waterfall's bars settle after the text is there.
  await sleep(1_500);
  // Down to the waterfall's last row and a margin, not the empty page below it: the lowest text naming a span.
  const lowest = await cdp.send("Runtime.evaluate", {
    expression: `(() => {
      const names = ${JSON.stringify(spanNames)};
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      let bottom = 0;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!names.some((name) => node.nodeValue.includes(name))) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        bottom = Math.max(bottom, range.getBoundingClientRect().bottom);
      }
      return Math.ceil(bottom);
    })()`,
    returnByValue: true,
  });
  const height = Math.min(viewport.height, Math.max(200, (lowest.result?.value ?? viewport.height) + 40));
  const shot = await cdp.send("Page.captureScreenshot", { format: "png", clip: { x: 0, y: 0, width: viewport.width, height, scale: 1 } });
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, Buffer.from(shot.data, "base64"));
  say(`Wrote ${relative(root, output)} (${statSync(output).size} bytes, ${viewport.width}x${height}), the trace of one signature: ${spanNames.join(", ")}.`);
} catch (error) {
  await giveUp(`The DevTools session failed: ${error.message}`);
}
cdp.close();

// 5. Stop it all.
say("Stopping Chromium, the app and the dashboard...");
await stopAll();
say(`Done in ${((Date.now() - began) / 1000).toFixed(0)} s.`);
process.exit(0);

/**
 * A DevTools protocol session over the WebSocket at url: send(method, params) resolves with the result or rejects with
 * the error; events are ignored. Node's global WebSocket (Node 22+) where there is one, else the client below.
 */
async function devtools(url) {
  const pending = new Map();
  let nextId = 1;
  const onMessage = (text) => {
    const message = JSON.parse(text);
    const waiting = message.id !== undefined && pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(`${waiting.method}: ${message.error.message}`));
    else waiting.resolve(message.result);
  };
  const onClose = () => {
    for (const waiting of pending.values()) waiting.reject(new Error(`${waiting.method}: the DevTools connection closed`));
    pending.clear();
  };
  const socket = typeof globalThis.WebSocket === "function" ? await globalSocket(url, onMessage, onClose) : await minimalSocket(url, onMessage, onClose);
  return {
    send(method, params = {}) {
      const id = nextId++;
      return new Promise((resolveSend, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method}: no answer within 30 s`));
        }, 30_000);
        pending.set(id, {
          method,
          resolve: (value) => { clearTimeout(timer); resolveSend(value); },
          reject: (error) => { clearTimeout(timer); reject(error); },
        });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => socket.close(),
  };
}

function globalSocket(url, onMessage, onClose) {
  return new Promise((resolveOpen, reject) => {
    const ws = new globalThis.WebSocket(url);
    ws.onopen = () => resolveOpen({ send: (text) => ws.send(text), close: () => ws.close() });
    ws.onerror = (event) => reject(new Error(event.message ?? "WebSocket error"));
    ws.onmessage = (event) => onMessage(event.data);
    ws.onclose = onClose;
  });
}

/**
 * A WebSocket client (RFC 6455) for ws:// on loopback, just enough for DevTools: text messages (fragmented or not, of
 * any length), ping answered with pong, close. Client frames are masked, as the RFC requires; no extensions.
 */
function minimalSocket(url, onMessage, onClose) {
  const { hostname, port, pathname, search } = new URL(url);
  const key = randomBytes(16).toString("base64");
  const accept = createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
  return new Promise((resolveOpen, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let buffer = Buffer.alloc(0);
    let open = false;
    let fragments = [];
    const frame = (opcode, payload) => {
      const mask = randomBytes(4);
      const length = payload.length;
      const head = length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length])
        : length < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff])
          : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(length)); return b; })()]);
      const masked = Buffer.alloc(length);
      for (let i = 0; i < length; i++) masked[i] = payload[i] ^ mask[i & 3];
      socket.write(Buffer.concat([head, mask, masked]));
    };
    socket.once("connect", () => {
      socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    socket.on("error", (error) => (open ? onClose() : reject(error)));
    socket.on("close", () => (open ? onClose() : reject(new Error("closed during the handshake"))));
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!open) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString("latin1");
        buffer = buffer.subarray(end + 4);
        const status = head.split("\r\n")[0];
        if (!/^HTTP\/1\.1 101/.test(status)) return reject(new Error(`handshake answered '${status}'`));
        if (!new RegExp(`^sec-websocket-accept:\\s*${accept.replace(/[+/=]/g, "\\$&")}\\s*$`, "im").test(head)) return reject(new Error("handshake: wrong Sec-WebSocket-Accept"));
        open = true;
        resolveOpen({
          send: (text) => frame(0x1, Buffer.from(text, "utf8")),
          close: () => { frame(0x8, Buffer.alloc(0)); socket.end(); },
        });
      }
      // Frames from the server: FIN/opcode, then a 7-, 16- or 64-bit length; server frames are not masked.
      while (buffer.length >= 2) {
        const fin = (buffer[0] & 0x80) !== 0;
        const opcode = buffer[0] & 0x0f;
        let length = buffer[1] & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (buffer.length < 4) return;
          length = buffer.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (buffer.length < 10) return;
          length = Number(buffer.readBigUInt64BE(2));
          offset = 10;
        }
        if (buffer.length < offset + length) return;
        const payload = buffer.subarray(offset, offset + length);
        buffer = buffer.subarray(offset + length);
        if (opcode === 0x8) {
          socket.end();
          return;
        }
        if (opcode === 0x9) frame(0xa, payload);
        if (opcode === 0x1 || opcode === 0x0) {
          fragments.push(Buffer.from(payload));
          if (fin) {
            const text = Buffer.concat(fragments).toString("utf8");
            fragments = [];
            onMessage(text);
          }
        }
      }
    });
  });
}
