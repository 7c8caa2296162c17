#!/usr/bin/env bash
# Deploys the app the template deployed (Apply's output `app`), from the Build stage's `app` artifact:
#   isolated  -> FunctionApp.Isolated.zip to the Flex Consumption app (deploy-flex-package.sh, one deploy)
#   inprocess -> FunctionApp.zip to the package container, run from the blob (deploy-package.sh)
#
# Usage: deploy-app.sh <app> <resource-group> <function-app-name> <deployment-storage-account> <package-container> <artifact-dir>
set -euo pipefail

usage="usage: deploy-app.sh <isolated|inprocess> <resource-group> <function-app-name> <deployment-storage-account> <package-container> <artifact-dir>"
app="${1:?$usage}"
resource_group="${2:?$usage}"
app_name="${3:?$usage}"
account="${4:?$usage}"
container="${5:?$usage}"
artifacts="${6:?$usage}"
here="$(cd "$(dirname "$0")" && pwd)"

case "$app" in
  isolated) exec bash "$here/deploy-flex-package.sh" "$resource_group" "$app_name" "$artifacts/FunctionApp.Isolated.zip" ;;
  inprocess) exec bash "$here/deploy-package.sh" "$resource_group" "$app_name" "$account" "$container" "$artifacts/FunctionApp.zip" ;;
  *) echo "unknown app '$app' (isolated or inprocess)" >&2; exit 1 ;;
esac
