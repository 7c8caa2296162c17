#!/usr/bin/env node
// `npm start`: run the Function App locally in one command, on any machine with Node and the .NET SDK.
//
// Two apps share one core; the script runs one of them:
//   node scripts/start.mjs              (npm start)               the isolated-worker app, FunctionApp.Isolated/ (net10.0);
//   node scripts/start.mjs --inprocess  (npm run start:inprocess) the in-process app, FunctionApp/ (net8.0).
// --otlp (npm start -- --otlp), or WIDGET_OTLP=dashboard, sends the app's OpenTelemetry to the local dashboard
// (npm run dashboard) or otlp-sink (npm run otlp-sink): the host and its worker get OTEL_EXPORTER_OTLP_ENDPOINT=
// http://127.0.0.1:4318 (DASHBOARD_OTLP_HTTP_PORT moves it) and OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf; with
// OTEL_EXPORTER_OTLP_PROTOCOL=grpc already set, the dashboard's gRPC port 4317 (DASHBOARD_OTLP_GRPC_PORT). An
// OTEL_EXPORTER_OTLP_ENDPOINT the user set wins over --otlp, and reaches the host either way, as every variable does.
// --otlp also sets OTEL_METRIC_EXPORT_INTERVAL=5000 (metrics every 5 s, not the exporter's 60 s) unless it is set.
// Any other argument is a usage error (exit 2).
//
//   1. picks the host: Core Tools' `func` from node_modules/.bin (the optional npm dependency, where its download
//      worked) or the PATH; without func, the app's local host, which needs `dotnet` (the .NET 10 SDK: global.json):
//      tools/WorkerHost for the isolated app (it starts the worker from the app's build output and serves its HTTP and
//      queue functions), tools/LocalHost for the in-process app (the WebJobs SDK host that runs the app's build output
//      after the real host's start-up checks);
//   2. copies the app's settings sample to its local.settings.json if that file is absent: FunctionApp.Isolated/
//      local.settings.sample.json to FunctionApp.Isolated/local.settings.json, or the repository root's
//      local.settings.sample.json to FunctionApp/local.settings.json;
//   3. without func: builds the app and its local host (dotnet build -c Release -v quiet), printing a line before and
//      after each build; dotnet's errors still show when one fails. Skipped when nothing changed since the last build
//      this script ran: a stamp of the build's inputs (every file under the projects and the projects they reference,
//      files they include from elsewhere, Directory.*.props/targets, global.json, NuGet.config, .editorconfig: path,
//      size, modification time) and of the two outputs it runs is kept in the local host's obj/ after a good build;
//      dotnet's own up-to-date check takes ~10 s, reading the stamp milliseconds;
//      The local token issuer (tools/LocalIssuer) is built the same way, with func too (it runs on dotnet either way);
//   4. starts Azurite on 127.0.0.1 with telemetry off, data in .azurite/, and the local issuer on 127.0.0.1:7079 (the
//      OpenID metadata, keys and token endpoint of the local Entra tenant the settings' Auth:Authority names), and waits
//      until both listen; then writes the default local caller's grants to Azurite's `callergrants` table: one per local
//      receiver (Receivers:DefaultReceiver, default "default", and every Signing:LocalKeys:<id> in local.settings.json);
//   5. runs `func start` in the app's folder, or the local host on the app's build output;
//   6. stops the issuer and Azurite when the host exits, or on Ctrl-C / SIGTERM, and exits with the host's code.
//
// A Node script rather than bash: npm already requires Node, and it runs the same on Windows, where func is a .cmd.
// Its one npm dependency, @azure/data-tables (the grants), is loaded only when the grants are written.
//
// AZURITE_BLOB_PORT / AZURITE_QUEUE_PORT / AZURITE_TABLE_PORT move Azurite off 10000-10002 (the tests use free ports;
// UseDevelopmentStorage=true only knows the defaults, so the host then gets AzureWebJobsStorage and WidgetStorage
// connection strings naming them, as environment variables, which win over local.settings.json).
// HTTP_PORT moves the HTTP port off 7071 (func start --port, WorkerHost/LocalHost --port).
// ISSUER_PORT moves the local issuer off 7079 (the host then gets Auth:Authority naming it, as an environment variable spelled as the settings sample spells it, so it replaces the sample's value rather than sitting beside it).

import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { constants, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { canConnect, envPort, findOnPath } from "./local-tools.mjs";
import { azuriteConnection } from "./azurite.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const isWindows = process.platform === "win32";
const usage = "usage: node scripts/start.mjs [--inprocess] [--otlp]  (npm start: the isolated app FunctionApp.Isolated/; "
  + "npm run start:inprocess: the in-process app FunctionApp/; --otlp: telemetry to npm run dashboard or npm run otlp-sink)";
// Before the ports: port() reports a bad value with fail().
const say = (message) => console.log(`[npm start] ${message}`);
const fail = (message) => console.error(`[npm start] ${message}`);

// The app: the isolated one by default, the in-process one with --inprocess; anything else is refused before any work.
const args = process.argv.slice(2);
const known = ["--inprocess", "--otlp"];
if (args.some((a) => !known.includes(a)) || new Set(args).size !== args.length) {
  fail(`Unknown argument${args.length > 1 ? "s" : ""} '${args.join(" ")}'. ${usage}`);
  process.exit(2);
}
const inProcess = args.includes("--inprocess");
const widgetOtlp = process.env.WIDGET_OTLP ?? "";
if (widgetOtlp !== "" && widgetOtlp !== "dashboard") {
  fail(`WIDGET_OTLP must be 'dashboard' (or unset), not '${widgetOtlp}'. ${usage}`);
  process.exit(2);
}
const otlpAsked = args.includes("--otlp") || widgetOtlp === "dashboard";
const app = inProcess
  ? {
    name: "the in-process app",
    dir: "FunctionApp",
    project: join("FunctionApp", "FunctionApp.csproj"),
    output: join("FunctionApp", "bin", "Release", "net8.0"),
    dll: join("FunctionApp", "bin", "Release", "net8.0", "FunctionApp.dll"),
    sample: "local.settings.sample.json",
    hostName: "LocalHost",
    hostProject: join("tools", "LocalHost", "LocalHost.csproj"),
    hostDll: join("tools", "LocalHost", "bin", "Release", "net8.0", "LocalHost.dll"),
  }
  : {
    name: "the isolated app",
    dir: "FunctionApp.Isolated",
    project: join("FunctionApp.Isolated", "FunctionApp.Isolated.csproj"),
    output: join("FunctionApp.Isolated", "bin", "Release", "net10.0"),
    dll: join("FunctionApp.Isolated", "bin", "Release", "net10.0", "FunctionApp.Isolated.dll"),
    sample: join("FunctionApp.Isolated", "local.settings.sample.json"),
    hostName: "WorkerHost",
    hostProject: join("tools", "WorkerHost", "WorkerHost.csproj"),
    hostDll: join("tools", "WorkerHost", "bin", "Release", "net10.0", "WorkerHost.dll"),
  };
const appDir = join(root, app.dir);

const host = "127.0.0.1";
const ports = {
  blob: port("AZURITE_BLOB_PORT", 10000),
  queue: port("AZURITE_QUEUE_PORT", 10001),
  table: port("AZURITE_TABLE_PORT", 10002),
};
const httpPort = port("HTTP_PORT", 7071);
const issuerPort = port("ISSUER_PORT", 7079);
// --otlp: the local dashboard's (or otlp-sink's) OTLP endpoint, unless the user named one.
const userOtlpEndpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "";
const otlpProtocol = process.env.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf";
const otlp = !otlpAsked || userOtlpEndpoint !== "" ? undefined : {
  protocol: otlpProtocol,
  port: otlpProtocol === "grpc" ? port("DASHBOARD_OTLP_GRPC_PORT", 4317) : port("DASHBOARD_OTLP_HTTP_PORT", 4318),
};
// The local Entra tenant tools/LocalIssuer serves, and the caller `npm start` grants every local receiver.
const localTenant = "7a1e0000-0000-4000-8000-000000000001";
const localCaller = "7a1e0000-0000-4000-8000-00000000000c";
const issuer = {
  project: join("tools", "LocalIssuer", "LocalIssuer.csproj"),
  dll: join("tools", "LocalIssuer", "bin", "Release", "net10.0", "LocalIssuer.dll"),
};
const issuerStartTimeoutMs = 30_000;
const azuriteStartTimeoutMs = 30_000;
// How long a child gets to stop after a signal before it is killed.
const stopTimeoutMs = 10_000;
// 127: the shell's "command not found".
const exitFuncMissing = 127;

/** 128 + the signal's number, as a shell reports a process stopped by a signal. */
function exitCodeFor(signal) {
  return { SIGINT: 130, SIGTERM: 143, SIGKILL: 137 }[signal] ?? 1;
}

function port(name, fallback) {
  return envPort(name, fallback, fail);
}

function exited(child) {
  return new Promise((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit();
    else child.once("exit", () => resolveExit());
  });
}

/** Signals the child, waits for it to exit, and kills it if it takes longer than stopTimeoutMs. */
async function stop(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), stopTimeoutMs);
  await exited(child);
  clearTimeout(timer);
}

function readText(file) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The receivers the app has a local key for: Receivers:DefaultReceiver (default "default") and every
 * Signing:LocalKeys:<id> in the app's local.settings.json, each a valid receiver id.
 */
function localReceivers() {
  let values = {};
  try {
    values = JSON.parse(readText(settings) ?? "{}").Values ?? {};
  } catch {
    // Not JSON: the host reports it; the default receiver is still granted.
  }
  const prefix = "Signing:LocalKeys:";
  const ids = [values["Receivers:DefaultReceiver"] || "default", ...Object.keys(values).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length))];
  return [...new Set(ids.map((id) => String(id).toLowerCase()))].filter((id) => /^[a-z0-9-]{1,63}$/.test(id));
}

/** One line per file: its path from the root, size and modification time, or that it is missing. */
function fileLine(file) {
  try {
    const info = statSync(file);
    return `${relative(root, file)}\t${info.size}\t${info.mtimeMs}`;
  } catch {
    return `${relative(root, file)}\tmissing`;
  }
}

/** Every file under `directory` but build output (bin/, obj/) and tool folders. */
function filesUnder(directory, into) {
  let entries;
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!["bin", "obj", "node_modules", ".git", ".vs", ".vscode", ".idea"].includes(entry.name)) filesUnder(path, into);
    } else {
      into.add(path);
    }
  }
}

/**
 * A hash of what `dotnet build` reads for `projects`: every file under each project's folder and the folders of the
 * projects it references (transitively), the files it includes from elsewhere (Compile/None/Content Include="..\…"),
 * and the repository's build-wide files. A new, edited, touched or deleted file changes it.
 */
function inputsStamp(projects) {
  const files = new Set();
  const seen = new Set();
  const visit = (project) => {
    const path = resolve(root, project);
    if (seen.has(path)) return;
    seen.add(path);
    files.add(path);
    filesUnder(dirname(path), files);
    const text = readText(path) ?? "";
    for (const match of text.matchAll(/<(\w+)\s+Include="([^"]+)"/g)) {
      const [, item, include] = match;
      const target = resolve(dirname(path), include.replaceAll("\\", "/"));
      if (item === "ProjectReference") visit(target);
      else if (include.startsWith("..")) files.add(target);
    }
  };
  projects.forEach(visit);
  for (const name of ["Directory.Build.props", "Directory.Build.targets", "Directory.Packages.props", "global.json", "NuGet.config", "nuget.config", ".editorconfig"]) {
    files.add(join(root, name));
  }
  const lines = [...files].sort().map(fileLine);
  return "inputs " + createHash("sha256").update(lines.join("\n")).digest("hex");
}

/** The files the script runs, as the last build left them: one rebuilt or deleted since means build again. */
function outputsStamp(outputs) {
  return "outputs " + createHash("sha256").update(outputs.map((file) => fileLine(join(root, file))).join("\n")).digest("hex");
}

// 1. The host, before anything is started or written: func where Core Tools are installed (npm's optional
// dependency first, then the PATH), else the local host, which needs the .NET SDK.
const localFunc = join(root, "node_modules", ".bin", isWindows ? "func.cmd" : "func");
const func = existsSync(localFunc) ? localFunc : findOnPath("func");
// dotnet runs the local issuer with func too; without it (func only) there is no issuer, and no local token.
const dotnet = findOnPath("dotnet");
if (!func && !dotnet) {
  fail("Neither Azure Functions Core Tools ('func') nor the .NET SDK ('dotnet') is available: nothing can run the app.");
  fail("  Install the .NET 10 SDK (https://dot.net; global.json requires 10.0.100 or later), then run 'npm start' again: "
    + `it runs ${app.name} in its local host (tools/${app.hostName}).`);
  fail("  Core Tools, optional: 'npm ci' installs them where their download works (or npm i -g azure-functions-core-tools@4).");
  process.exit(exitFuncMissing);
}

const azuriteScript = join(root, "node_modules", "azurite", "dist", "src", "azurite.js");
if (!existsSync(azuriteScript)) {
  fail(`Azurite is not installed (${relative(root, azuriteScript)} is missing). Run 'npm ci' first.`);
  process.exit(1);
}

// 2. Settings: copy the sample once; never overwrite a developer's own settings.
const settings = join(appDir, "local.settings.json");
try {
  copyFileSync(join(root, app.sample), settings, constants.COPYFILE_EXCL);
  say(`Created ${relative(root, settings)} from ${app.sample} (development-only key).`);
} catch (error) {
  if (error.code !== "EEXIST") throw error;
  say(`Using the existing ${relative(root, settings)}.`);
}

// 3. Without func: build the app and its local host, and with or without it the local issuer (a failed build stops here,
// before Azurite), unless the stamp says nothing changed since the last good build. -v quiet keeps a good build silent;
// dotnet's errors (and warnings) still reach the terminal, and a line before and after each build says what the wait is
// for (a first build takes a minute or two).
const localHostDll = join(root, app.hostDll);
const appOutput = join(root, app.output);
if (!func) say(`Core Tools ('func') not found: running ${app.name} in its local host (tools/${app.hostName}) instead.`);
if (!dotnet) {
  say("The .NET SDK ('dotnet') is not on the PATH: the local token issuer (tools/LocalIssuer) cannot run, so no local token "
    + "can be had and the app answers 401. Install the .NET 10 SDK (https://dot.net) for it.");
}
if (dotnet) {
  const projects = func ? [issuer.project] : [app.project, app.hostProject, issuer.project];
  const outputs = func ? [issuer.dll] : [app.dll, app.hostDll, issuer.dll];
  const stampFile = func
    ? join(root, dirname(issuer.project), "obj", "npm-start.stamp")
    : join(root, dirname(app.hostProject), "obj", `npm-start-${inProcess ? "inprocess" : "isolated"}.stamp`);
  const inputs = inputsStamp(projects);
  const outputsBuilt = outputs.every((file) => existsSync(join(root, file)));
  if (outputsBuilt && readText(stampFile) === `${inputs}\n${outputsStamp(outputs)}\n`) {
    say(`Build output up to date: no source, project or build setting changed since npm start last built it (stamp ${relative(root, stampFile)}).`);
  } else {
    for (const project of projects) {
      say(`Building ${project} (dotnet build -c Release)...`);
      const buildStarted = Date.now();
      const built = spawnSync(dotnet, ["build", project, "--configuration", "Release", "--nologo", "-v", "quiet"], { cwd: root, stdio: "inherit" });
      if (built.status !== 0) {
        fail(`dotnet build ${project} failed (${built.error?.message ?? `code ${built.status}`}).`);
        process.exit(1);
      }
      say(`Built ${project} in ${((Date.now() - buildStarted) / 1000).toFixed(1)} s`);
    }
    // The inputs as they were when the build started: a file saved during the build makes the next start build again.
    mkdirSync(dirname(stampFile), { recursive: true });
    writeFileSync(stampFile, `${inputs}\n${outputsStamp(outputs)}\n`);
  }
}

// 4. Azurite, on ports nobody else holds: a listener already there (another Azurite, a storage emulator, an earlier
// run's leftover) would answer in its place, and "Azurite is listening" below would be about someone else's server.
const portVariables = { HTTP: "HTTP_PORT", issuer: "ISSUER_PORT" };
const ours = [["blob", ports.blob], ["queue", ports.queue], ["table", ports.table], ["HTTP", httpPort], ...(dotnet ? [["issuer", issuerPort]] : [])];
for (const [name, busy] of ours) {
  if (await canConnect(host, busy)) {
    fail(`Port ${busy} (${name}) on ${host} is already in use: stop whatever listens there (another Azurite, host or issuer?), or move ours with `
      + `${portVariables[name] ?? `AZURITE_${name.toUpperCase()}_PORT`}.`);
    process.exit(1);
  }
}

// Run Azurite with this Node directly (no .cmd shim on Windows). On POSIX it gets its own process group, so a
// Ctrl-C reaches func and this script but not Azurite: Azurite is stopped by us, after func, in one place.
// --skipApiVersionCheck and --loose as in `npm run azurite`: Core Tools' host may use storage SDKs newer than Azurite.
const azuriteArgs = [
  azuriteScript,
  "--silent",
  "--disableTelemetry",
  "--skipApiVersionCheck",
  "--loose",
  "--location", join(root, ".azurite"),
  "--blobHost", host, "--blobPort", String(ports.blob),
  "--queueHost", host, "--queuePort", String(ports.queue),
  "--tableHost", host, "--tablePort", String(ports.table),
];
const azurite = spawn(process.execPath, azuriteArgs, { cwd: root, stdio: ["ignore", "inherit", "inherit"], detached: !isWindows });
say(`Azurite starting (pid ${azurite.pid}) on ${host}: blob ${ports.blob}, queue ${ports.queue}, table ${ports.table}; telemetry off; data in .azurite/`);

// The local issuer, in its own process group like Azurite, and stopped with it.
const issuerChild = dotnet
  ? spawn(dotnet, [join(root, issuer.dll), "--port", String(issuerPort)], { cwd: root, stdio: ["ignore", "inherit", "inherit"], detached: !isWindows })
  : undefined;
if (issuerChild) say(`Local issuer starting (pid ${issuerChild.pid}): authority http://${host}:${issuerPort}/${localTenant}/v2.0`);

let funcChild;
let stopping = false;
let signalled;

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  if (funcChild) await stop(funcChild, "SIGTERM");
  if (issuerChild) await stop(issuerChild, "SIGTERM");
  await stop(azurite, "SIGTERM");
  say(issuerChild ? "Local issuer and Azurite stopped." : "Azurite stopped.");
  process.exit(code);
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = signal;
    say(`${signal}: stopping the host, the issuer and Azurite.`);
    // The host started after the signal handlers, so it may not exist yet: then shutdown stops Azurite alone.
    if (funcChild) stop(funcChild, signal); // its exit handler then stops Azurite
    else shutdown(exitCodeFor(signal));
  });
}

azurite.once("exit", (code, signal) => {
  if (stopping || signalled) return;
  fail(`Azurite exited (${signal ?? `code ${code}`}) while it was needed: is another Azurite or storage emulator using ports ${ports.blob}-${ports.table}?`);
  shutdown(1);
});

issuerChild?.once("error", (error) => {
  fail(`Could not run the local issuer (${dotnet} ${relative(root, join(root, issuer.dll))}): ${error.message}`);
  shutdown(1);
});
issuerChild?.once("exit", (code, signal) => {
  if (stopping || signalled) return;
  fail(`The local issuer exited (${signal ?? `code ${code}`}) while it was needed: is port ${issuerPort} taken (ISSUER_PORT moves it)?`);
  shutdown(1);
});

const started = Date.now();
while (!((await canConnect(host, ports.blob)) && (await canConnect(host, ports.queue)) && (await canConnect(host, ports.table)))) {
  if (stopping || signalled) await new Promise(() => {}); // shutdown() exits the process
  if (Date.now() - started > azuriteStartTimeoutMs) {
    fail(`Azurite did not listen on ${host}:${ports.blob}-${ports.table} within ${azuriteStartTimeoutMs / 1000} s.`);
    await shutdown(1);
  }
  await new Promise((r) => setTimeout(r, 100));
}
if (signalled) await new Promise(() => {}); // a signal arrived as Azurite came up: shutdown() exits the process
say("Azurite is listening.");

if (issuerChild) {
  while (!(await canConnect(host, issuerPort))) {
    if (stopping || signalled) await new Promise(() => {}); // shutdown() exits the process
    if (Date.now() - started > issuerStartTimeoutMs) {
      fail(`The local issuer did not listen on ${host}:${issuerPort} within ${issuerStartTimeoutMs / 1000} s.`);
      await shutdown(1);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  say("Local issuer is listening ('npm run -s token' prints a token for the default local caller).");
}

// The default local caller's grants: exactly one per local receiver, so a token from `npm run token` signs for each.
const receivers = localReceivers();
try {
  const { grantsClient, setGrants } = await import("./grants.mjs");
  await setGrants(grantsClient(host, ports.table), localCaller, receivers, "npm start");
} catch (error) {
  fail(`Could not write the local caller's grants to Azurite's table (${error.code ?? error.message}). Run 'npm ci' if @azure/data-tables is missing.`);
  await shutdown(1);
}
say(`Granted the local caller ${localCaller} the receivers ${receivers.join(", ")} (Azurite table callergrants).`);

// 5. The host. On Windows func is usually func.cmd, which only runs through a shell.
// Azurite off its default ports: tell the host where it is (environment wins over local.settings.json).
const hostEnv = { ...process.env };
if (ports.blob !== 10000 || ports.queue !== 10001 || ports.table !== 10002) {
  const connection = azuriteConnection(host, ports);
  hostEnv.AzureWebJobsStorage = connection;
  hostEnv.WidgetStorage = connection;
}
if (issuerPort !== 7079) hostEnv["Auth:Authority"] = `http://${host}:${issuerPort}/${localTenant}/v2.0`;
// Telemetry: the host passes its environment on to the worker, which exports OTLP when the endpoint is set.
if (otlp) {
  hostEnv.OTEL_EXPORTER_OTLP_ENDPOINT = `http://${host}:${otlp.port}`;
  hostEnv.OTEL_EXPORTER_OTLP_PROTOCOL = otlp.protocol;
  // The exporter's 60 s default leaves the dashboard's metrics empty for a minute; an interval the user set wins.
  hostEnv.OTEL_METRIC_EXPORT_INTERVAL ||= "5000";
  const every = hostEnv.OTEL_METRIC_EXPORT_INTERVAL === "5000" ? "metrics every 5 s" : `metrics every ${hostEnv.OTEL_METRIC_EXPORT_INTERVAL} ms`;
  say(`Telemetry: OTLP (${otlp.protocol}) to ${hostEnv.OTEL_EXPORTER_OTLP_ENDPOINT}, ${every}.`);
  if (!(await canConnect(host, otlp.port))) {
    say(`  Nothing listens on ${host}:${otlp.port} yet: run 'npm run dashboard' (or 'npm run otlp-sink') in another terminal; until then the app drops what it cannot send.`);
  }
} else if (userOtlpEndpoint !== "") {
  say(`Telemetry: OTLP (${process.env.OTEL_EXPORTER_OTLP_PROTOCOL || "the exporter's default protocol"}) to ${userOtlpEndpoint}, from OTEL_EXPORTER_OTLP_ENDPOINT`
    + `${otlpAsked ? ", which wins over --otlp / WIDGET_OTLP" : ""}.`);
}
if (func) {
  const funcArgs = httpPort === 7071 ? ["start"] : ["start", "--port", String(httpPort)];
  say(`Running '${func} ${funcArgs.join(" ")}' in ${app.dir}/ (Ctrl-C stops func and Azurite).`);
  funcChild = spawn(isWindows ? `"${func}"` : func, funcArgs, { cwd: appDir, stdio: "inherit", shell: isWindows, env: hostEnv });
} else {
  // The in-process app cannot validate tokens: tools/LocalHost plays App Service Authentication in front of it, as in
  // Azure, so a token from `npm run token` is its caller too (docs/local-development.md).
  const hostArgs = [localHostDll, "--app", appOutput, "--settings", settings, "--port", String(httpPort), ...(inProcess ? ["--platform-auth"] : [])];
  say(`Running the local host (tools/${app.hostName}): dotnet ${hostArgs.map((a) => relative(root, a) || a).join(" ")} (Ctrl-C stops it and Azurite).`);
  funcChild = spawn(dotnet, hostArgs, { cwd: root, stdio: "inherit", env: hostEnv });
}
funcChild.once("error", (error) => {
  fail(`Could not run ${func ?? dotnet}: ${error.message}`);
  shutdown(1);
});
funcChild.once("exit", (code, signal) => {
  if (stopping) return;
  say(`${func ? "func" : app.hostName} exited (${signal ?? `code ${code}`}).`);
  // 6. Exit like the host did, or as the signal that stopped us (or func) would.
  shutdown(signalled || signal ? exitCodeFor(signalled ?? signal) : code);
});
