#!/usr/bin/env bash
# Deploys the in-process app's package: uploads FunctionApp.zip to the deployment account's package container with an
# Entra token (the accounts allow no shared key), then restarts the app and syncs its triggers, as Microsoft documents for
# WEBSITE_RUN_FROM_PACKAGE=<URL> (the app reads the blob with its own managed identity; docs/deploy.md).
# The upload is retried: the deploying identity's Storage Blob Data Contributor grant on the container comes from the
# same run's template, and a new role assignment can take minutes to reach the storage data plane.
#
# Usage: deploy-package.sh <resource-group> <function-app-name> <deployment-storage-account> <package-container> <zip>
# Needs: az (logged in as the identity infra/ granted the package container to), DEPLOY_RETRIES / DEPLOY_RETRY_SECONDS.
set -euo pipefail

usage="usage: deploy-package.sh <resource-group> <function-app-name> <deployment-storage-account> <package-container> <zip>"
resource_group="${1:?$usage}"
app_name="${2:?$usage}"
account="${3:?$usage}"
container="${4:?$usage}"
zip="${5:?$usage}"
retries="${DEPLOY_RETRIES:-20}"
delay="${DEPLOY_RETRY_SECONDS:-15}"
[[ -f "$zip" ]] || { echo "no package at '$zip'" >&2; exit 1; }

for ((attempt = 1; ; attempt++)); do
  if output=$(az storage blob upload --auth-mode login --account-name "$account" --container-name "$container" \
      --name FunctionApp.zip --file "$zip" --overwrite --output none 2>&1); then
    break
  fi
  if ((attempt >= retries)) || ! grep -qiE "AuthorizationPermissionMismatch|AuthorizationFailure|403" <<<"$output"; then
    echo "Could not upload the package to '$account/$container': $output" >&2
    exit 1
  fi
  echo "Attempt $attempt of $retries: the upload grant has not reached storage yet; waiting ${delay}s."
  sleep "$delay"
done

az functionapp restart --resource-group "$resource_group" --name "$app_name" --output none
az resource invoke-action --resource-group "$resource_group" --resource-type Microsoft.Web/sites --name "$app_name" \
  --action syncfunctiontriggers --output none
echo "Deployed FunctionApp.zip to '$account/$container/FunctionApp.zip', restarted '$app_name' and synced its triggers."
