#!/usr/bin/env bash
# Creates the HMAC signing key in Key Vault with a random value, only if the secret does not exist yet.
# An existing secret is never touched (no new version, no rotation); a soft-deleted one stops the run, because
# recovering or purging a signing key is a decision for a person, not a pipeline.
#
# Usage: bootstrap-signing-key.sh <vault-name> <secret-name>
# Needs: az (logged in, with Key Vault Secrets Officer on the vault), openssl.
# BOOTSTRAP_RETRIES / BOOTSTRAP_RETRY_SECONDS: how long to wait for a fresh role assignment to take effect.
set -euo pipefail

vault="${1:?usage: bootstrap-signing-key.sh <vault-name> <secret-name>}"
secret="${2:?usage: bootstrap-signing-key.sh <vault-name> <secret-name>}"
retries="${BOOTSTRAP_RETRIES:-12}"
delay="${BOOTSTRAP_RETRY_SECONDS:-10}"

# Distinguish "not there" from "not allowed yet": only the first may lead to creating a key.
state=""
for ((attempt = 1; attempt <= retries; attempt++)); do
  if output=$(az keyvault secret show --vault-name "$vault" --name "$secret" --query id --output tsv 2>&1); then
    state="exists"
    break
  fi
  if grep -q "SecretNotFound" <<<"$output"; then
    state="missing"
    break
  fi
  if grep -qE "Forbidden|AuthorizationFailed|ForbiddenByRbac" <<<"$output" && ((attempt < retries)); then
    echo "Not allowed to read the vault yet (role assignments can take minutes); retry $attempt of $retries in ${delay}s."
    sleep "$delay"
    continue
  fi
  echo "Could not check secret '$secret' in vault '$vault': $output" >&2
  exit 1
done

case "$state" in
  exists)
    echo "Secret '$secret' already exists in vault '$vault'; left unchanged."
    exit 0
    ;;
  missing) ;;
  *)
    echo "Still not allowed to read vault '$vault' after $retries attempts." >&2
    exit 1
    ;;
esac

if az keyvault secret show-deleted --vault-name "$vault" --name "$secret" --query recoveryId --output tsv >/dev/null 2>&1; then
  echo "Secret '$secret' is soft-deleted in vault '$vault'. Recover it (az keyvault secret recover) or, deliberately, purge it; the pipeline will not choose." >&2
  exit 1
fi

# The value goes through a private temporary file, never a command line or the log.
umask 077
value_file="$(mktemp)"
trap 'rm -f "$value_file"' EXIT
openssl rand -base64 32 | tr -d '\n' >"$value_file"

az keyvault secret set --vault-name "$vault" --name "$secret" --file "$value_file" --encoding utf-8 \
  --content-type "application/x-hmac-sha256-key; encoding=base64" --query id --output none
echo "Created secret '$secret' in vault '$vault' with a random 32-byte key."
