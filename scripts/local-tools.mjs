// Small helpers the local scripts share (npm start, npm run dashboard, the queue example): finding a command on the
// PATH and asking whether something listens on a port.
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
