#!/usr/bin/env node
// `npm run otlp-sink`: a tiny OTLP/HTTP receiver on loopback that counts what an exporter sends and throws it away.
// Point the app at it (OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318, OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf) to
// see that telemetry leaves the app and how many bytes it costs, without a dashboard or a collector; `npm run load` with
// LOAD_OTLP=sink runs it to measure the telemetry per signature.
//
//   POST /v1/traces, /v1/metrics, /v1/logs with Content-Type application/x-protobuf (Content-Encoding gzip or none):
//   200 with an empty body of type application/x-protobuf, which is a valid empty Export*ServiceResponse. The body is
//   walked as protobuf wire format down to the spans, metric data points and log records, to count them (and, with
//   --verbose, to name the spans and metrics seen).
//   Refusals, each with a plain-text reason: 404 another path; 405 another method; 415 another content type or
//   encoding; 413 a body (on the wire or after gunzip) over OTLP_SINK_MAX_BYTES (default 8 MiB); 400 a body that is not
//   gzip or not protobuf of the expected shape.
//   GET /summary: the counts so far as JSON (what `npm run load` reads between runs).
//
// The summary, {traces:{requests,bytes,uncompressedBytes,items}, metrics:{…}, logs:{…}, refused:{<status>:n}} (bytes as
// received, items = spans, data points or log records), is printed as one JSON line on stdout on SIGINT/SIGTERM, and
// every N seconds with --report[=N] (default 10). With --verbose it also holds spanNames and metricNames: name -> count,
// at most 1,000 names each (the rest counted under "(other names)").
//
// OTLP_SINK_PORT (default 4318, the OTLP/HTTP port; 0 picks a free one) moves it; it listens on 127.0.0.1 only and
// prints "otlp-sink listening on http://127.0.0.1:<port>" to stderr when ready. gRPC is not served: exporters set to
// `grpc` need the dashboard (npm run dashboard) or a collector.

import { createServer } from "node:http";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzip } from "node:zlib";

export const defaultPort = 4318;
export const defaultMaxBytes = 8 * 1024 * 1024;
const maxNames = 1000;
const otherNames = "(other names)";
// A body over the limit is read on and dropped up to this many bytes, so the client gets its 413 rather than a reset;
// past it the connection is closed.
const drainLimit = 64 * 1024 * 1024;
const signals = { "/v1/traces": "traces", "/v1/metrics": "metrics", "/v1/logs": "logs" };

class BadProtobuf extends Error {}

/** The fields of one protobuf message: [field number, wire type, value], value a Buffer for LEN, else a number. */
function* fields(buffer) {
  let offset = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (offset >= buffer.length) throw new BadProtobuf("truncated varint");
      const byte = buffer[offset++];
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new BadProtobuf("varint longer than 10 bytes");
  };
  while (offset < buffer.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wireType = key % 8;
    if (field === 0) throw new BadProtobuf("field number 0");
    if (wireType === 0) {
      yield [field, wireType, varint()];
    } else if (wireType === 1 || wireType === 5) {
      const size = wireType === 1 ? 8 : 4;
      if (offset + size > buffer.length) throw new BadProtobuf("truncated fixed-size field");
      offset += size;
      yield [field, wireType, 0];
    } else if (wireType === 2) {
      const length = varint();
      if (length > buffer.length - offset) throw new BadProtobuf("length past the end of the message");
      yield [field, wireType, buffer.subarray(offset, offset + length)];
      offset += length;
    } else {
      throw new BadProtobuf(`wire type ${wireType}`);
    }
  }
}

/** The LEN values of `field` in `buffer`. */
function* embedded(buffer, field) {
  for (const [number, wireType, value] of fields(buffer)) {
    if (number === field) {
      if (wireType !== 2) throw new BadProtobuf(`field ${field} is not length-delimited`);
      yield value;
    }
  }
}

function text(buffer, field) {
  let found = "";
  for (const value of embedded(buffer, field)) found = value.toString("utf8");
  return found;
}

// The OTLP protos (opentelemetry-proto, collector/*/v1 and */v1): Export*ServiceRequest.resource_* = 1,
// Resource*.scope_* = 2, Scope*.<items> = 2; Span.name = 5; Metric.name = 1 and its gauge 5, sum 7, histogram 9,
// exponential_histogram 10, summary 11, each with data_points = 1.
const metricKinds = [5, 7, 9, 10, 11];

/** Counts the items of one export request and, with `names`, tallies span or metric names. */
function walk(signal, body, names) {
  let items = 0;
  for (const resource of embedded(body, 1)) {
    for (const scope of embedded(resource, 2)) {
      for (const item of embedded(scope, 2)) {
        if (signal === "traces") {
          items++;
          if (names) names(text(item, 5));
        } else if (signal === "metrics") {
          for (const [number, wireType, value] of fields(item)) {
            if (wireType === 2 && metricKinds.includes(number)) for (const _ of embedded(value, 1)) items++;
          }
          if (names) names(text(item, 1));
        } else {
          items++;
        }
      }
    }
  }
  return items;
}

function emptySignal() {
  return { requests: 0, bytes: 0, uncompressedBytes: 0, items: 0 };
}

/**
 * Starts the sink on 127.0.0.1:`port` (0: a free port). Resolves with { port, summary(), close() } once it listens.
 * `verbose` keeps span and metric names; `maxBytes` bounds a body on the wire and after gunzip.
 */
export async function startSink({ port = defaultPort, maxBytes = defaultMaxBytes, verbose = false } = {}) {
  const counts = { traces: emptySignal(), metrics: emptySignal(), logs: emptySignal() };
  const refused = {};
  const spanNames = new Map();
  const metricNames = new Map();
  const tally = (map) => (name) => {
    const key = map.has(name) || map.size < maxNames ? name : otherNames;
    map.set(key, (map.get(key) ?? 0) + 1);
  };

  const summary = () => ({
    traces: { ...counts.traces },
    metrics: { ...counts.metrics },
    logs: { ...counts.logs },
    refused: { ...refused },
    ...(verbose ? { spanNames: Object.fromEntries(spanNames), metricNames: Object.fromEntries(metricNames) } : {}),
  });

  const server = createServer((request, response) => {
    const answer = (status, message, headers = {}) => {
      if (status !== 200) refused[status] = (refused[status] ?? 0) + 1;
      if (status === 200) {
        response.writeHead(200, { "content-type": "application/x-protobuf", "content-length": 0, ...headers });
        response.end();
      } else {
        const body = Buffer.from(`${message}\n`);
        response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": body.length, ...headers });
        response.end(body);
      }
    };
    const path = (request.url ?? "").split("?")[0];
    if (path === "/summary" && request.method === "GET") {
      const body = Buffer.from(JSON.stringify(summary()));
      response.writeHead(200, { "content-type": "application/json", "content-length": body.length });
      response.end(body);
      return;
    }
    const signal = signals[path];
    if (!signal) return answer(404, `No OTLP signal at ${path.slice(0, 100)}: POST /v1/traces, /v1/metrics or /v1/logs.`);
    if (request.method !== "POST") return answer(405, `${path} takes POST only.`, { allow: "POST" });
    const type = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "application/x-protobuf") {
      return answer(415, `Content-Type must be application/x-protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf), not '${type.slice(0, 100)}'.`);
    }
    const encoding = (request.headers["content-encoding"] ?? "identity").trim().toLowerCase();
    if (encoding !== "identity" && encoding !== "gzip") {
      return answer(415, `Content-Encoding must be gzip or none, not '${encoding.slice(0, 100)}'.`);
    }
    const declared = Number(request.headers["content-length"]);
    if (declared > drainLimit) return answer(413, `The body is ${declared} bytes; at most ${maxBytes} are accepted.`, { connection: "close" });

    const chunks = [];
    let received = 0;
    request.on("data", (chunk) => {
      received += chunk.length;
      if (received > drainLimit) {
        answer(413, `The body is over ${maxBytes} bytes.`, { connection: "close" });
        request.destroy();
      } else if (received <= maxBytes) {
        chunks.push(chunk);
      }
    });
    request.on("end", () => {
      if (received > maxBytes) return answer(413, `The body is ${received} bytes; at most ${maxBytes} are accepted.`);
      const wire = Buffer.concat(chunks);
      const accept = (body) => {
        let items;
        try {
          items = walk(signal, body, verbose ? tally(signal === "traces" ? spanNames : metricNames) : undefined);
        } catch (error) {
          if (!(error instanceof BadProtobuf)) throw error;
          return answer(400, `The body is not an OTLP ${signal} export request: ${error.message}.`);
        }
        const count = counts[signal];
        count.requests++;
        count.bytes += wire.length;
        count.uncompressedBytes += body.length;
        count.items += items;
        answer(200);
      };
      if (encoding !== "gzip") return accept(wire);
      gunzip(wire, { maxOutputLength: maxBytes }, (error, body) => {
        if (!error) accept(body);
        else if (error.code === "ERR_BUFFER_TOO_LARGE") answer(413, `The body is over ${maxBytes} bytes once gunzipped.`);
        else answer(400, `The body is not gzip: ${error.message}.`);
      });
    });
    request.on("error", () => {});
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;

  await new Promise((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolveListen();
    });
  });
  return {
    port: server.address().port,
    summary,
    close: () => new Promise((resolveClose) => {
      server.close(() => resolveClose());
      server.closeAllConnections();
    }),
  };
}

function number(name, value, min, max) {
  const parsed = Number(value);
  if (value === "" || !Number.isInteger(parsed) || parsed < min || parsed > max) {
    console.error(`[otlp-sink] ${name} must be a whole number from ${min} to ${max}, not '${value}'.`);
    process.exit(2);
  }
  return parsed;
}

async function main() {
  const usage = "usage: node scripts/otlp-sink.mjs [--verbose] [--report[=seconds]]  (OTLP_SINK_PORT, OTLP_SINK_MAX_BYTES)";
  let verbose = false;
  let reportSeconds = 0;
  for (const argument of process.argv.slice(2)) {
    if (argument === "--verbose") verbose = true;
    else if (argument === "--report") reportSeconds = 10;
    else if (argument.startsWith("--report=")) reportSeconds = number("--report", argument.slice("--report=".length), 1, 3600);
    else {
      console.error(`[otlp-sink] Unknown argument '${argument}'. ${usage}`);
      process.exit(2);
    }
  }
  const port = process.env.OTLP_SINK_PORT ? number("OTLP_SINK_PORT", process.env.OTLP_SINK_PORT, 0, 65535) : defaultPort;
  const maxBytes = process.env.OTLP_SINK_MAX_BYTES ? number("OTLP_SINK_MAX_BYTES", process.env.OTLP_SINK_MAX_BYTES, 1, drainLimit) : defaultMaxBytes;
  let sink;
  try {
    sink = await startSink({ port, maxBytes, verbose });
  } catch (error) {
    console.error(`[otlp-sink] Cannot listen on 127.0.0.1:${port} (${error.code ?? error.message}): is a dashboard or collector there? OTLP_SINK_PORT moves the sink.`);
    process.exit(1);
  }
  const endpoint = `http://127.0.0.1:${sink.port}`;
  console.error(`[otlp-sink] otlp-sink listening on ${endpoint}`);
  console.error(`[otlp-sink] Point an app at it: OTEL_EXPORTER_OTLP_ENDPOINT=${endpoint} OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf. Ctrl-C prints the summary.`);
  const print = () => console.log(JSON.stringify(sink.summary()));
  if (reportSeconds > 0) setInterval(print, reportSeconds * 1000).unref();
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, async () => {
      print();
      await sink.close();
      process.exit(0);
    });
  }
}

// Run as a script (not when imported).
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) await main();
