#!/usr/bin/env node
// `npm run audit`: the audit trail checker (tools/AuditTrail), built once when its build is missing or older than its
// sources, then run with the arguments given; its exit code passes through (0 holds / found, 1 break / none found,
// 2 usage or store unreadable).
//
//   npm run audit -- verify [--process <p>] [--public-key whpk_<base64>]... [--connection <cs> | --account-url <url>] [--container widget-audit]
//   npm run audit -- find <webhook-id | 64-hex canonical SHA-256> [same connection options]
//
// Without --connection: AUDIT_STORAGE, else local Azurite (AZURITE_BLOB_PORT moves it off 10000).
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findOnPath } from "./local-tools.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const project = join(root, "tools", "AuditTrail");
const dll = join(project, "bin", "Release", "net10.0", "AuditTrail.dll");
const fail = (message, code = 2) => {
  console.error(`[npm run audit] ${message}`);
  process.exit(code);
};

/** The newest modification time of the tool's sources (its .cs files and project), skipping build output. */
function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (entry.name !== "bin" && entry.name !== "obj") newest = Math.max(newest, newestSource(join(directory, entry.name)));
    } else if (entry.name.endsWith(".cs") || entry.name.endsWith(".csproj")) {
      newest = Math.max(newest, statSync(join(directory, entry.name)).mtimeMs);
    }
  }
  return newest;
}

function builtAt() {
  try {
    return statSync(dll).mtimeMs;
  } catch {
    return undefined;
  }
}

const dotnet = findOnPath("dotnet");
if (dotnet === undefined) fail("dotnet is not on the PATH: install the .NET SDK global.json names.");

const built = builtAt();
if (built === undefined || built < newestSource(project)) {
  console.error("[npm run audit] building tools/AuditTrail (Release) ...");
  const build = spawnSync(dotnet, ["build", join("tools", "AuditTrail"), "-c", "Release", "-v", "q", "-nologo"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  if (build.status !== 0) fail(`dotnet build tools/AuditTrail failed (exit ${build.status ?? build.signal}).`);
}

const run = spawnSync(dotnet, [dll, ...process.argv.slice(2)], { stdio: "inherit" });
if (run.error !== undefined) fail(`could not run ${dll} (${run.error.code ?? run.error.message}).`);
process.exit(run.status ?? 2);
