#!/usr/bin/env bash
# Deploys the isolated app's package (FunctionApp.Isolated.zip, the `dotnet publish` output zipped) to its Flex
# Consumption app the way Flex takes packages: `az functionapp deployment source config-zip`, which on a Flex app
# publishes through the app's one-deploy endpoint (/api/publish) with the caller's Entra token. The platform writes the
# package into the deployment container (functionAppConfig.deployment.storage) as the app's user-assigned identity,
# restarts the app and syncs its triggers. Not WEBSITE_RUN_FROM_PACKAGE, which Flex does not use (docs/deploy.md).
# The publish is retried while the app identity's grant on the deployment container (made by the same run's template)
# has not reached storage yet: the endpoint then reports the blob upload refused (403).
#
# Usage: deploy-flex-package.sh <resource-group> <function-app-name> <zip>
# Needs: az >= AZ_CLI_MINIMUM (logged in as an identity allowed Microsoft.Web/sites/publish/action on the app, e.g.
# Contributor on the resource group), DEPLOY_RETRIES / DEPLOY_RETRY_SECONDS.
set -euo pipefail

usage="usage: deploy-flex-package.sh <resource-group> <function-app-name> <zip>"
resource_group="${1:?$usage}"
app_name="${2:?$usage}"
zip="${3:?$usage}"
retries="${DEPLOY_RETRIES:-20}"
delay="${DEPLOY_RETRY_SECONDS:-15}"
# The Azure CLI this step relies on: Flex Consumption support in `az functionapp deployment source config-zip`
# (docs/deploy.md, "Deploying to Flex Consumption", names the documentation).
cli_minimum="${AZ_CLI_MINIMUM:-2.77.0}"
[[ -f "$zip" ]] || { echo "no package at '$zip'" >&2; exit 1; }

cli_version="$(az version --query '"azure-cli"' --output tsv)"
if [[ "$(printf '%s\n%s\n' "$cli_minimum" "$cli_version" | sort -V | head -n 1)" != "$cli_minimum" ]]; then
  echo "Azure CLI $cli_version is older than $cli_minimum, the version this deployment relies on for Flex Consumption; update the agent's Azure CLI." >&2
  exit 1
fi
echo "Azure CLI $cli_version (at least $cli_minimum)."

for ((attempt = 1; ; attempt++)); do
  if output=$(az functionapp deployment source config-zip --resource-group "$resource_group" --name "$app_name" \
      --src "$zip" --output none 2>&1); then
    break
  fi
  if ((attempt >= retries)) || ! grep -qiE "BlobUploadFailed|AuthorizationPermissionMismatch|AuthorizationFailure|403" <<<"$output"; then
    echo "Could not deploy the package to '$app_name': $output" >&2
    exit 1
  fi
  echo "Attempt $attempt of $retries: the app's grant on its deployment container has not reached storage yet; waiting ${delay}s."
  sleep "$delay"
done
echo "Deployed $(basename "$zip") to Flex Consumption app '$app_name' (one deploy: the platform restarted it and synced its triggers)."
