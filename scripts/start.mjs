#!/usr/bin/env node
// `npm start`: run the Function App locally in one command.
//
//   1. checks that Azure Functions Core Tools (`func`) is on the PATH, and says how to install it if not;
//   2. copies local.settings.sample.json to FunctionApp/local.settings.json if that file is absent;
//   3. starts Azurite on 127.0.0.1 with telemetry off, data in .azurite/, and waits until it listens;
//   4. runs `func start` in FunctionApp/;
//   5. stops Azurite when func exits, or on Ctrl-C / SIGTERM, and exits with func's code.
//
// A Node script rather than bash: npm already requires Node, and it runs the same on Windows, where func is a .cmd.
// No dependencies beyond Node's own modules.
//
// AZURITE_BLOB_PORT / AZURITE_QUEUE_PORT / AZURITE_TABLE_PORT move Azurite off 10000-10002 (the tests use free ports;
// UseDevelopmentStorage=true in local.settings.json only knows the defaults).

import { spawn } from "node:child_process";
import { constants, copyFileSync, existsSync, statSync } from "node:fs";
import { connect } from "node:net";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const appDir = join(root, "FunctionApp");
const isWindows = process.platform === "win32";
const host = "127.0.0.1";
const ports = {
  blob: port("AZURITE_BLOB_PORT", 10000),
  queue: port("AZURITE_QUEUE_PORT", 10001),
  table: port("AZURITE_TABLE_PORT", 10002),
};
const azuriteStartTimeoutMs = 30_000;
// How long a child gets to stop after a signal before it is killed.
const stopTimeoutMs = 10_000;
// 127: the shell's "command not found".
const exitFuncMissing = 127;

const say = (message) => console.log(`[npm start] ${message}`);
const fail = (message) => console.error(`[npm start] ${message}`);

/** 128 + the signal's number, as a shell reports a process stopped by a signal. */
function exitCodeFor(signal) {
  return { SIGINT: 130, SIGTERM: 143, SIGKILL: 137 }[signal] ?? 1;
}

function port(name, fallback) {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65535) {
    fail(`${name} must be a port number (1-65535), not '${value}'.`);
    process.exit(2);
  }
  return parsed;
}

/** The first `func` on the PATH (func.cmd/func.exe on Windows), or undefined. */
function findOnPath(command) {
  const extensions = isWindows ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    if (!directory) continue;
    for (const extension of extensions) {
      const candidate = join(directory, command + extension.toLowerCase());
      try {
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

function canConnect(port) {
  return new Promise((resolveConnect) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolveConnect(true);
    });
    socket.once("error", () => resolveConnect(false));
  });
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

// 1. func, before anything is started or written: without it there is nothing to run.
const func = findOnPath("func");
if (!func) {
  fail("Azure Functions Core Tools v4 ('func') is not on the PATH. Install it, then run 'npm start' again:");
  fail("  npm i -g azure-functions-core-tools@4");
  fail("  (or winget install Microsoft.Azure.FunctionsCoreTools; brew tap azure/functions && brew install azure-functions-core-tools@4;");
  fail("   see https://learn.microsoft.com/azure/azure-functions/functions-run-local#install-the-azure-functions-core-tools)");
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
  copyFileSync(join(root, "local.settings.sample.json"), settings, constants.COPYFILE_EXCL);
  say(`Created ${relative(root, settings)} from local.settings.sample.json (development-only key).`);
} catch (error) {
  if (error.code !== "EEXIST") throw error;
  say(`Using the existing ${relative(root, settings)}.`);
}

// 3. Azurite. Run with this Node directly (no .cmd shim on Windows). On POSIX it gets its own process group, so a
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

let funcChild;
let stopping = false;
let signalled;

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  if (funcChild) await stop(funcChild, "SIGTERM");
  await stop(azurite, "SIGTERM");
  say("Azurite stopped.");
  process.exit(code);
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = signal;
    say(`${signal}: stopping func and Azurite.`);
    // func started after the signal handlers, so it may not exist yet: then shutdown stops Azurite alone.
    if (funcChild) stop(funcChild, signal); // its exit handler then stops Azurite
    else shutdown(exitCodeFor(signal));
  });
}

azurite.once("exit", (code, signal) => {
  if (stopping || signalled) return;
  fail(`Azurite exited (${signal ?? `code ${code}`}) while it was needed: is another Azurite or storage emulator using ports ${ports.blob}-${ports.table}?`);
  shutdown(1);
});

const started = Date.now();
while (!((await canConnect(ports.blob)) && (await canConnect(ports.queue)) && (await canConnect(ports.table)))) {
  if (stopping || signalled) await new Promise(() => {}); // shutdown() exits the process
  if (Date.now() - started > azuriteStartTimeoutMs) {
    fail(`Azurite did not listen on ${host}:${ports.blob}-${ports.table} within ${azuriteStartTimeoutMs / 1000} s.`);
    await shutdown(1);
  }
  await new Promise((r) => setTimeout(r, 100));
}
if (signalled) await new Promise(() => {}); // a signal arrived as Azurite came up: shutdown() exits the process
say("Azurite is listening.");

// 4. func start. On Windows func is usually func.cmd, which only runs through a shell.
say(`Running '${func} start' in FunctionApp/ (Ctrl-C stops func and Azurite).`);
funcChild = spawn(isWindows ? `"${func}"` : func, ["start"], { cwd: appDir, stdio: "inherit", shell: isWindows });
funcChild.once("error", (error) => {
  fail(`Could not run ${func}: ${error.message}`);
  shutdown(1);
});
funcChild.once("exit", (code, signal) => {
  if (stopping) return;
  say(`func exited (${signal ?? `code ${code}`}).`);
  // 5. Exit like func did, or as the signal that stopped us (or func) would.
  shutdown(signalled || signal ? exitCodeFor(signalled ?? signal) : code);
});
