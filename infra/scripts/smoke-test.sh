#!/usr/bin/env bash
# Smoke test of a deployed app, without the signing key: it never reads the vault (the pipeline identity has no
# Key Vault data role). It signs the 'one-widget' known-answer envelope through /api/sign and checks
#  - the answer is 200 with the exact canonical bytes of the vector and an HMACSHA256 signature,
#  - the key id is a Key Vault secret version (32 hex digits), not the development key 'local', and the signature is
#    not the vector's (made with the public test key),
#  - /api/verify accepts that signature for that envelope, and refuses it for a tampered envelope and for a tampered
#    signature (so the app really verifies with the key it signed with),
#  - malformed JSON is a 400 problem+json, and a call without a function key is a 401.
#
# Usage: smoke-test.sh <base-url> <resource-group> <function-app-name> <vectors-dir>
# Needs: az (logged in, allowed to list the app's function keys), curl, python3.
# SMOKE_RETRIES / SMOKE_RETRY_SECONDS: how long to wait for a cold start after deployment.
set -euo pipefail

usage="usage: smoke-test.sh <base-url> <resource-group> <function-app-name> <vectors-dir>"
base_url="${1:?$usage}"
resource_group="${2:?$usage}"
app_name="${3:?$usage}"
vectors="${4:?$usage}"
retries="${SMOKE_RETRIES:-20}"
delay="${SMOKE_RETRY_SECONDS:-15}"

umask 077
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "SMOKE FAIL: $*" >&2; exit 1; }

# The function key goes to curl through a private header file, not its command line; Azure Pipelines masks it.
function_key="$(az functionapp keys list --resource-group "$resource_group" --name "$app_name" --query functionKeys.default --output tsv)"
[[ -n "$function_key" ]] || fail "no default function key on '$app_name'"
[[ -n "${TF_BUILD:-}" ]] && echo "##vso[task.setsecret]$function_key"
printf 'x-functions-key: %s\n' "$function_key" >"$work/key-header"
: >"$work/no-header"

# call <path> <body-file> <with-key: yes|no> [extra header]... -> prints the status; body and headers land in $work.
call() {
  local path="$1" body="$2" key_file="$work/no-header"
  [[ "$3" == "yes" ]] && key_file="$work/key-header"
  shift 3
  local extra=()
  for header in "$@"; do extra+=(-H "$header"); done
  curl --silent --show-error --max-time 120 --output "$work/body" --dump-header "$work/headers" \
    --write-out '%{http_code}' -X POST -H 'Content-Type: application/json' -H "@$key_file" "${extra[@]}" \
    --data-binary "@$body" "$base_url$path" || echo "000"
}
header() { grep -i "^$1:" "$work/headers" | tail -n 1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//'; }
json_field() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print(str(v).lower() if isinstance(v,bool) else v)' "$work/body" "$1"; }

status="000"
for ((attempt = 1; attempt <= retries; attempt++)); do
  status="$(call "/api/sign?output=canonical" "$vectors/one-widget/input.json" yes)"
  [[ "$status" == "200" ]] && break
  echo "Attempt $attempt of $retries: HTTP $status; waiting ${delay}s for the app to start."
  sleep "$delay"
done
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

echo "Smoke test passed: $base_url signed the known-answer envelope with Key Vault key version $key_id, verified it, and refused tampering."
