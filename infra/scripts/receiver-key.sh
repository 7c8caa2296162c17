#!/usr/bin/env bash
# Manages one receiver's signing key: the Key Vault secret <prefix><receiver-id> (prefix = the app setting
# KeyVault:ReceiverSecretPrefix, "receiver-" by default). With --scheme hmac (the default) its value is base64 of 32
# random bytes; with --scheme ed25519 it is whsk_ + base64 of a 32-byte Ed25519 seed (the private key).
#
#   add    <vault-name> <receiver-id> [--scheme hmac|ed25519] [--prefix P]      first key of a new receiver
#   stage  <vault-name> <receiver-id> --not-before <YYYY-MM-DDTHH:MM:SSZ> [--scheme hmac|ed25519] [--prefix P]
#                                                                               next key, current from then
#   revoke <vault-name> <receiver-id> --version <32 hex digits> [--prefix P]    disable one version for good
#   list   <vault-name> <receiver-id> [--prefix P]                              versions with enabled/nbf/exp, no values
#
# hmac: add and stage print the new key ONCE, as the receiver's Standard Webhooks secret (whsec_ + base64), on stdout;
# it is in no log, no command line (ps, /proc) and no file once the script ends: openssl writes it into a private
# temporary file that az reads (--file) and that is deleted on exit. Nobody can show it again except by reading the
# vault.
# ed25519: openssl generates the key pair in a private temporary directory, deleted on exit; the seed goes into the
# vault the same way (--file), content type application/x-ed25519-key; encoding=whsk, and is never printed. add and
# stage print the PUBLIC key (whpk_ + base64 of its 32 bytes), which is not secret, and the key set the receiver
# fetches it from (GET /api/receivers/<receiver-id>/jwks on the function app): nothing secret is handed over. The app
# publishes a staged version in the set at once and signs with it from its not-before, so stage refuses a not-before
# less than two KeyVault:RefreshIntervals (the set's max-age is one; 30 minutes by default) ahead.
# Each new version gets an expiry (SIGNING_KEY_LIFETIME_DAYS, 365 by default, after it becomes current) so a
# "Key Vault secrets should have an expiration date" policy admits it.
#
# Every argument is checked before az runs; a bad one stops the script with exit code 1 and names it.
#
# Needs: az, logged in as a PERSON with a Key Vault data-plane role that may write secrets on this vault (e.g. "Key
# Vault Secrets Officer"); the app's identity only ever reads secrets ("Key Vault Secrets User") and must not get this
# role. openssl, GNU date.
set -euo pipefail

usage() {
  cat >&2 <<'EOF'
usage: receiver-key.sh add    <vault-name> <receiver-id> [--scheme hmac|ed25519] [--prefix P]
       receiver-key.sh stage  <vault-name> <receiver-id> --not-before <YYYY-MM-DDTHH:MM:SSZ> [--scheme hmac|ed25519] [--prefix P]
       receiver-key.sh revoke <vault-name> <receiver-id> --version <version> [--prefix P]
       receiver-key.sh list   <vault-name> <receiver-id> [--prefix P]
EOF
  exit 1
}
fail() { echo "receiver-key.sh: $*" >&2; exit 1; }

hmac_content_type="application/x-hmac-sha256-key; encoding=base64"
ed25519_content_type="application/x-ed25519-key; encoding=whsk"
# How far ahead a version may be staged: a rotation is planned in days or weeks, not years.
max_stage_days=365
# How far ahead an Ed25519 version must be staged: the app lists it in the key set from its next Key Vault refresh
# (KeyVault:RefreshInterval, 15 minutes by default) and a receiver re-reads the set after its max-age (one such
# interval), so by then every receiver has the public key it verifies with.
ed25519_min_stage_minutes=30
# The DER framing openssl wraps an Ed25519 key in (RFC 8410): PKCS#8 private key (48 bytes) and SPKI public key
# (44 bytes), each ending in the 32 raw key bytes.
ed25519_pkcs8_prefix=302e020100300506032b657004220420
ed25519_spki_prefix=302a300506032b6570032100

[[ $# -ge 1 ]] || usage
command="$1"; shift
case "$command" in add|stage|revoke|list) ;; *) echo "receiver-key.sh: unknown command '${command:0:40}'" >&2; usage ;; esac

prefix="receiver-"; not_before=""; version=""; scheme="hmac"; positional=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix|--not-before|--version|--scheme)
      [[ $# -ge 2 ]] || fail "$1 needs a value"
      case "$1" in
        --prefix) prefix="$2" ;;
        --scheme) [[ "$command" == add || "$command" == stage ]] || fail "--scheme is only for add and stage"; scheme="$2" ;;
        --not-before) [[ "$command" == stage ]] || fail "--not-before is only for stage"; not_before="$2" ;;
        --version) [[ "$command" == revoke ]] || fail "--version is only for revoke"; version="$2" ;;
      esac
      shift 2 ;;
    # A single-dash word is a (malformed) name, left for the checks below to name.
    --*) fail "unknown option '${1:0:40}'" ;;
    *) positional+=("$1"); shift ;;
  esac
done
[[ ${#positional[@]} -eq 2 ]] || usage
vault="${positional[0]}"
receiver="${positional[1]}"

# Key Vault's own rule for vault names: 3-24 characters, letters, digits and '-', starting with a letter, ending with a
# letter or digit, no '--'.
[[ "$vault" =~ ^[A-Za-z][A-Za-z0-9-]{1,22}[A-Za-z0-9]$ && "$vault" != *--* ]] \
  || fail "vault-name must be 3-24 letters, digits or '-', start with a letter, end with a letter or digit, no '--'"
# The app's rule for receiver ids; with a prefix of at most 64 characters the secret name stays within Key Vault's 127.
[[ "$receiver" =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]] \
  || fail "receiver-id must be 1-63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit"
[[ "$prefix" =~ ^[a-z0-9-]{1,64}$ ]] || fail "--prefix must be 1-64 characters of a-z, 0-9 and '-' (the app's KeyVault:ReceiverSecretPrefix)"
secret="$prefix$receiver"
case "$scheme" in
  hmac) content_type="$hmac_content_type" ;;
  ed25519) content_type="$ed25519_content_type" ;;
  *) fail "--scheme must be hmac or ed25519, not '${scheme:0:40}'" ;;
esac

case "$command" in
  stage)
    [[ -n "$not_before" ]] || fail "stage needs --not-before <YYYY-MM-DDTHH:MM:SSZ> (UTC)"
    [[ "$not_before" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]] \
      || fail "--not-before must be a UTC time as YYYY-MM-DDTHH:MM:SSZ"
    nbf_epoch=$(date -u -d "$not_before" +%s 2>/dev/null) && [[ "$(date -u -d "@$nbf_epoch" +%Y-%m-%dT%H:%M:%SZ)" == "$not_before" ]] \
      || fail "--not-before is not a valid date and time"
    now=$(date +%s)
    (( nbf_epoch > now )) || fail "--not-before must be in the future (it is when the new key becomes current)"
    (( nbf_epoch <= now + max_stage_days * 86400 )) || fail "--not-before must be at most $max_stage_days days ahead"
    [[ "$scheme" != ed25519 ]] || (( nbf_epoch >= now + ed25519_min_stage_minutes * 60 )) \
      || fail "--not-before must be at least $ed25519_min_stage_minutes minutes ahead with --scheme ed25519: receivers need time to fetch the new public key from the key set (two of the app's KeyVault:RefreshInterval, 15 minutes by default: one for the app to load it, one for the set's max-age)"
    ;;
  revoke)
    [[ -n "$version" ]] || fail "revoke needs --version <version> (32 hex digits; see the list command)"
    [[ "$version" =~ ^[0-9a-fA-F]{32}$ ]] || fail "--version must be a Key Vault secret version: 32 hex digits"
    ;;
esac

if [[ "$command" == add || "$command" == stage ]]; then
  lifetime_days="${SIGNING_KEY_LIFETIME_DAYS:-365}"
  [[ "$lifetime_days" =~ ^[1-9][0-9]{0,3}$ ]] || fail "SIGNING_KEY_LIFETIME_DAYS must be 1-9999 days"
fi

# Sets state to exists or missing, or fails naming what az said: only "missing" may lead to creating the secret.
check_secret() {
  local output
  if output=$(az keyvault secret show --vault-name "$vault" --name "$secret" --query id --output tsv 2>&1); then
    state=exists; return
  fi
  # The newest version disabled (revoked): the secret exists, its value cannot be read.
  if grep -qiE "SecretDisabled|disabled secret" <<<"$output"; then state=exists; return; fi
  if grep -qE "SecretNotFound|was not found" <<<"$output"; then state=missing; return; fi
  fail "could not check secret '$secret' in vault '$vault': $output"
}

# Prints the hex of the first $2 bytes of file $1.
hex_head() { head -c "$2" "$1" | od -An -tx1 | tr -d ' \n'; }

# Generates an Ed25519 key pair in the private directory $1: writes whsk_ + base64 of the 32-byte seed into file $2
# (no newline) and sets public_key to the base64 of the 32-byte public key. The private key reaches no command line:
# openssl reads and writes it in files of that directory only.
ed25519_key() {
  local dir="$1" value_file="$2"
  openssl genpkey -algorithm ed25519 -out "$dir/key.pem" 2>/dev/null \
    || fail "openssl could not generate an Ed25519 key (it needs OpenSSL 1.1.1 or later)"
  openssl pkey -in "$dir/key.pem" -outform DER -out "$dir/key.der" 2>/dev/null \
    && openssl pkey -in "$dir/key.pem" -pubout -outform DER -out "$dir/pub.der" 2>/dev/null \
    || fail "openssl could not export the Ed25519 key"
  [[ "$(stat -c %s "$dir/key.der")" == 48 && "$(hex_head "$dir/key.der" 16)" == "$ed25519_pkcs8_prefix" \
     && "$(stat -c %s "$dir/pub.der")" == 44 && "$(hex_head "$dir/pub.der" 12)" == "$ed25519_spki_prefix" ]] \
    || fail "openssl wrote an Ed25519 key in an unexpected DER form"
  { printf 'whsk_'; tail -c 32 "$dir/key.der" | base64 -w 0; } >"$value_file"
  public_key=$(tail -c 32 "$dir/pub.der" | base64 -w 0)
  rm -f "$dir/key.pem" "$dir/key.der" "$dir/pub.der"
}

# Creates a new version from a fresh key of $scheme, expiring at epoch $1 (further az arguments follow), says $2 and
# prints, for hmac, the key once as whsec_..., for ed25519 the public key as whpk_... and where the key set is.
new_version() {
  local expires_epoch="$1" done_message="$2"; shift 2
  local expires output value public_key
  expires=$(date -u -d "@$expires_epoch" +%Y-%m-%dT%H:%M:%SZ)
  umask 077
  if [[ "$scheme" == ed25519 ]]; then
    key_dir="$(mktemp -d)"
    trap 'rm -rf "$key_dir"' EXIT
    value_file="$key_dir/value"
    ed25519_key "$key_dir" "$value_file"
  else
    value_file="$(mktemp)"
    trap 'rm -f "$value_file"' EXIT
    # The base64 text goes into the file as is (no newline); az --encoding utf-8 stores the file's text unchanged.
    openssl rand -base64 32 | tr -d '\n' >"$value_file"
  fi
  if ! output=$(az keyvault secret set --vault-name "$vault" --name "$secret" --file "$value_file" --encoding utf-8 \
      --content-type "$content_type" --expires "$expires" "$@" --output none 2>&1); then
    if grep -qiE "deleted but recoverable|ObjectIsDeletedButRecoverable|Conflict" <<<"$output"; then
      fail "secret '$secret' is soft-deleted in vault '$vault': recover it (az keyvault secret recover) or, deliberately, purge it, then run again"
    fi
    fail "could not set secret '$secret' in vault '$vault': $output"
  fi
  if [[ "$scheme" == ed25519 ]]; then
    rm -rf "$key_dir"
    echo "$done_message"
    echo "Receiver '$receiver' verifies with this public key. It is not secret, and the receiver fetches it from its key set itself, so no secret is handed over:"
    printf 'whpk_%s\n' "$public_key"
    echo "Key set: GET /api/receivers/$receiver/jwks on the function app, e.g. https://<app>.azurewebsites.net/api/receivers/$receiver/jwks"
    return
  fi
  value=$(<"$value_file")
  rm -f "$value_file"
  echo "$done_message"
  echo "Hand this secret to receiver '$receiver' over a secure channel now; it is not shown again:"
  printf 'whsec_%s\n' "$value"
}

case "$command" in
  add)
    check_secret
    [[ "$state" == missing ]] \
      || fail "secret '$secret' already exists in vault '$vault'; left unchanged (use stage to rotate its key)"
    created_message="Created secret '$secret' in vault '$vault' for receiver '$receiver'."
    [[ "$scheme" != ed25519 ]] || created_message="Created secret '$secret' in vault '$vault' for receiver '$receiver', with an Ed25519 key."
    new_version $(( $(date +%s) + lifetime_days * 86400 )) "$created_message"
    ;;
  stage)
    check_secret
    [[ "$state" == exists ]] \
      || fail "secret '$secret' does not exist in vault '$vault'; use add for a new receiver"
    if [[ "$scheme" == ed25519 ]]; then
      staged_message="Staged a new Ed25519 version of '$secret', current from $not_before. It is published in the key set of receiver '$receiver' at once and signs from its not-before ($not_before); that is at least two of the app's KeyVault:RefreshInterval (the set's max-age is one) away, so the receiver has it before it signs."
    else
      staged_message="Staged a new version of '$secret', current from $not_before. Until then the app signs for receiver '$receiver' with both keys: the receiver must accept both its old secret and this one until $not_before, and may drop the old one after."
    fi
    new_version $(( nbf_epoch + lifetime_days * 86400 )) "$staged_message" --not-before "$not_before"
    ;;
  revoke)
    if ! output=$(az keyvault secret set-attributes --vault-name "$vault" --name "$secret" --version "$version" \
        --enabled false --output none 2>&1); then
      fail "could not disable version $version of secret '$secret' in vault '$vault': $output"
    fi
    echo "Disabled version $version of '$secret': from the app's next refresh it neither signs nor verifies for receiver '$receiver'."
    ;;
  list)
    if ! output=$(az keyvault secret list-versions --vault-name "$vault" --name "$secret" \
        --query "sort_by([], &attributes.created)[].[id, attributes.enabled, attributes.notBefore, attributes.expires, attributes.created]" \
        --output tsv 2>&1); then
      fail "could not list versions of secret '$secret' in vault '$vault': $output"
    fi
    printf '%-32s  %-7s  %-25s  %-25s  %s\n' version enabled notBefore expires created
    while IFS=$'\t' read -r id enabled nbf exp created; do
      [[ -n "$id" ]] || continue
      [[ "$nbf" == None ]] && nbf=""
      [[ "$exp" == None ]] && exp=""
      printf '%-32s  %-7s  %-25s  %-25s  %s\n' "${id##*/}" "$enabled" "${nbf:-none}" "${exp:-none}" "$created"
    done <<<"$output"
    ;;
esac
