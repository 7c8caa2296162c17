#!/usr/bin/env bash
# Smoke test of a deployed app, without the signing key: it never reads the vault (the pipeline identity has no
# Key Vault data role). It signs the 'one-widget' known-answer envelope through /api/sign and checks
#  - the answer is 200 with the exact canonical bytes of the vector and an HMACSHA256 signature,
#  - the key id is a Key Vault secret version (32 hex digits), not the development key 'local', and the signature is
#    not the vector's (made with the public test key),
#  - /api/verify accepts that signature for that envelope, and refuses it for a tampered envelope and for a tampered
#    signature (so the app really verifies with the key it signed with),
#  - malformed JSON is a 400 problem+json, a call without a function key is a 401, and a call with the key but without
#    a bearer token is the app's own 401 with WWW-Authenticate: Bearer (the app checks callers, not only the platform),
#  - the queue path: the same envelope put on the input queue comes out on the output queue with the same message
#    id, a Key Vault key version, and a signature /api/verify accepts for that envelope.
# The function key is fetched inside the retry loop: a cold host may have no keys yet. Every call carries the key
# (x-functions-key) and an Entra access token for the app (Authorization: Bearer), from
# `az account get-access-token --resource <app id URI>`: the app id URI is the 8th argument (or api://<client id> for
# a client id GUID), or else the app's setting Auth__AppIdUri (or api://<Auth__Audience>), read with
# `az functionapp config appsettings list`. Neither the key nor the token is ever printed or put on a command line.
#
# Usage: smoke-test.sh <base-url> <resource-group> <function-app-name> <vectors-dir> <data-account> <input-queue> <output-queue> [<app-id-uri-or-client-id>]
# Needs: az (logged in as an identity allowed to list the app's function keys, with Storage Queue Data Message Sender
# on the input queue and Storage Queue Data Reader on the output queue, nothing else; the app roles Widgets.Sign and
# Widgets.Verify on the app registration and a grant for the default receiver; without the 8th argument, also the
# right to list the app's settings), curl, python3, base64.
# SMOKE_RETRIES / SMOKE_RETRY_SECONDS: how long to wait for a cold start, and for the queue's answer.
set -euo pipefail

usage="usage: smoke-test.sh <base-url> <resource-group> <function-app-name> <vectors-dir> <data-account> <input-queue> <output-queue> [<app-id-uri-or-client-id>]"
base_url="${1:?$usage}"
resource_group="${2:?$usage}"
app_name="${3:?$usage}"
vectors="${4:?$usage}"
data_account="${5:?$usage}"
input_queue="${6:?$usage}"
output_queue="${7:?$usage}"
app_id="${8:-}"
retries="${SMOKE_RETRIES:-20}"
delay="${SMOKE_RETRY_SECONDS:-15}"

umask 077
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "SMOKE FAIL: $*" >&2; exit 1; }

# The function key goes to curl through a private header file, not its command line; Azure Pipelines masks it.
# Fetched inside the retry loop below: right after a deployment the host may not have started, and has no keys yet.
: >"$work/no-header"
fetch_key() {
  local function_key
  function_key="$(az functionapp keys list --resource-group "$resource_group" --name "$app_name" --query functionKeys.default --output tsv 2>/dev/null)" || return 1
  [[ -n "$function_key" ]] || return 1
  if [[ -n "${TF_BUILD:-}" ]]; then echo "##vso[task.setsecret]$function_key"; fi
  printf 'x-functions-key: %s\n' "$function_key" >"$work/key-header"
}

# The resource to ask Entra for: the app id URI (api://...), from the argument or the app's settings. A client id GUID
# stands for api://<client id>, the identifier URI docs/deploy.md gives the app registration.
resource_for() {
  local value="$1"
  if [[ "$value" =~ ^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$ ]]; then
    echo "api://$value"
  elif [[ "$value" =~ ^api://[A-Za-z0-9._~/-]{1,200}$ ]]; then
    echo "$value"
  else
    return 1
  fi
}
if [[ -n "$app_id" ]]; then
  resource="$(resource_for "$app_id")" || { echo "SMOKE FAIL: '${app_id:0:80}' is neither an app id URI (api://...) nor a client id GUID. $usage" >&2; exit 2; }
else
  settings="$(az functionapp config appsettings list --resource-group "$resource_group" --name "$app_name" \
    --query "[?name=='Auth__AppIdUri' || name=='Auth__Audience'].[name, value]" --output tsv)" \
    || fail "could not list the settings of '$app_name' to find its app id URI: give it as the 8th argument"
  app_id="$(awk -F '\t' '$1 == "Auth__AppIdUri" && $2 != "" { print $2 }' <<<"$settings" | tr -d '\r')"
  [[ -n "$app_id" ]] || app_id="$(awk -F '\t' '$1 == "Auth__Audience" && $2 != "" { print $2 }' <<<"$settings" | tr -d '\r')"
  [[ -n "$app_id" ]] || fail "'$app_name' has neither Auth__AppIdUri nor Auth__Audience: give the app id URI as the 8th argument"
  resource="$(resource_for "$app_id")" || fail "'$app_name' names '${app_id:0:80}' as its app id URI or client id, which is neither"
fi

# The token, like the key, goes to curl through a private header file.
token="$(az account get-access-token --resource "$resource" --query accessToken --output tsv 2>/dev/null)" \
  || fail "could not get an access token for $resource: is the identity logged in, and is the app registration's identifier URI $resource?"
[[ "$token" =~ ^[A-Za-z0-9._-]+$ ]] || fail "the access token for $resource is not a JWT"
if [[ -n "${TF_BUILD:-}" ]]; then echo "##vso[task.setsecret]$token"; fi
printf 'Authorization: Bearer %s\n' "$token" >"$work/token-header"
unset token

# call <path> <body-file> <with-key: yes|no> [extra header]... -> prints the status; body and headers land in $work.
# no_token=1 before a call leaves the bearer token out of that call.
call() {
  local path="$1" body="$2" key_file="$work/no-header" token_file="$work/token-header"
  [[ "$3" == "yes" ]] && key_file="$work/key-header"
  [[ "${no_token:-}" == "1" ]] && token_file="$work/no-header"
  shift 3
  local extra=()
  for header in "$@"; do extra+=(-H "$header"); done
  curl --silent --show-error --max-time 120 --output "$work/body" --dump-header "$work/headers" \
    --write-out '%{http_code}' -X POST -H 'Content-Type: application/json' -H "@$key_file" -H "@$token_file" "${extra[@]}" \
    --data-binary "@$body" "$base_url$path" || echo "000"
}
header() { grep -i "^$1:" "$work/headers" | tail -n 1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//'; }
json_field() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print(str(v).lower() if isinstance(v,bool) else v)' "$work/body" "$1"; }

status="000"
for ((attempt = 1; attempt <= retries; attempt++)); do
  if [[ -s "$work/key-header" ]] || fetch_key; then
    status="$(call "/api/sign?output=canonical" "$vectors/one-widget/input.json" yes)"
    [[ "$status" == "200" ]] && break
    echo "Attempt $attempt of $retries: HTTP $status; waiting ${delay}s for the app to start."
  else
    echo "Attempt $attempt of $retries: no function key yet; waiting ${delay}s for the host to start."
  fi
  sleep "$delay"
done
[[ -s "$work/key-header" ]] || fail "no default function key on '$app_name' after $retries attempts"
[[ "$status" == "200" ]] || fail "POST /api/sign answered $status, expected 200"

cmp --silent "$work/body" "$vectors/one-widget/canonical.json" || fail "canonical bytes differ from the vector"
[[ "$(header X-Signature-Algorithm)" == "HMACSHA256" ]] || fail "X-Signature-Algorithm is not HMACSHA256"
key_id="$(header X-Signature-Key-Id)"
[[ "$key_id" =~ ^[0-9a-f]{32}$ ]] || fail "X-Signature-Key-Id is '$key_id', not a Key Vault secret version: the app is not signing with the Key Vault key"
signature="$(header X-Signature)"
[[ "$signature" =~ ^[0-9a-f]{64}$ ]] || fail "X-Signature is not 64 hex digits"
test_signature="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["signatureHex"])' "$vectors/one-widget/expected.json")"
[[ "$signature" != "$test_signature" ]] || fail "the app signs with the public test key of the vectors"

# The app verifies its own signature...
status="$(call /api/verify "$vectors/one-widget/input.json" yes "X-Signature: $signature" "X-Signature-Key-Id: $key_id")"
[[ "$status" == "200" && "$(json_field valid)" == "true" ]] || fail "/api/verify did not accept the app's own signature (HTTP $status)"

# ...and refuses it for a tampered envelope (one character of one property changed)...
python3 - "$vectors/one-widget/input.json" "$work/tampered.json" <<'PY'
import json, sys
envelope = json.load(open(sys.argv[1]))
value = envelope["widgets"][0]["property0"]
envelope["widgets"][0]["property0"] = ("X" if value[:1] != "X" else "Y") + value[1:]
json.dump(envelope, open(sys.argv[2], "w"))
PY
status="$(call /api/verify "$work/tampered.json" yes "X-Signature: $signature" "X-Signature-Key-Id: $key_id")"
[[ "$status" == "200" && "$(json_field valid)" == "false" ]] || fail "/api/verify accepted the signature for a tampered envelope (HTTP $status)"

# ...and a tampered signature for the original envelope.
tampered_signature="$( [[ "${signature:0:1}" == "0" ]] && echo "1${signature:1}" || echo "0${signature:1}")"
status="$(call /api/verify "$vectors/one-widget/input.json" yes "X-Signature: $tampered_signature" "X-Signature-Key-Id: $key_id")"
[[ "$status" == "200" && "$(json_field valid)" == "false" ]] || fail "/api/verify accepted a tampered signature (HTTP $status)"

status="$(call "/api/sign?output=canonical" "$vectors/not-json/input.json" yes)"
[[ "$status" == "400" ]] || fail "malformed JSON answered $status, expected 400"
[[ "$(header Content-Type)" == application/problem+json* ]] || fail "malformed JSON did not answer application/problem+json"

status="$(call "/api/sign?output=canonical" "$vectors/one-widget/input.json" no)"
[[ "$status" == "401" ]] || fail "a call without a function key answered $status, expected 401"

status="$(no_token=1 call "/api/sign?output=canonical" "$vectors/one-widget/input.json" yes)"
[[ "$status" == "401" ]] || fail "a call with the function key but without a bearer token answered $status, expected 401: the app does not check callers"
[[ "$(header WWW-Authenticate)" == Bearer* ]] || fail "a call without a bearer token got no 'WWW-Authenticate: Bearer' challenge"

# The queue path: the envelope goes on the input queue (base64, as the trigger reads it) with the only data right this
# identity has there (message send); its output is found by message id with a peek (the only right on the output
# queue), never received or deleted, so the app's consumers still get it.
message_id="$(az storage message put --auth-mode login --account-name "$data_account" --queue-name "$input_queue" \
  --content "$(base64 -w0 <"$vectors/one-widget/input.json")" --query id --output tsv)" || fail "could not put the envelope on queue '$input_queue'"
[[ -n "$message_id" ]] || fail "queue '$input_queue' returned no message id"
found=""
for ((attempt = 1; attempt <= retries; attempt++)); do
  az storage message peek --auth-mode login --account-name "$data_account" --queue-name "$output_queue" \
    --num-messages 32 --query "[].content" --output tsv >"$work/peeked" || true
  if found="$(python3 - "$work/peeked" "$message_id" "$work/forwarded.json" <<'PY'
import base64, json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    try:
        message = json.loads(base64.b64decode(line))
    except ValueError:
        continue
    if isinstance(message, dict) and message.get("messageId") == sys.argv[2]:
        json.dump(message, open(sys.argv[3], "w"))
        print("yes")
        break
PY
)" && [[ "$found" == "yes" ]]; then break; fi
  echo "Attempt $attempt of $retries: no signature for message $message_id on '$output_queue' yet; waiting ${delay}s."
  sleep "$delay"
done
[[ "$found" == "yes" ]] || fail "no output for message $message_id on queue '$output_queue' after $retries attempts"
forwarded() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$work/forwarded.json" "$1"; }
queue_signature="$(forwarded signature)"
queue_key_id="$(forwarded keyId)"
[[ "$(forwarded algorithm)" == "HMACSHA256" ]] || fail "the queue output's algorithm is not HMACSHA256"
[[ "$queue_key_id" =~ ^[0-9a-f]{32}$ ]] || fail "the queue output's keyId is '$queue_key_id', not a Key Vault secret version"
[[ "$queue_signature" =~ ^[0-9a-f]{64}$ ]] || fail "the queue output's signature is not 64 hex digits"
status="$(call /api/verify "$vectors/one-widget/input.json" yes "X-Signature: $queue_signature" "X-Signature-Key-Id: $queue_key_id")"
[[ "$status" == "200" && "$(json_field valid)" == "true" ]] || fail "/api/verify did not accept the signature forwarded on the queue (HTTP $status)"

echo "Smoke test passed: $base_url signed the known-answer envelope with Key Vault key version $key_id, verified it, and refused tampering; queue message $message_id came back signed on '$output_queue'."
