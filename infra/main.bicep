// The widget signing service, from an empty resource group to a running, least-privilege deployment.
// One module per concern; every name is derived from environmentName plus a uniqueString of the resource group.
// Two apps over one core: the isolated app (app: 'isolated', the default) on Flex Consumption FC1, and the in-process app
// (app: 'inprocess') on Elastic Premium EP1-EP3. Any other combination stops the deployment with a message (fail()).
// Deploy: az deployment group create --resource-group <rg> --template-file infra/main.bicep --parameters infra/main.flex-consumption.bicepparam
// Compile and lint locally with the pinned compiler: .ci/bicep (docs/deploy.md).
// The signing key is not here: the pipeline's key bootstrap stage creates it in the vault (docs/deploy.md); nor is the
// audit seal key (the same bootstrap), nor the audit policy's lock (an action, infra/scripts/lock-audit-policy.sh).

targetScope = 'resourceGroup'

@description('Short environment name (2-8 lowercase letters or digits, e.g. dev, test, prod); prefixes every resource name.')
@minLength(2)
@maxLength(8)
param environmentName string = 'dev'

@description('Azure region for every resource; defaults to the resource group\'s.')
param location string = resourceGroup().location

@description('Which app to deploy: isolated (FunctionApp.Isolated, net10.0, the default; Flex Consumption FC1 only) or inprocess (FunctionApp, net8.0; Elastic Premium EP1-EP3 only). docs/deploy.md, "Apps and plans".')
@allowed([
  'isolated'
  'inprocess'
])
param app string = 'isolated'

@description('Function app plan: FC1 (Linux Flex Consumption, the default) for the isolated app; EP1-EP3 (Windows Elastic Premium) for the in-process app. Y1 is refused for both: the in-process queue trigger cannot wake or scale there, and Linux Consumption cannot run the isolated app on .NET 10. Other combinations stop with a message (docs/deploy.md, "Apps and plans").')
@allowed([
  'FC1'
  'EP1'
  'EP2'
  'EP3'
  'Y1'
])
param planSku string = 'FC1'

@description('Flex Consumption: the most instances the app may scale out to (1-1000; default 100).')
@minValue(1)
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Flex Consumption: memory of each instance in MB (2048, the default, or 4096). The memory budget\'s default follows it: an eighth of what the GC sees (docs/deploy.md, "Flex Consumption: scale and memory").')
@allowed([
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Flex Consumption: always-ready instances for the HTTP functions (default 0: scale to zero, cold starts possible; each one is billed while idle).')
@minValue(0)
@maxValue(20)
param alwaysReadyHttpInstances int = 0

@description('Elastic Premium (in-process app) only: the most instances the plan may scale out to.')
@minValue(1)
@maxValue(100)
param maximumElasticWorkerCount int = 20

@description('Replication SKU of the storage accounts.')
@allowed([
  'Standard_LRS'
  'Standard_ZRS'
  'Standard_GRS'
  'Standard_RAGRS'
])
param storageSku string = 'Standard_LRS'

@description('Name of the Key Vault secret that holds the signing key. The pipeline creates it; this template only points the app at it.')
@minLength(1)
@maxLength(127)
param signingSecretName string = 'widget-signing-key'

@description('Name of the Key Vault secret that holds the audit seal key (an Ed25519 seed, whsk_<base64 32 bytes>). The pipeline\'s key bootstrap creates it once; this template points the app at it and grants it read on this secret only.')
@minLength(1)
@maxLength(127)
param auditSigningSecretName string = 'audit-signing-key'

@description('Whether the audit seal key secret exists already: as signingKeyExists, for the app\'s read grant on it. The pipeline\'s Plan looks and sets it.')
param auditSigningKeyExists bool = true

@description('Whether the signing-key secret exists already. The app\'s Key Vault grant is scoped to that secret, and a role assignment needs its scope to exist: the pipeline\'s Plan looks and sets this; on a first deployment Apply deploys again with true once the key bootstrap has created the key.')
param signingKeyExists bool = true

@description('In-process app only: object id of the principal that uploads the app package (the pipeline\'s deploy connection); it gets Storage Blob Data Contributor on the package container only. Empty: whoever deploys this template (deployer()), for a manual deployment. The pipeline sets it so that the plan shows the real grant. The isolated app needs no such grant (Flex takes the package through the app\'s publish endpoint).')
param packagePublisherPrincipalId string = ''

@description('Object id of the smoke-test service connection\'s service principal: it gets message-send on the input queue and peek on the output queue, nothing else. Empty: no smoke-test grants.')
param smokeTestPrincipalId string = ''

@description('Days a deleted vault or secret stays recoverable (7-90). Purge protection keeps them for this long in any case.')
@minValue(7)
@maxValue(90)
param keyVaultSoftDeleteRetentionInDays int = 90

@description('Key Vault name override (3-24 letters, digits and hyphens). Empty (the default): kv-<environmentName>-<suffix>. Set it to re-create an environment while the old vault is soft-deleted under purge protection, which keeps its name reserved for the retention period (docs/deploy.md, "Re-creating an environment").')
@maxLength(24)
param keyVaultName string = ''

@description('Days Log Analytics keeps data.')
@minValue(30)
@maxValue(730)
param logRetentionInDays int = 30

@description('Queue the queue trigger reads envelopes from (WidgetInputQueue).')
param inputQueueName string = 'widget-envelopes'

@description('Queue the signatures are written to (WidgetOutputQueue).')
param outputQueueName string = 'widget-signatures'

@description('Queue rejected envelopes are moved to (WidgetRejectedQueue).')
param rejectedQueueName string = 'widget-envelopes-rejected'

@description('Blob container for claim-check envelopes (WidgetClaimsContainer).')
param claimCheckContainerName string = 'widget-claims'

@description('Blob container for canonical bytes too large to send inline (WidgetCanonicalContainer).')
param canonicalContainerName string = 'widget-canonical'

@description('Blob container for copies of rejected inline envelopes (WidgetRejectedContainer).')
param rejectedContainerName string = 'widget-rejected'

@description('Entra tenant (GUID) whose access tokens the app accepts (Auth:TenantId); defaults to the deployment\'s tenant.')
param authTenantId string = tenant().tenantId

@description('Required: client id (GUID) of the app registration that represents this API (Auth:Audience, the aud of its v2 tokens). Empty stops the deployment with a message; docs/deploy.md, "Callers".')
param authClientId string = ''

@description('Optional: the app registration\'s identifier URI (e.g. api://<client id>), also accepted as a token audience (Auth:AppIdUri). Empty: the client id only.')
param authAppIdUri string = ''

@description('Receiver ids (comma-separated) that envelopes on the input queue may name besides the default receiver (Queues:AllowedReceivers). Empty: only the default receiver; a message naming another is rejected with the reason (docs/deploy.md, "Who may send to which queue").')
param queueAllowedReceivers string = ''

@description('Resource id of the action group the alert rules notify (/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Insights/actionGroups/<name>). Empty (the default): the rules are still deployed and fire in Azure Monitor > Alerts, but notify no one (docs/deploy.md, "Alerts").')
param actionGroupId string = ''

@description('Alert: percent of HTTP invocations (Sign, Verify, Keys) answered with a 5xx in 5 minutes above which the HTTP 5xx rule fires (docs/operations.md, "Alerts and dashboard").')
@minValue(1)
@maxValue(100)
param alertHttpServerErrorPercent int = 5

@description('Alert: the fewest HTTP invocations in 5 minutes for the HTTP 5xx rule to judge the share.')
@minValue(1)
@maxValue(100000)
param alertHttpMinimumRequests int = 20

@description('Alert: refusals (all problem types, HTTP and queue) in 5 minutes above which the refusal spike rule fires.')
@minValue(1)
@maxValue(1000000)
param alertRefusalsPer5Minutes int = 100

@description('Alert: age in seconds of the oldest queue message at dequeue above which the queue message age rule fires.')
@minValue(1)
@maxValue(604800)
param alertQueueMessageAgeSeconds int = 300

@description('Alert: failed Key Vault key refreshes in 15 minutes above which the Key Vault rule fires (0: any failure).')
@minValue(0)
@maxValue(10000)
param alertKeyVaultRefreshFailures int = 2

@description('Alert: days before a current or staged key\'s exp below which the key expiry rule fires for that receiver.')
@minValue(1)
@maxValue(365)
param alertKeyExpiryDays int = 14

@description('Alert: the 95th percentile, in milliseconds, of a signature\'s wait for its audit record (5 minutes, at least 20 waits) above which the audit wait rule fires.')
@minValue(1)
@maxValue(60000)
param alertAuditWaitP95Milliseconds int = 250

@description('Blob container of the audit trail (Audit:Container): the app creates append-blob streams, anchors and public keys there and never overwrites or deletes one (docs/deploy.md, "Audit trail").')
@minLength(3)
@maxLength(63)
param auditContainerName string = 'widget-audit'

@description('Days every audit blob stays immutable (no overwrite, no delete) after its creation, for an append blob after its last append: the container\'s time-based immutability policy. Default 365: a year of records for an annual audit, and append blobs stay protected while they grow (1-146000; a locked policy can only be extended, at most five times, never shortened).')
@minValue(1)
@maxValue(146000)
param auditRetentionDays int = 365

@description('Lock the audit container\'s immutability policy (production). Locked, it can never be deleted or shortened, and neither the container nor the storage account can be deleted while a blob is in it. Resource Manager has no locked state to declare: the pipeline\'s Apply runs the lock action after the deployment (infra/scripts/lock-audit-policy.sh) when this is true, and never for a target other than prod. Default false: unlocked, deletable, for test environments.')
param auditPolicyLocked bool = false

@description('Whether the audit container\'s immutability policy is locked in Azure already; the pipeline\'s Plan looks and sets it. Resource Manager updates only unlocked policies, so a locked one is left out of the deployment.')
param auditPolicyIsLocked bool = false

@description('Object id of a principal (an operator or auditor group) that runs the audit trail\'s verify: Storage Blob Data Reader on the audit container only. Empty (the default): none.')
param auditReaderPrincipalId string = ''

@description('Tags applied to every resource.')
param tags object = {
  application: 'widget-signing'
  environment: environmentName
}

// 13 characters, stable for this resource group and environment: names are unique yet redeployable.
var suffix = uniqueString(subscription().id, resourceGroup().id, environmentName)
var compactEnvironment = toLower(replace(environmentName, '-', ''))
var names = {
  identity: 'id-${environmentName}-${suffix}'
  logAnalytics: 'log-${environmentName}-${suffix}'
  appInsights: 'appi-${environmentName}-${suffix}'
  // Storage account names: 3-24 lowercase letters and digits.
  hostStorage: take('sth${compactEnvironment}${suffix}', 24)
  deploymentStorage: take('stp${compactEnvironment}${suffix}', 24)
  dataStorage: take('std${compactEnvironment}${suffix}', 24)
  // Key Vault names: 3-24 characters.
  keyVault: empty(keyVaultName) ? take('kv-${environmentName}-${suffix}', 24) : keyVaultName
  plan: 'plan-${environmentName}-${suffix}'
  functionApp: 'func-${environmentName}-${suffix}'
  alertPrefix: 'alert-${environmentName}-${suffix}'
}

// The deployment account's container with the app package (Flex deployment storage, or WEBSITE_RUN_FROM_PACKAGE for
// the in-process app); the account name is unique already.
var packageContainerName = 'function-releases'

// Which app may run on which plan. A combination that cannot work stops the deployment (compile-time for the snapshot and
// what-if, deploy time for ARM) with the reason, rather than deploying an app that cannot scale or start.
var planRefusal = app == 'inprocess' && planSku == 'FC1'
  ? 'app=inprocess cannot run on Flex Consumption (FC1): Flex runs only the isolated worker model. Use app=isolated on FC1, or app=inprocess on EP1, EP2 or EP3.'
  : app == 'inprocess' && planSku == 'Y1'
      ? 'app=inprocess cannot use Consumption (Y1): the scale controller does not know its own queue trigger, so queue messages would neither wake nor scale the app. Use EP1, EP2 or EP3 (runtime scale monitoring).'
      : app == 'isolated' && planSku == 'Y1'
          ? 'app=isolated cannot use Consumption (Y1): Linux Consumption cannot run dotnet-isolated 10.0 and is retiring. Use FC1 (Flex Consumption).'
          : app == 'isolated' && planSku != 'FC1'
              ? 'app=isolated deploys on Flex Consumption (FC1) only in this template; planSku ${planSku} is for app=inprocess.'
              : ''
var checkedPlanSku = empty(planRefusal) ? planSku : fail(planRefusal)

// Every HTTP call carries an Entra access token for this app registration: without its client id nothing could call
// the app, so the deployment stops rather than deploy an app that refuses every caller.
// Bicep has no regular expression: a GUID's shape is its length and its four hyphens.
var checkedAuthClientId = empty(authClientId)
  ? fail('authClientId is required: the client id of the app registration that represents this API (docs/deploy.md, "Callers").')
  : length(authClientId) != 36 || length(split(authClientId, '-')) != 5
      ? fail('authClientId must be the app registration\'s client id, a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx).')
      : toLower(authClientId)

// The callers' grants table (Grants:TableName's default, so the app needs no setting for it).
var grantsTableName = 'callergrants'

// An action group id that is not one would fail only when an alert fires; stop the deployment now instead. The id
// is rebuilt from its segments (padded, so a short one indexes safely) and must come out the same.
var actionGroupSegments = concat(split(toLower(actionGroupId), '/'), ['', '', '', '', '', '', '', '', ''])
var actionGroupIdShaped = !empty(actionGroupSegments[2]) && !empty(actionGroupSegments[4]) && !empty(actionGroupSegments[8]) && toLower(actionGroupId) == '/subscriptions/${actionGroupSegments[2]}/resourcegroups/${actionGroupSegments[4]}/providers/microsoft.insights/actiongroups/${actionGroupSegments[8]}'
var checkedActionGroupId = empty(actionGroupId) || actionGroupIdShaped
  ? actionGroupId
  : fail('actionGroupId must be the resource id of an action group (/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Insights/actionGroups/<name>), or empty for rules that notify no one.')
var isolated = app == 'isolated'

module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  params: {
    location: location
    logAnalyticsName: names.logAnalytics
    appInsightsName: names.appInsights
    retentionInDays: logRetentionInDays
    tags: tags
  }
}

module alerts 'modules/alerts.bicep' = {
  name: 'alerts'
  params: {
    location: location
    namePrefix: names.alertPrefix
    appInsightsName: monitoring.outputs.appInsightsName
    actionGroupId: checkedActionGroupId
    httpServerErrorPercent: alertHttpServerErrorPercent
    httpMinimumRequests: alertHttpMinimumRequests
    refusalsPer5Minutes: alertRefusalsPer5Minutes
    queueMessageAgeSeconds: alertQueueMessageAgeSeconds
    keyVaultRefreshFailures: alertKeyVaultRefreshFailures
    keyExpiryDays: alertKeyExpiryDays
    auditWaitP95Milliseconds: alertAuditWaitP95Milliseconds
    tags: tags
  }
}

module workbook 'modules/workbook.bicep' = {
  name: 'workbook'
  params: {
    location: location
    workbookName: guid(resourceGroup().id, environmentName, 'widget-signing-workbook')
    displayName: 'Widget signing (${environmentName})'
    appInsightsName: monitoring.outputs.appInsightsName
    tags: tags
  }
}

module identity 'modules/identity.bicep' = {
  name: 'identity'
  params: {
    location: location
    identityName: names.identity
    tags: tags
  }
}

module storage 'modules/storage.bicep' = {
  name: 'storage'
  params: {
    location: location
    hostStorageAccountName: names.hostStorage
    deploymentStorageAccountName: names.deploymentStorage
    dataStorageAccountName: names.dataStorage
    skuName: storageSku
    inputQueueName: inputQueueName
    outputQueueName: outputQueueName
    rejectedQueueName: rejectedQueueName
    claimCheckContainerName: claimCheckContainerName
    canonicalContainerName: canonicalContainerName
    rejectedContainerName: rejectedContainerName
    packageContainerName: packageContainerName
    grantsTableName: grantsTableName
    auditContainerName: auditContainerName
    auditRetentionDays: auditRetentionDays
    auditPolicyIsLocked: auditPolicyIsLocked
    workspaceId: monitoring.outputs.workspaceId
    tags: tags
  }
}

module keyVault 'modules/keyVault.bicep' = {
  name: 'keyVault'
  params: {
    location: location
    keyVaultName: names.keyVault
    softDeleteRetentionInDays: keyVaultSoftDeleteRetentionInDays
    workspaceId: monitoring.outputs.workspaceId
    tags: tags
  }
}

module roleAssignments 'modules/roleAssignments.bicep' = {
  name: 'roleAssignments'
  params: {
    app: app
    principalId: identity.outputs.principalId
    appInsightsName: monitoring.outputs.appInsightsName
    keyVaultName: keyVault.outputs.name
    signingSecretName: signingSecretName
    signingKeyExists: signingKeyExists
    hostStorageAccountName: storage.outputs.hostStorageAccountName
    deploymentStorageAccountName: storage.outputs.deploymentStorageAccountName
    packageContainerName: storage.outputs.packageContainerName
    deployerPrincipalId: empty(packagePublisherPrincipalId) ? deployer().objectId : packagePublisherPrincipalId
    smokeTestPrincipalId: smokeTestPrincipalId
    dataStorageAccountName: storage.outputs.dataStorageAccountName
    queueNames: storage.outputs.queueNames
    containerNames: storage.outputs.containerNames
    grantsTableName: storage.outputs.grantsTableName
    auditSigningSecretName: auditSigningSecretName
    auditSigningKeyExists: auditSigningKeyExists
    auditReaderPrincipalId: auditReaderPrincipalId
  }
}

module flexFunctionApp 'modules/flexFunctionApp.bicep' = if (isolated) {
  name: 'flexFunctionApp'
  params: {
    location: location
    planName: names.plan
    functionAppName: names.functionApp
    planSku: checkedPlanSku
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    alwaysReadyHttpInstances: alwaysReadyHttpInstances
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    hostStorageAccountName: storage.outputs.hostStorageAccountName
    deploymentContainerUrl: storage.outputs.packageContainerUrl
    dataQueueServiceUri: storage.outputs.dataQueueServiceUri
    dataBlobServiceUri: storage.outputs.dataBlobServiceUri
    dataTableServiceUri: storage.outputs.dataTableServiceUri
    authTenantId: authTenantId
    authClientId: checkedAuthClientId
    authAppIdUri: authAppIdUri
    queueAllowedReceivers: queueAllowedReceivers
    appInsightsName: monitoring.outputs.appInsightsName
    keyVaultUri: keyVault.outputs.vaultUri
    signingSecretName: signingSecretName
    inputQueueName: inputQueueName
    outputQueueName: outputQueueName
    rejectedQueueName: rejectedQueueName
    claimCheckContainerName: claimCheckContainerName
    canonicalContainerName: canonicalContainerName
    rejectedContainerName: rejectedContainerName
    auditContainerName: auditContainerName
    auditSigningSecretName: auditSigningSecretName
    tags: tags
  }
  // The grants first: Flex writes the first package into the deployment container with the app's identity.
  dependsOn: [
    roleAssignments
  ]
}

module functionApp 'modules/functionApp.bicep' = if (!isolated) {
  name: 'functionApp'
  params: {
    location: location
    planName: names.plan
    functionAppName: names.functionApp
    planSku: checkedPlanSku
    maximumElasticWorkerCount: maximumElasticWorkerCount
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    hostStorageAccountName: storage.outputs.hostStorageAccountName
    packageBlobUrl: storage.outputs.packageBlobUrl
    dataQueueServiceUri: storage.outputs.dataQueueServiceUri
    dataBlobServiceUri: storage.outputs.dataBlobServiceUri
    dataTableServiceUri: storage.outputs.dataTableServiceUri
    authTenantId: authTenantId
    authClientId: checkedAuthClientId
    authAppIdUri: authAppIdUri
    queueAllowedReceivers: queueAllowedReceivers
    appInsightsName: monitoring.outputs.appInsightsName
    keyVaultUri: keyVault.outputs.vaultUri
    signingSecretName: signingSecretName
    inputQueueName: inputQueueName
    outputQueueName: outputQueueName
    rejectedQueueName: rejectedQueueName
    claimCheckContainerName: claimCheckContainerName
    canonicalContainerName: canonicalContainerName
    rejectedContainerName: rejectedContainerName
    auditContainerName: auditContainerName
    auditSigningSecretName: auditSigningSecretName
    tags: tags
  }
  // The app should find its storage grants in place when it first starts (the signing key it retries for; no
  // setting is a Key Vault reference, so nothing must resolve while the site is created).
  dependsOn: [
    roleAssignments
  ]
}

@description('Which app was deployed (isolated or inprocess): the pipeline picks the package and the deploy command by it.')
output app string = app

@description('Name of the function app (the deploy and smoke scripts).')
output functionAppName string = isolated ? flexFunctionApp!.outputs.name : functionApp!.outputs.name

@description('Default host name of the function app, for the smoke test.')
output functionAppHostName string = isolated ? flexFunctionApp!.outputs.defaultHostName : functionApp!.outputs.defaultHostName

@description('Name of the Key Vault (key bootstrap).')
output keyVaultName string = keyVault.outputs.name

@description('URI of the Key Vault.')
output keyVaultUri string = keyVault.outputs.vaultUri

@description('Name of the signing key secret in the vault.')
output signingSecretName string = signingSecretName

@description('Client id of the app\'s managed identity.')
output identityClientId string = identity.outputs.clientId

@description('Name of the storage account with the envelope queues and the blob containers.')
output dataStorageAccountName string = storage.outputs.dataStorageAccountName

@description('Name of the callers\' grants table in the data account (infra/scripts/caller-grant.sh).')
output grantsTableName string = storage.outputs.grantsTableName

@description('Name of the queue the app reads envelopes from.')
output inputQueueName string = inputQueueName

@description('Name of the queue the app forwards signatures to (the smoke test peeks it).')
output outputQueueName string = outputQueueName

@description('Name of the audit seal key secret in the vault (key bootstrap).')
output auditSigningSecretName string = auditSigningSecretName

@description('Name of the audit trail\'s container in the data account (the policy lock).')
output auditContainerName string = storage.outputs.containerNames.audit

@description('Days of the audit container\'s immutability policy (the lock script checks the policy it locks has them).')
output auditRetentionDays int = auditRetentionDays

@description('Whether Apply locks the audit container\'s immutability policy (production).')
output auditPolicyLocked bool = auditPolicyLocked

@description('Name of the host storage account (AzureWebJobsStorage).')
output hostStorageAccountName string = storage.outputs.hostStorageAccountName

@description('Name of the deployment storage account (the app package; the in-process pipeline uploads there).')
output deploymentStorageAccountName string = storage.outputs.deploymentStorageAccountName

@description('Name of the container the app package is kept in.')
output packageContainerName string = storage.outputs.packageContainerName
