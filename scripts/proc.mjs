// What the load scripts read about processes and ports: free loopback ports, and each process's CPU time, memory and
// children from /proc (Linux; null or empty elsewhere).
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { connect, createServer } from "node:net";

/** A port free on 127.0.0.1 now. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** Whether something accepts a TCP connection on 127.0.0.1:port. */
export function listening(port) {
  return new Promise((resolveConnect) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => { socket.destroy(); resolveConnect(true); });
    socket.once("error", () => resolveConnect(false));
  });
}

/** VmRSS and VmHWM of a process in bytes, from /proc/<pid>/status; null where there is no /proc or the process is gone. */
export function procMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return null;
  }
}

/** A process's child processes (the isolated worker of WorkerHost), from /proc/<pid>/task/<tid>/children. */
export function childPids(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

const clockTicks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim() || 100);

/** CPU time (ms, user + system) a process has used so far, from /proc/<pid>/stat; null where there is no /proc. */
export function procCpuMs(pid) {
  try {
    // Fields after the command (which may hold spaces) start at ") ": utime and stime are the 12th and 13th of those.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return null;
  }
}
