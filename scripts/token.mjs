#!/usr/bin/env node
// `npm run token`: an access token from the local issuer (tools/LocalIssuer, which `npm start` runs), printed alone on
// stdout so `TOKEN=$(npm run -s token)` works; everything else goes to stderr.
//
//   npm run -s token                                  every role, the default local caller (granted every local receiver)
//   npm run -s token -- --roles Widgets.Verify[,...]  only these roles (an empty list: none)
//   npm run -s token -- --receivers partner-a[,...]   a caller granted exactly these receivers: its object id is a UUID
//                                                     from a SHA-256 of the sorted set, and its grants in Azurite's
//                                                     `callergrants` table become exactly that set
//
// ISSUER_PORT moves the issuer off 7079; AZURITE_TABLE_PORT moves Azurite's table endpoint off 10002.
import { createHash } from "node:crypto";
import { grantsClient, receiverIdPattern, setGrants } from "./grants.mjs";

const host = "127.0.0.1";
const tenant = "7a1e0000-0000-4000-8000-000000000001";
const scope = "api://widget-signing-local/.default";
const usage = "usage: npm run -s token [-- --roles Widgets.Sign,Widgets.Verify,Widgets.Keys.Read,Widgets.Keys.ReadAll] [-- --receivers default,partner-a,...]";
const fail = (message, code = 1) => {
  console.error(`[npm run token] ${message}`);
  process.exit(code);
};

function port(name, fallback) {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65535) fail(`${name} must be a port number (1-65535), not '${value}'.`, 2);
  return parsed;
}

/** A caller's object id for a receiver set: the same set always gives the same id (a version-8 UUID, RFC 9562). */
export function callerFor(receivers) {
  const bytes = createHash("sha256").update(`widget-signing local caller\n${[...new Set(receivers)].sort().join("\n")}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const options = {};
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
  const name = args[i];
  if (name !== "--roles" && name !== "--receivers") fail(`Unknown argument '${name}'. ${usage}`, 2);
  if (i + 1 >= args.length) fail(`${name} needs a value. ${usage}`, 2);
  if (options[name] !== undefined) fail(`${name} is given twice. ${usage}`, 2);
  options[name] = args[i + 1];
}

const issuerPort = port("ISSUER_PORT", 7079);
const tablePort = port("AZURITE_TABLE_PORT", 10002);
const form = new URLSearchParams({ grant_type: "client_credentials", scope });
if (options["--roles"] !== undefined) form.set("roles", options["--roles"]);

if (options["--receivers"] !== undefined) {
  const receivers = [...new Set(options["--receivers"].split(",").map((r) => r.trim()))];
  const bad = receivers.find((r) => !receiverIdPattern.test(r));
  if (bad !== undefined) fail(`--receivers: '${bad.slice(0, 64)}' is not a receiver id (1-63 characters of a-z, 0-9 and '-').`, 2);
  if (receivers.length > 64) fail("--receivers: at most 64 receivers.", 2);
  const oid = callerFor(receivers);
  try {
    await setGrants(grantsClient(host, tablePort), oid, receivers, "npm run token");
  } catch (error) {
    fail(`Could not write the grants to Azurite's table endpoint ${host}:${tablePort} (${error.code ?? error.message}): run npm start (it starts Azurite), `
      + "or set AZURITE_TABLE_PORT to where yours listens.");
  }
  form.set("oid", oid);
  console.error(`[npm run token] caller ${oid} granted exactly: ${receivers.join(", ")}`);
}

const endpoint = `http://${host}:${issuerPort}/${tenant}/oauth2/v2.0/token`;
let response;
try {
  response = await fetch(endpoint, { method: "POST", body: form, signal: AbortSignal.timeout(10_000) });
} catch (error) {
  fail(`The local issuer is not answering at ${endpoint} (${error.cause?.code ?? error.message}): run npm start (it starts the issuer), `
    + "or set ISSUER_PORT to where it listens.");
}
const text = await response.text();
let body;
try {
  body = JSON.parse(text);
} catch {
  fail(`The local issuer answered ${response.status} with something other than JSON: is something else listening on ${host}:${issuerPort}?`);
}
if (!response.ok) fail(`The local issuer refused the request (${response.status}): ${body.field ?? ""}: ${body.error_description ?? body.error ?? text.slice(0, 200)}`);
if (typeof body.access_token !== "string") fail(`The local issuer's answer has no access_token.`);
process.stdout.write(body.access_token + "\n");
