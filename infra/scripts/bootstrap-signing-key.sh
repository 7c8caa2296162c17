#!/usr/bin/env bash
# Creates a signing key in Key Vault with a random value, only if the secret does not exist yet, through
# Azure Resource Manager (the vault's management plane): the caller needs no Key Vault data role, so the pipeline
# identity can never read the key, during this run or after it. ARM never returns a secret's value.
# An existing secret is never touched (no new version, no rotation); a soft-deleted one stops the run, because
# recovering or purging a signing key is a decision for a person, not a pipeline.
#
# The key gets an expiry (exp, SIGNING_KEY_LIFETIME_DAYS from now, 365 by default), so a "Key Vault secrets should
# have an expiration date" policy admits it; rotation before that date is a person's step (docs/deploy.md,
# "Signing key rotation").
#
# Two kinds of key, 32 random bytes each:
#   hmac-sha256 (the default): the HMAC signing key, base64, content type application/x-hmac-sha256-key; encoding=base64.
#   ed25519-seed: the audit trail's seal key, an Ed25519 seed (RFC 8032) as whsk_<base64>, content type
#     application/x-ed25519-key. The app derives the public key from it and publishes it under keys/ in the audit container.
#
# Usage: bootstrap-signing-key.sh <resource-group> <vault-name> <secret-name> [hmac-sha256|ed25519-seed]
# Needs: az (logged in, allowed Microsoft.KeyVault/vaults/secrets/read and write, e.g. Contributor), openssl.
set -euo pipefail

usage="usage: bootstrap-signing-key.sh <resource-group> <vault-name> <secret-name> [hmac-sha256|ed25519-seed]"
resource_group="${1:?$usage}"
vault="${2:?$usage}"
secret="${3:?$usage}"
kind="${4:-hmac-sha256}"
case "$kind" in
  hmac-sha256) value_prefix=""; content_type="application/x-hmac-sha256-key; encoding=base64" ;;
  ed25519-seed) value_prefix="whsk_"; content_type="application/x-ed25519-key" ;;
  *) echo "Unknown key kind '$kind': hmac-sha256 or ed25519-seed. $usage" >&2; exit 1 ;;
esac
# The Key Vault API version infra/ compiles against (modules/keyVault.bicep).
api_version="2026-05-15"
lifetime_days="${SIGNING_KEY_LIFETIME_DAYS:-365}"
[[ "$lifetime_days" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "SIGNING_KEY_LIFETIME_DAYS must be 1-9999 days, not '$lifetime_days'" >&2; exit 1; }
expires=$(( $(date +%s) + lifetime_days * 86400 ))
secret_args=(--resource-group "$resource_group" --namespace Microsoft.KeyVault --parent "vaults/$vault"
  --resource-type secrets --name "$secret" --api-version "$api_version")

# Distinguish "not there" from "could not look": only the first may lead to creating a key.
if output=$(az resource show "${secret_args[@]}" --query id --output tsv 2>&1); then
  echo "Secret '$secret' already exists in vault '$vault'; left unchanged."
  exit 0
fi
if ! grep -qE "ResourceNotFound|NotFound|was not found" <<<"$output"; then
  echo "Could not check secret '$secret' in vault '$vault': $output" >&2
  exit 1
fi

# The value goes through a private temporary file, never a command line or the log: openssl writes it straight into
# the request body file, and printf is a shell builtin.
umask 077
body="$(mktemp)"
trap 'rm -f "$body"' EXIT
{
  printf '{"value":"%s' "$value_prefix"
  openssl rand -base64 32 | tr -d '\n'
  printf '","contentType":"%s","attributes":{"enabled":true,"exp":%d}}' "$content_type" "$expires"
} >"$body"

if ! output=$(az resource create "${secret_args[@]}" --properties "@$body" --output none 2>&1); then
  if grep -qiE "deleted but recoverable|ObjectIsDeletedButRecoverable|soft-deleted|Conflict" <<<"$output"; then
    echo "Secret '$secret' is soft-deleted in vault '$vault'. A person with Key Vault Secrets Officer recovers it (az keyvault secret recover) or, deliberately, purges it; the pipeline will not choose." >&2
  else
    echo "Could not create secret '$secret' in vault '$vault': $output" >&2
  fi
  exit 1
fi
echo "Created secret '$secret' in vault '$vault' with a random 32-byte $kind key (through Resource Manager; its value was not printed)."
