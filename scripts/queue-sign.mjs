#!/usr/bin/env node
// Queue signing from the command line, as a producer and a consumer would do it with the Azure Storage SDK
// (@azure/storage-queue): puts an envelope on the input queue, waits for the output with the same messageId,
// writes its canonical bytes to a file and prints its signature (64 hex digits) on stdout.
//
//   node scripts/queue-sign.mjs <envelope.json> <canonical-out> [timeout seconds, default 60]
//
// Connection, as `npm start` gives the app: AZURITE_QUEUE_PORT set means Azurite on 127.0.0.1 at that port (npm start
// moves Azurite there and points the app's WidgetStorage at it); else WidgetStorage from the environment; else
// UseDevelopmentStorage=true (Azurite on its default ports, queue 10001).
// Queue names: WidgetInputQueue / WidgetOutputQueue, else their defaults. Messages are base64 of the UTF-8 JSON, both
// ways (docs/queue.md). Progress goes to stderr; any failure exits 1 saying why in one line (a bad port value exits 2).
// Nothing listening at the queue endpoint is found with one TCP connect before the SDK is used (the SDK would retry
// for ~17 s and end in a stack trace).

import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { QueueServiceClient } from "@azure/storage-queue";
import { azuriteConnection } from "./azurite.mjs";

const log = (message) => console.error(`[queue-sign] ${message}`);
const [envelopePath, canonicalPath, timeoutArg] = process.argv.slice(2);
if (!envelopePath || !canonicalPath) {
  console.error("usage: node scripts/queue-sign.mjs <envelope.json> <canonical-out> [timeout seconds]");
  process.exit(2);
}

let envelope;
try {
  envelope = readFileSync(envelopePath);
} catch (error) {
  log(`cannot read the envelope ${envelopePath}: ${error.message}`);
  process.exit(1);
}

const timeoutMs = Number(timeoutArg ?? 60) * 1000;
const connectTimeoutMs = 3000;
const queuePortValue = process.env.AZURITE_QUEUE_PORT;
let connection = process.env.WidgetStorage || "UseDevelopmentStorage=true";
let source = process.env.WidgetStorage ? "WidgetStorage" : "UseDevelopmentStorage=true";
if (queuePortValue !== undefined && queuePortValue !== "") {
  const port = Number(queuePortValue);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    log(`AZURITE_QUEUE_PORT must be a port number (1-65535), not '${queuePortValue}'.`);
    process.exit(2);
  }
  connection = azuriteConnection("127.0.0.1", { queue: port });
  source = "AZURITE_QUEUE_PORT";
}

let service;
try {
  // Few, short retries: a local emulator answers at once or not at all.
  service = QueueServiceClient.fromConnectionString(connection, { retryOptions: { maxTries: 2, tryTimeoutInMs: 10_000, retryDelayInMs: 200 } });
} catch (error) {
  log(`${source} is not a storage connection string the SDK accepts: ${firstLine(error)}`);
  process.exit(1);
}

const endpoint = new URL(service.url);
const endpointPort = Number(endpoint.port || (endpoint.protocol === "https:" ? 443 : 80));
const address = `${endpoint.hostname}:${endpointPort}`;
if (!(await canConnect(endpoint.hostname, endpointPort))) {
  log(`nothing listens at the queue endpoint ${address} (${endpoint.origin}, from ${source}): start Azurite and the app with `
    + "'npm start' (with the same AZURITE_QUEUE_PORT, if you moved it), or set WidgetStorage to a storage account's connection string.");
  process.exit(1);
}

try {
  const input = service.getQueueClient(process.env.WidgetInputQueue || "widget-envelopes");
  const output = service.getQueueClient(process.env.WidgetOutputQueue || "widget-signatures");
  await input.createIfNotExists();
  await output.createIfNotExists();

  const sent = await input.sendMessage(envelope.toString("base64"));
  log(`sent ${envelopePath} to ${input.name} at ${address} as message ${sent.messageId}; waiting for its output on ${output.name}`);

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // Short leases: messages that are not ours become visible again to other consumers within seconds.
    const received = await output.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 5 });
    for (const message of received.receivedMessageItems) {
      const result = JSON.parse(Buffer.from(message.messageText, "base64").toString("utf8"));
      if (result.messageId !== sent.messageId) continue;
      if (!result.canonicalBase64) {
        log(`output for ${sent.messageId} has no inline canonical bytes (canonicalBlob ${JSON.stringify(result.canonicalBlob)}); use a small envelope`);
        process.exit(1);
      }
      writeFileSync(canonicalPath, Buffer.from(result.canonicalBase64, "base64"));
      await output.deleteMessage(message.messageId, message.popReceipt);
      log(`output for ${sent.messageId}: ${result.widgetCount} widget(s), key ${result.keyId}; canonical bytes in ${canonicalPath}`);
      console.log(result.signature);
      process.exit(0);
    }
    if (received.receivedMessageItems.length === 0) await new Promise((r) => setTimeout(r, 500));
  }
  log(`no output for message ${sent.messageId} on ${output.name} within ${timeoutMs / 1000} s: is the host running with the queue trigger?`);
  process.exit(1);
} catch (error) {
  log(`the queue service at ${address} failed: ${firstLine(error)}`);
  process.exit(1);
}

function firstLine(error) {
  const status = error?.statusCode ? `${error.statusCode} ` : "";
  const code = error?.code ? `${error.code}: ` : "";
  return status + code + String(error?.message ?? error).split("\n")[0];
}

function canConnect(host, port) {
  return new Promise((resolveConnect) => {
    const socket = connect({ host, port, timeout: connectTimeoutMs });
    socket.once("connect", () => {
      socket.destroy();
      resolveConnect(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolveConnect(false);
    });
    socket.once("error", () => resolveConnect(false));
  });
}
