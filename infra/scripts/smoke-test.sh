#!/usr/bin/env bash
# Smoke test of a deployed app: signs the 'one-widget' known-answer envelope through /api/sign and checks
#  - the answer is 200 with the exact canonical bytes of the vector,
#  - the signature is HMAC-SHA256 of those bytes under the key in Key Vault (so the app really uses the vault),
#  - the key id is a Key Vault version, not the development key 'local',
#  - malformed JSON is a 400 problem+json, and a call without a function key is a 401.
#
# Usage: smoke-test.sh <base-url> <resource-group> <function-app-name> <vault-name> <secret-name> <vectors-dir>
# Needs: az (logged in: function keys of the app, Key Vault Secrets Officer or User on the vault), curl, python3.
# SMOKE_RETRIES / SMOKE_RETRY_SECONDS: how long to wait for a cold start after deployment.
set -euo pipefail

base_url="${1:?usage: smoke-test.sh <base-url> <resource-group> <function-app-name> <vault-name> <secret-name> <vectors-dir>}"
resource_group="${2:?missing resource group}"
app_name="${3:?missing function app name}"
vault="${4:?missing vault name}"
secret="${5:?missing secret name}"
vectors="${6:?missing vectors directory}"
retries="${SMOKE_RETRIES:-20}"
delay="${SMOKE_RETRY_SECONDS:-15}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "SMOKE FAIL: $*" >&2; exit 1; }

function_key="$(az functionapp keys list --resource-group "$resource_group" --name "$app_name" --query functionKeys.default --output tsv)"
[[ -n "$function_key" ]] || fail "no default function key on '$app_name'"

# post <file> <with-key: yes|no> -> prints the status; body and headers land in $work.
post() {
  local key_header=()
  [[ "$2" == "yes" ]] && key_header=(-H "x-functions-key: $function_key")
  curl --silent --show-error --max-time 120 --output "$work/body" --dump-header "$work/headers" \
    --write-out '%{http_code}' -X POST -H 'Content-Type: application/json' "${key_header[@]}" \
    --data-binary "@$1" "$base_url/api/sign?output=canonical" || echo "000"
}
header() { grep -i "^$1:" "$work/headers" | tail -n 1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//'; }

status="000"
for ((attempt = 1; attempt <= retries; attempt++)); do
  status="$(post "$vectors/one-widget/input.json" yes)"
  [[ "$status" == "200" ]] && break
  echo "Attempt $attempt of $retries: HTTP $status; waiting ${delay}s for the app to start."
  sleep "$delay"
done
[[ "$status" == "200" ]] || fail "POST /api/sign answered $status, expected 200"

cmp --silent "$work/body" "$vectors/one-widget/canonical.json" || fail "canonical bytes differ from the vector"
[[ "$(header X-Signature-Algorithm)" == "HMACSHA256" ]] || fail "X-Signature-Algorithm is not HMACSHA256"
key_id="$(header X-Signature-Key-Id)"
[[ -n "$key_id" && "$key_id" != "local" ]] || fail "X-Signature-Key-Id is '$key_id': the app is not signing with the Key Vault key"
signature="$(header X-Signature)"

# The key goes to python through the environment, never through a command line or the log.
SMOKE_SIGNING_KEY_B64="$(az keyvault secret show --vault-name "$vault" --name "$secret" --query value --output tsv)" \
  python3 - "$work/body" "$signature" <<'PY' || fail "X-Signature does not verify against the Key Vault key"
import base64, hashlib, hmac, os, sys
key = base64.b64decode(os.environ["SMOKE_SIGNING_KEY_B64"], validate=True)
with open(sys.argv[1], "rb") as body:
    expected = hmac.new(key, body.read(), hashlib.sha256).hexdigest()
sys.exit(0 if hmac.compare_digest(expected, sys.argv[2].strip().lower()) else 1)
PY

status="$(post "$vectors/not-json/input.json" yes)"
[[ "$status" == "400" ]] || fail "malformed JSON answered $status, expected 400"
[[ "$(header Content-Type)" == application/problem+json* ]] || fail "malformed JSON did not answer application/problem+json"

status="$(post "$vectors/one-widget/input.json" no)"
[[ "$status" == "401" ]] || fail "a call without a function key answered $status, expected 401"

echo "Smoke test passed: $base_url signed the known-answer envelope with Key Vault key version $key_id."
