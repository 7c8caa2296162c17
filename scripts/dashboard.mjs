#!/usr/bin/env node
// `npm run dashboard`: the standalone Aspire dashboard on loopback, to look at the app's traces, metrics and logs.
//
//   1. `dotnet tool restore`: the Aspire CLI (aspire.cli, the version .config/dotnet-tools.json pins) from NuGet; the
//      CLI package carries the dashboard itself, unpacked next to it on first use (a few seconds), so nothing else is
//      downloaded;
//   2. runs `dotnet tool run aspire dashboard run` with the UI on http://127.0.0.1:18888 and OTLP on 127.0.0.1:4318
//      (HTTP/protobuf) and 127.0.0.1:4317 (gRPC), unsecured (no login, no API key: loopback only, for one developer),
//      the Aspire CLI's telemetry and update check off;
//   3. waits until all three listen, then prints the dashboard's address and the variables that point an app at it
//      (`npm start -- --otlp` sets them for the app);
//   4. stops the dashboard on Ctrl-C / SIGTERM, and exits with its code.
//
// DASHBOARD_PORT, DASHBOARD_OTLP_HTTP_PORT and DASHBOARD_OTLP_GRPC_PORT move the three ports (npm start -- --otlp reads
// DASHBOARD_OTLP_HTTP_PORT too). The dashboard keeps telemetry in memory only: stopping it forgets everything.

import { spawn, spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { canConnect, envPort, findOnPath } from "./local-tools.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const host = "127.0.0.1";
const say = (message) => console.log(`[dashboard] ${message}`);
const fail = (message) => console.error(`[dashboard] ${message}`);
// The first start unpacks the dashboard (~3 s here); a cold disk or a busy machine gets more.
const startTimeoutMs = 120_000;
const stopTimeoutMs = 10_000;

if (process.argv.length > 2) {
  fail(`Unknown argument '${process.argv.slice(2).join(" ")}'. usage: node scripts/dashboard.mjs  (DASHBOARD_PORT, DASHBOARD_OTLP_HTTP_PORT, DASHBOARD_OTLP_GRPC_PORT)`);
  process.exit(2);
}

function port(name, fallback) {
  return envPort(name, fallback, fail);
}

const ports = {
  frontend: port("DASHBOARD_PORT", 18888),
  otlpHttp: port("DASHBOARD_OTLP_HTTP_PORT", 4318),
  otlpGrpc: port("DASHBOARD_OTLP_GRPC_PORT", 4317),
};
const variables = { frontend: "DASHBOARD_PORT", otlpHttp: "DASHBOARD_OTLP_HTTP_PORT", otlpGrpc: "DASHBOARD_OTLP_GRPC_PORT" };
if (new Set(Object.values(ports)).size !== 3) {
  fail(`The dashboard's three ports must differ: ${Object.entries(ports).map(([k, v]) => `${variables[k]}=${v}`).join(", ")}.`);
  process.exit(2);
}

const dotnet = findOnPath("dotnet");
if (!dotnet) {
  fail("The .NET SDK ('dotnet') is not on the PATH: the dashboard comes as a dotnet tool (the Aspire CLI). Install the .NET 10 SDK "
    + "(https://dot.net), or point the app at `npm run otlp-sink` or any OTLP backend instead (docs/local-development.md).");
  process.exit(127);
}

for (const [name, busy] of Object.entries(ports)) {
  if (await canConnect(host, busy)) {
    fail(`Port ${busy} on ${host} is already in use (another dashboard, npm run otlp-sink, a collector?): stop it, or move ours with ${variables[name]}.`);
    process.exit(1);
  }
}

// 1. The Aspire CLI, as .config/dotnet-tools.json pins it.
const restored = spawnSync(dotnet, ["tool", "restore"], { cwd: root, encoding: "utf8" });
if (restored.status !== 0) {
  process.stderr.write(restored.stdout ?? "");
  process.stderr.write(restored.stderr ?? "");
  fail(`'dotnet tool restore' failed (${restored.error?.message ?? `code ${restored.status}`}): the Aspire CLI could not be had from NuGet.`);
  process.exit(1);
}

// 2. The dashboard. Its own output (the CLI's banner, then the dashboard's log) goes to the terminal as it is.
const urls = {
  frontend: `http://${host}:${ports.frontend}`,
  otlpHttp: `http://${host}:${ports.otlpHttp}`,
  otlpGrpc: `http://${host}:${ports.otlpGrpc}`,
};
const args = [
  "tool", "run", "aspire", "dashboard", "run", "--non-interactive", "--nologo", "--allow-anonymous",
  "--frontend-url", urls.frontend, "--otlp-http-url", urls.otlpHttp, "--otlp-grpc-url", urls.otlpGrpc,
];
say(`Starting the Aspire dashboard (dotnet ${args.join(" ")})...`);
const dashboard = spawn(dotnet, args, {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  // No usage data, and no update check (a package search that only says a newer CLI exists).
  env: { ...process.env, ASPIRE_CLI_TELEMETRY_OPTOUT: "1", DOTNET_CLI_TELEMETRY_OPTOUT: "1", features__updateNotificationsEnabled: "false" },
});

let signalled;
const exitCodes = { SIGINT: 130, SIGTERM: 143 };
dashboard.once("error", (error) => {
  fail(`Could not run ${dotnet}: ${error.message}`);
  process.exit(1);
});
dashboard.once("exit", (code, signal) => {
  if (!signalled) fail(`The dashboard exited (${signal ?? `code ${code}`}).`);
  process.exit(signalled ? exitCodes[signalled] : (code ?? 1));
});

// 4. `dotnet tool run` ignores SIGINT (a terminal's Ctrl-C reaches the dashboard itself) but stops the dashboard on
// SIGTERM: send that, whichever signal we got.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = signal;
    say(`${signal}: stopping the dashboard.`);
    dashboard.kill("SIGTERM");
    setTimeout(() => dashboard.kill("SIGKILL"), stopTimeoutMs).unref();
  });
}

// 3. Ready when the UI and both OTLP endpoints listen.
const started = Date.now();
while (!(await canConnect(host, ports.frontend) && await canConnect(host, ports.otlpHttp) && await canConnect(host, ports.otlpGrpc))) {
  if (signalled) await new Promise(() => {}); // the exit handler ends the process
  if (Date.now() - started > startTimeoutMs) {
    fail(`The dashboard did not listen on ${host}:${ports.frontend}, ${ports.otlpHttp} and ${ports.otlpGrpc} within ${startTimeoutMs / 1000} s.`);
    signalled = "SIGTERM";
    dashboard.kill("SIGTERM");
    await new Promise(() => {});
  }
  await new Promise((r) => setTimeout(r, 200));
}
say(`Dashboard: ${urls.frontend} (no login)`);
say(`OTLP/HTTP: ${urls.otlpHttp}   OTLP/gRPC: ${urls.otlpGrpc}`);
say(`Point the app at it: npm start -- --otlp (in another terminal), or set OTEL_EXPORTER_OTLP_ENDPOINT=${urls.otlpHttp} `
  + "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf for it. Ctrl-C stops the dashboard (its telemetry is in memory only).");
