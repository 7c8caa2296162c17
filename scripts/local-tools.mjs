// Small helpers the local scripts share (npm start, npm run dashboard): finding a command on the PATH, asking whether
// something listens on a port, and reading a port from the environment.
import { statSync } from "node:fs";
import { connect } from "node:net";
import { delimiter, join } from "node:path";

const isWindows = process.platform === "win32";

/** The first `command` on the PATH (on Windows with a PATHEXT extension: func.cmd, dotnet.exe), or undefined. */
export function findOnPath(command) {
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

/** Resolves true when a TCP connection to host:port succeeds, false when it is refused or fails. */
export function canConnect(host, port) {
  return new Promise((resolveConnect) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolveConnect(true);
    });
    socket.once("error", () => resolveConnect(false));
  });
}

/**
 * The port environment variable `name` names, or `fallback` when it is unset or empty. Anything but a whole number from
 * 1 to 65535 is reported through `fail` (the script's own error line) and exits 2.
 */
export function envPort(name, fallback, fail) {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65535) {
    fail(`${name} must be a port number (1-65535), not '${value}'.`);
    process.exit(2);
  }
  return parsed;
}
