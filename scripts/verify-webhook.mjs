#!/usr/bin/env node
// Verifies a signed answer of the widget signing service with the Standard Webhooks reference library
// (`standardwebhooks`, which we did not write), and its X-Signature with Node's own HMAC.
//
// From files (an ?output=canonical body and its headers, as `curl -D headers.txt -o canonical.json` saves them, or a
// JSON object of headers):
//   node scripts/verify-webhook.mjs --body canonical.json --headers headers.txt --secret whsec_<base64> [--secret …]
// Against a running server (POSTs the envelope to /api/sign?output=canonical, then verifies the answer):
//   node scripts/verify-webhook.mjs --url http://localhost:7071/api/sign?output=canonical --envelope envelope.json \
//        --secret whsec_<base64> [--header "x-functions-key: <key>"] [--idempotency-key <id>]
//
// Each --secret (whsec_ + base64 of the key, or the bare base64) must verify webhook-signature; a rotation in progress
// gives one secret per key. Prints one JSON line; exit 0 when every check passed, 1 when one failed (the library's
// own message, e.g. "Message timestamp too old" for a replay outside its 5-minute tolerance), 2 on bad usage.

import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Webhook } = require("standardwebhooks");

function usage(message) {
  console.error(`verify-webhook: ${message}`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { secrets: [], headers: [] };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    const value = argv[i + 1];
    if (value === undefined) usage(`${name} needs a value`);
    i++;
    switch (name) {
      case "--body": args.body = value; break;
      case "--headers": args.headersFile = value; break;
      case "--secret": args.secrets.push(value); break;
      case "--url": args.url = value; break;
      case "--envelope": args.envelope = value; break;
      case "--header": args.headers.push(value); break;
      case "--idempotency-key": args.idempotencyKey = value; break;
      default: usage(`unknown argument ${name}`);
    }
  }
  if (args.secrets.length === 0) usage("at least one --secret is required");
  if (!args.url && (!args.body || !args.headersFile)) usage("give --body and --headers, or --url and --envelope");
  if (args.url && !args.envelope) usage("--url needs --envelope");
  return args;
}

// curl -D writes the status line and "Name: value" lines; a JSON object is taken as is. Names are lower-cased.
function readHeaders(file) {
  const text = readFileSync(file, "utf8");
  const headers = {};
  if (text.trimStart().startsWith("{")) {
    for (const [name, value] of Object.entries(JSON.parse(text))) headers[name.toLowerCase()] = String(value);
    return headers;
  }
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("HTTP/")) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

async function fromServer(args) {
  const headers = { "content-type": "application/json" };
  for (const header of args.headers) {
    const colon = header.indexOf(":");
    if (colon <= 0) usage(`--header must be "Name: value"`);
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  if (args.idempotencyKey) headers["idempotency-key"] = args.idempotencyKey;
  let response;
  try {
    response = await fetch(args.url, { method: "POST", headers, body: readFileSync(args.envelope) });
  } catch (error) {
    console.log(JSON.stringify({ valid: false, error: `${args.url}: ${error.cause?.message ?? error.message}` }));
    process.exit(1);
  }
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) {
    console.log(JSON.stringify({ valid: false, status: response.status, error: body.toString("utf8").slice(0, 500) }));
    process.exit(1);
  }
  const answer = {};
  response.headers.forEach((value, name) => { answer[name.toLowerCase()] = value; });
  return { body, headers: answer };
}

const args = parseArgs(process.argv.slice(2));
const { body, headers } = args.url
  ? await fromServer(args)
  : { body: readFileSync(args.body), headers: readHeaders(args.headersFile) };

const results = [];
let valid = true;
for (const secret of args.secrets) {
  const result = { secret: secret.startsWith("whsec_") ? "whsec_…" : "…" };
  try {
    // The library checks webhook-timestamp against its 5-minute tolerance, then every v1 entry in constant time.
    new Webhook(secret).verify(body, headers);
    result.webhook = "valid";
  } catch (error) {
    result.webhook = error.message;
    valid = false;
  }
  // X-Signature (hex) is made with the current key only; say which secret, if any, made it.
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  result.xSignature = createHmac("sha256", key).update(body).digest("hex") === headers["x-signature"] ? "valid" : "other-key";
  results.push(result);
}

console.log(JSON.stringify({ valid, webhookId: headers["webhook-id"], timestamp: headers["webhook-timestamp"], results }));
process.exit(valid ? 0 : 1);
