#!/usr/bin/env bash
# Locks the audit container's time-based immutability policy (production only: the pipeline's Apply runs this when the
# deployment's auditPolicyLocked output is true and the target is prod). Resource Manager has no "locked" state a
# template can declare: locking is the immutabilityPolicies/lock action, which takes the policy's current ETag.
#
# Idempotent: a policy that is Locked already is left as it is (a locked policy can only be extended, at most five
# times, never shortened or deleted: "az storage container immutability-policy extend" is a person's decision). It
# locks only the policy the template declares: allowProtectedAppendWrites on (the app appends to its streams) and
# exactly <retention-days>; anything else, or no policy at all, stops the run, because a lock cannot be undone.
# Locked, the policy cannot be deleted, and neither can the container nor the storage account while a blob is in it.
#
# Usage: lock-audit-policy.sh <resource-group> <storage-account> <container> <retention-days>
# Needs: az (logged in, allowed Microsoft.Storage/storageAccounts/blobServices/containers/immutabilityPolicies/read,
#        write and lock/action, e.g. Contributor), python3.
set -euo pipefail

usage="usage: lock-audit-policy.sh <resource-group> <storage-account> <container> <retention-days>"
resource_group="${1:?$usage}"
account="${2:?$usage}"
container="${3:?$usage}"
days="${4:?$usage}"
[[ "$days" =~ ^[1-9][0-9]{0,5}$ ]] || { echo "retention-days must be a whole number of days (1-146000), not '$days'" >&2; exit 1; }
policy_args=(--resource-group "$resource_group" --account-name "$account" --container-name "$container")

if ! policy=$(az storage container immutability-policy show "${policy_args[@]}" --output json 2>&1); then
  echo "Could not read the immutability policy of container '$container' in '$account': $policy" >&2
  exit 1
fi
# One line per field, empty when absent; booleans as true/false.
{ read -r state; read -r etag; read -r period; read -r append; } < <(python3 -c '
import json, sys
policy = json.loads(sys.argv[1])
for name in ("state", "etag", "immutabilityPeriodSinceCreationInDays", "allowProtectedAppendWrites"):
    value = policy.get(name)
    print("" if value is None else str(value).lower() if isinstance(value, bool) else value)
' "$policy")

if [[ "$state" == "Locked" ]]; then
  echo "The immutability policy of container '$container' in '$account' is locked already ($period days); left unchanged."
  if [[ "$period" != "$days" ]]; then
    echo "Note: the deployment asks for $days days; a locked policy can only be extended (az storage container immutability-policy extend, at most five times), never shortened." >&2
  fi
  exit 0
fi
if [[ -z "$etag" || -z "$period" || "$period" == "0" ]]; then
  echo "Container '$container' in '$account' has no immutability policy to lock; deploy infra/ first (storage.bicep creates it unlocked)." >&2
  exit 1
fi
if [[ "$append" != "true" || "$period" != "$days" ]]; then
  echo "Refusing to lock: the policy of container '$container' has $period days and allowProtectedAppendWrites=$append, the deployment declares $days days and true. A lock cannot be undone." >&2
  exit 1
fi

if ! locked=$(az storage container immutability-policy lock "${policy_args[@]}" --if-match "$etag" --query state --output tsv 2>&1); then
  echo "Could not lock the immutability policy of container '$container' in '$account': $locked" >&2
  exit 1
fi
if [[ "$locked" != "Locked" ]]; then
  echo "The lock of container '$container' in '$account' returned state '$locked', not Locked." >&2
  exit 1
fi
echo "Locked the immutability policy of container '$container' in '$account': $days days, protected append writes; it can be extended, never shortened or removed."
