#!/usr/bin/env node
// Queue signing from the command line, as a producer and a consumer would do it with the Azure Storage SDK
// (@azure/storage-queue): puts an envelope on the input queue, waits for the output with the same messageId,
// writes its canonical bytes to a file and prints its signature (64 hex digits) on stdout.
//
//   node scripts/queue-sign.mjs <envelope.json> <canonical-out> [timeout seconds, default 60]
//
// Connection: WidgetStorage from the environment, else UseDevelopmentStorage=true (Azurite on its default ports).
// Queue names: WidgetInputQueue / WidgetOutputQueue, else their defaults. Messages are base64 of the UTF-8 JSON, both
// ways (docs/queue.md). Progress goes to stderr; any failure exits 1 saying why.

import { readFileSync, writeFileSync } from "node:fs";
import { QueueServiceClient } from "@azure/storage-queue";

const [envelopePath, canonicalPath, timeoutArg] = process.argv.slice(2);
if (!envelopePath || !canonicalPath) {
  console.error("usage: node scripts/queue-sign.mjs <envelope.json> <canonical-out> [timeout seconds]");
  process.exit(2);
}

const log = (message) => console.error(`[queue-sign] ${message}`);
const timeoutMs = Number(timeoutArg ?? 60) * 1000;
const service = QueueServiceClient.fromConnectionString(process.env.WidgetStorage || "UseDevelopmentStorage=true");
const input = service.getQueueClient(process.env.WidgetInputQueue || "widget-envelopes");
const output = service.getQueueClient(process.env.WidgetOutputQueue || "widget-signatures");
await input.createIfNotExists();
await output.createIfNotExists();

const sent = await input.sendMessage(readFileSync(envelopePath).toString("base64"));
log(`sent ${envelopePath} to ${input.name} as message ${sent.messageId}; waiting for its output on ${output.name}`);

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
