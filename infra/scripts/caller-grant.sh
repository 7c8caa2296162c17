#!/usr/bin/env bash
# Manages the callers' grants: which caller (an Entra principal, by object id) may sign for which receiver. One entity
# per grant in the data account's table callergrants: PartitionKey = the caller's object id (lower-case), RowKey = the
# receiver id, GrantedBy, GrantedAt. The app only reads this table; revoking deletes the entity.
#
#   grant  --account <storage> (--caller <object-id> | --client-id <app-id>) --receiver <id> [--receiver <id> ...]
#   revoke --account <storage> (--caller <object-id> | --client-id <app-id>) --receiver <id> [--receiver <id> ...]
#   list   --account <storage> [--caller <object-id> | --client-id <app-id>]
#
# --caller is the principal's object id: a managed identity's principalId, a user's id, a service principal's id.
# --client-id is an app registration's (or managed identity's) client id; the script looks up its service principal's
# object id (az ad sp show), which is what access tokens carry as oid.
# The app caches grants for Grants:CacheDuration (1 minute by default): a revoked grant stops working within it.
#
# Every argument is checked before az runs; a bad one stops the script with exit code 1 and names it.
#
# Needs: az, logged in as a person with "Storage Table Data Contributor" on this table (or the data account); the
# app's identity only reads it ("Storage Table Data Reader") and must not get that role. GNU date.
set -euo pipefail

usage() {
  cat >&2 <<'EOF2'
usage: caller-grant.sh grant  --account <storage> (--caller <object-id> | --client-id <app-id>) --receiver <id> [--receiver <id> ...]
       caller-grant.sh revoke --account <storage> (--caller <object-id> | --client-id <app-id>) --receiver <id> [--receiver <id> ...]
       caller-grant.sh list   --account <storage> [--caller <object-id> | --client-id <app-id>]
EOF2
  exit 1
}
fail() { echo "caller-grant.sh: $*" >&2; exit 1; }

table="callergrants"
# Enough for any one caller in one call; a typo'd loop should not write thousands of grants.
max_receivers=64
guid='^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$'

[[ $# -ge 1 ]] || usage
command="$1"; shift
case "$command" in grant|revoke|list) ;; *) echo "caller-grant.sh: unknown command '${command:0:40}'" >&2; usage ;; esac

account=""; caller=""; client_id=""; receivers=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --account|--caller|--client-id|--receiver)
      [[ $# -ge 2 ]] || fail "$1 needs a value"
      case "$1" in
        --account) [[ -z "$account" ]] || fail "--account given twice"; account="$2" ;;
        --caller) [[ -z "$caller" ]] || fail "--caller given twice"; caller="$2" ;;
        --client-id) [[ -z "$client_id" ]] || fail "--client-id given twice"; client_id="$2" ;;
        --receiver) [[ "$command" != list ]] || fail "--receiver is only for grant and revoke"; receivers+=("$2") ;;
      esac
      shift 2 ;;
    *) fail "unexpected argument '${1:0:40}'" ;;
  esac
done

[[ -n "$account" ]] || fail "--account <storage account> is required (the data account: main.bicep's output dataStorageAccountName)"
# Azure Storage's rule for account names.
[[ "$account" =~ ^[a-z0-9]{3,24}$ ]] || fail "--account must be 3-24 lower-case letters and digits (a storage account name)"
[[ -z "$caller" || -z "$client_id" ]] || fail "give --caller or --client-id, not both"
if [[ "$command" != list ]]; then
  [[ -n "$caller" || -n "$client_id" ]] || fail "$command needs --caller <object-id> or --client-id <app-id>"
  [[ ${#receivers[@]} -ge 1 ]] || fail "$command needs at least one --receiver <id>"
  [[ ${#receivers[@]} -le $max_receivers ]] || fail "at most $max_receivers --receiver per call"
fi
[[ -z "$caller" || "$caller" =~ $guid ]] || fail "--caller must be an object id, a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)"
[[ -z "$client_id" || "$client_id" =~ $guid ]] || fail "--client-id must be a client (application) id, a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)"
for receiver in "${receivers[@]}"; do
  # The app's rule for receiver ids.
  [[ "$receiver" =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]] \
    || fail "--receiver '${receiver:0:70}' must be 1-63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit"
done

if [[ -n "$client_id" ]]; then
  caller="$(az ad sp show --id "$client_id" --query id --output tsv)" \
    || fail "no service principal for client id $client_id in this tenant (az ad sp show failed)"
  [[ "$caller" =~ $guid ]] || fail "az ad sp show returned no object id for client id $client_id"
  echo "client id $client_id is the service principal with object id ${caller,,}"
fi
# Tokens carry oid in lower case, and the app looks grants up by it.
caller="${caller,,}"
login=(--auth-mode login --account-name "$account" --table-name callergrants)

case "$command" in
  grant)
    granted_by="$(az account show --query user.name --output tsv)" || fail "az account show failed: log in with az login"
    granted_at="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    for receiver in "${receivers[@]}"; do
      az storage entity insert "${login[@]}" --if-exists replace --output none \
        --entity "PartitionKey=$caller" "RowKey=$receiver" "GrantedBy=$granted_by" "GrantedAt=$granted_at" "GrantedAt@odata.type=Edm.DateTime"
      echo "granted: caller $caller may sign for receiver $receiver (table $table, account $account)"
    done ;;
  revoke)
    for receiver in "${receivers[@]}"; do
      az storage entity delete "${login[@]}" --partition-key "$caller" --row-key "$receiver" --output none
      echo "revoked: caller $caller may no longer sign for receiver $receiver; the app stops honouring it within Grants:CacheDuration (1 minute by default)"
    done ;;
  list)
    echo -e "caller\treceiver\tgranted by\tgranted at"
    if [[ -n "$caller" ]]; then
      az storage entity query "${login[@]}" --filter "PartitionKey eq '$caller'" \
        --query "items[].[PartitionKey,RowKey,GrantedBy,GrantedAt]" --output tsv
    else
      az storage entity query "${login[@]}" --query "items[].[PartitionKey,RowKey,GrantedBy,GrantedAt]" --output tsv
    fi ;;
esac
