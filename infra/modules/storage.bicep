// Storage: three accounts, all reached only with Entra ID (allowSharedKeyAccess: false), so no account key is in any
// app setting, Key Vault secret, parameter or output, and a leaked key could not be used anyway.
// - The host account backs AzureWebJobsStorage (identity-based): the Functions host's leases, keys and diagnostics.
// - The deployment account keeps the app package in one container (function-releases): on Flex Consumption it is the
//   app's deployment storage (functionAppConfig.deployment, the user-assigned identity); for the in-process app
//   WEBSITE_RUN_FROM_PACKAGE is the URL of a blob there, fetched with the app's managed identity. Neither app has an
//   Azure Files content share: on Elastic Premium that share takes only a connection string (an account key), and a Key
//   Vault reference to it cannot be resolved reliably while the site is created (docs/deploy.md, "No content share");
//   Flex Consumption has none.
// - The data account holds the envelope queues, the claim-check, canonical and rejected containers, the audit trail's
//   container (widget-audit, write once: a container-level time-based immutability policy that lets append blobs grow
//   and nothing be overwritten or deleted) and the callers' grants table; the app's WidgetStorage connection is identity-based (WidgetStorage__queueServiceUri /
//   __blobServiceUri / __tableServiceUri / __credential / __clientId), with data roles per queue, per container and on
//   the grants table (roleAssignments.bicep).
// Every storage service sends its read, write and delete logs to the Log Analytics workspace.

@description('Azure region for the storage accounts.')
param location string

@description('Name of the storage account behind AzureWebJobsStorage and the app package (3-24 lowercase letters and digits).')
@minLength(3)
@maxLength(24)
param hostStorageAccountName string

@description('Name of the storage account that keeps the app package (3-24 lowercase letters and digits).')
@minLength(3)
@maxLength(24)
param deploymentStorageAccountName string

@description('Name of the storage account for the envelope queues and the claim-check container (3-24 lowercase letters and digits).')
@minLength(3)
@maxLength(24)
param dataStorageAccountName string

@description('Replication SKU of the accounts.')
@allowed([
  'Standard_LRS'
  'Standard_ZRS'
  'Standard_GRS'
  'Standard_RAGRS'
])
param skuName string

@description('Queue the queue trigger reads envelopes from (WidgetInputQueue).')
param inputQueueName string

@description('Queue the signatures are written to (WidgetOutputQueue).')
param outputQueueName string

@description('Queue rejected envelopes are moved to, with the reason (WidgetRejectedQueue).')
param rejectedQueueName string

@description('Blob container for claim-check envelopes too large for a queue message (WidgetClaimsContainer).')
param claimCheckContainerName string

@description('Blob container for canonical bytes too large to send inline (WidgetCanonicalContainer).')
param canonicalContainerName string

@description('Blob container for copies of rejected inline envelopes (WidgetRejectedContainer).')
param rejectedContainerName string

@description('Blob container of the audit trail (Audit:Container): append-blob streams, anchors and public keys, never overwritten or deleted (docs/deploy.md, "Audit trail").')
@minLength(3)
@maxLength(63)
param auditContainerName string

@description('Days every blob in the audit container stays immutable (no overwrite, no delete) after its creation; for an append blob, after its last append. The container-level policy\'s immutabilityPeriodSinceCreationInDays.')
@minValue(1)
@maxValue(146000)
param auditRetentionDays int

@description('Whether the audit container\'s policy is locked in Azure already (the pipeline\'s Plan looks). Resource Manager updates only an unlocked policy, so a locked one is left as it is.')
param auditPolicyIsLocked bool

@description('Table of the callers\' grants (Grants:TableName): one entity per caller and receiver; operators write it, the app only reads it.')
@minLength(3)
@maxLength(63)
param grantsTableName string

@description('Blob container in the deployment account that holds the app package (Flex deployment storage, or WEBSITE_RUN_FROM_PACKAGE).')
param packageContainerName string

@description('Resource id of the Log Analytics workspace that receives the storage logs.')
param workspaceId string

@description('Tags applied to every resource.')
param tags object

// The queue trigger moves a message that failed maxDequeueCount times to "<queue>-poison". Creating it here means
// the app only ever needs to send to it, never to create queues.
var poisonQueueName = '${inputQueueName}-poison'

// Entra ID only, HTTPS only, no public blobs. Public network access stays on: see docs/deploy.md, "Network posture"
// (the Consumption plan cannot reach private endpoints; this template adds none on Elastic Premium either).
var accountProperties = {
  minimumTlsVersion: 'TLS1_2'
  supportsHttpsTrafficOnly: true
  allowBlobPublicAccess: false
  allowSharedKeyAccess: false
  defaultToOAuthAuthentication: true
  allowCrossTenantReplication: false
  publicNetworkAccess: 'Enabled'
  networkAcls: {
    bypass: 'AzureServices'
    defaultAction: 'Allow'
  }
}

// Read, write and delete logs of one storage service; transaction metrics.
var serviceLogs = [
  {
    category: 'StorageRead'
    enabled: true
  }
  {
    category: 'StorageWrite'
    enabled: true
  }
  {
    category: 'StorageDelete'
    enabled: true
  }
]
var serviceMetrics = [
  {
    category: 'Transaction'
    enabled: true
  }
]

resource hostStorage 'Microsoft.Storage/storageAccounts@2026-06-01' = {
  name: hostStorageAccountName
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: skuName
  }
  properties: accountProperties
}

resource deploymentStorage 'Microsoft.Storage/storageAccounts@2026-06-01' = {
  name: deploymentStorageAccountName
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: skuName
  }
  properties: accountProperties
}

resource dataStorage 'Microsoft.Storage/storageAccounts@2026-06-01' = {
  name: dataStorageAccountName
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: skuName
  }
  properties: accountProperties
}

resource hostBlobService 'Microsoft.Storage/storageAccounts/blobServices@2026-06-01' = {
  parent: hostStorage
  name: 'default'
}

resource hostQueueService 'Microsoft.Storage/storageAccounts/queueServices@2026-06-01' = {
  parent: hostStorage
  name: 'default'
}

resource hostTableService 'Microsoft.Storage/storageAccounts/tableServices@2026-06-01' = {
  parent: hostStorage
  name: 'default'
}

resource deploymentBlobService 'Microsoft.Storage/storageAccounts/blobServices@2026-06-01' = {
  parent: deploymentStorage
  name: 'default'
}

// The app package. Flex Consumption: the platform writes and reads it with the app's identity (Blob Data Contributor on
// this container). In-process: the pipeline uploads FunctionApp.zip (Blob Data Contributor on this container only) and
// the app reads it (Blob Data Reader on this container).
resource packageContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' = {
  parent: deploymentBlobService
  name: packageContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2026-06-01' = {
  parent: dataStorage
  name: 'default'
}

resource inputQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2026-06-01' = {
  parent: queueService
  name: inputQueueName
}

resource poisonQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2026-06-01' = {
  parent: queueService
  name: poisonQueueName
}

resource outputQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2026-06-01' = {
  parent: queueService
  name: outputQueueName
}

resource rejectedQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2026-06-01' = {
  parent: queueService
  name: rejectedQueueName
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2026-06-01' = {
  parent: dataStorage
  name: 'default'
}

resource claimCheckContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' = {
  parent: blobService
  name: claimCheckContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource canonicalContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' = {
  parent: blobService
  name: canonicalContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource rejectedContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' = {
  parent: blobService
  name: rejectedContainerName
  properties: {
    publicAccess: 'None'
  }
}

// The audit trail (its store format: WidgetSigning/Audit and tools/AuditTrail). The app creates append blobs under
// streams/ and appends blocks to them, and creates block blobs under anchors/ and keys/ once (If-None-Match: *); it
// never overwrites or deletes, and its role on this container (roleAssignments.bicep) has no data action that could. The policy holds whoever else
// writes: with allowProtectedAppendWrites an append blob takes new blocks at its end, and nothing in the container can
// be overwritten or deleted, or its blocks changed, for auditRetentionDays after its last write. Container-level WORM
// needs neither blob versioning nor version-level immutability (this account enables neither) and excludes
// point-in-time restore and last access tracking (neither is enabled here either).
resource auditContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' = {
  parent: blobService
  name: auditContainerName
  properties: {
    publicAccess: 'None'
  }
}

// Created unlocked (Resource Manager has no locked state to declare: locking is the immutabilityPolicies/lock action,
// which the pipeline's Apply runs for production, infra/scripts/lock-audit-policy.sh). A locked policy cannot be
// deleted, shortened or have allowProtectedAppendWrites changed, and create-or-update applies only to an unlocked
// one, so once Azure reports it Locked (auditPolicyIsLocked) the template leaves it alone; a longer retention is then
// the lock script's operator step (az storage container immutability-policy extend, at most five times).
resource auditImmutabilityPolicy 'Microsoft.Storage/storageAccounts/blobServices/containers/immutabilityPolicies@2026-06-01' = if (!auditPolicyIsLocked) {
  parent: auditContainer
  name: 'default'
  properties: {
    immutabilityPeriodSinceCreationInDays: auditRetentionDays
    allowProtectedAppendWrites: true
  }
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2026-06-01' = {
  parent: dataStorage
  name: 'default'
}

// Which caller may sign for which receiver: PartitionKey = the caller's object id, RowKey = the receiver id
// (docs/deploy.md, "Callers"). infra/scripts/caller-grant.sh writes it; the app reads it.
resource grantsTable 'Microsoft.Storage/storageAccounts/tableServices/tables@2026-06-01' = {
  parent: tableService
  name: grantsTableName
}

// Diagnostic settings, one per storage service the app uses (Azure Monitor collects storage logs per service).
// 2021-05-01-preview is the newest diagnosticSettings version the pinned compiler has types for; the only GA one it
// offers (2016-09-01) is the old subscription log profile shape, which cannot target a workspace per resource.
#disable-next-line use-recent-api-versions
resource hostBlobDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: hostBlobService
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: serviceMetrics
  }
}

// 2021-05-01-preview is the newest diagnosticSettings version the pinned compiler has types for; the only GA one it
// offers (2016-09-01) is the old subscription log profile shape, which cannot target a workspace per resource.
#disable-next-line use-recent-api-versions
resource hostQueueDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: hostQueueService
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: serviceMetrics
  }
}

// 2021-05-01-preview is the newest diagnosticSettings version the pinned compiler has types for; the only GA one it
// offers (2016-09-01) is the old subscription log profile shape, which cannot target a workspace per resource.
#disable-next-line use-recent-api-versions
resource hostTableDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: hostTableService
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: serviceMetrics
  }
}

// 2021-05-01-preview is the newest diagnosticSettings version the pinned compiler has types for; the only GA one it
// offers (2016-09-01) is the old subscription log profile shape, which cannot target a workspace per resource.
#disable-next-line use-recent-api-versions
resource deploymentBlobDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: deploymentBlobService
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: serviceMetrics
  }
}

// 2021-05-01-preview is the newest diagnosticSettings version the pinned compiler has types for; the only GA one it
// offers (2016-09-01) is the old subscription log profile shape, which cannot target a workspace per resource.
#disable-next-line use-recent-api-versions
resource dataQueueDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: queueService
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: serviceMetrics
  }
}

// 2021-05-01-preview is the newest diagnosticSettings version the pinned compiler has types for; the only GA one it
// offers (2016-09-01) is the old subscription log profile shape, which cannot target a workspace per resource.
#disable-next-line use-recent-api-versions
resource dataBlobDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: blobService
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: serviceMetrics
  }
}

// 2021-05-01-preview is the newest diagnosticSettings version the pinned compiler has types for; the only GA one it
// offers (2016-09-01) is the old subscription log profile shape, which cannot target a workspace per resource.
#disable-next-line use-recent-api-versions
resource dataTableDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: tableService
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: serviceMetrics
  }
}

@description('Name of the host storage account (AzureWebJobsStorage).')
output hostStorageAccountName string = hostStorage.name

@description('URL of the app package blob (WEBSITE_RUN_FROM_PACKAGE, in-process app); the pipeline uploads it.')
output packageBlobUrl string = '${deploymentStorage.properties.primaryEndpoints.blob}${packageContainer.name}/FunctionApp.zip'

@description('URL of the package container (Flex Consumption deployment storage).')
output packageContainerUrl string = '${deploymentStorage.properties.primaryEndpoints.blob}${packageContainer.name}'

@description('Name of the deployment storage account (the app package).')
output deploymentStorageAccountName string = deploymentStorage.name

@description('Name of the container that holds the app package.')
output packageContainerName string = packageContainer.name

@description('Name of the data storage account (queues and claim-check blobs).')
output dataStorageAccountName string = dataStorage.name

@description('Queue service endpoint of the data account (WidgetStorage__queueServiceUri).')
output dataQueueServiceUri string = dataStorage.properties.primaryEndpoints.queue

@description('Blob service endpoint of the data account (WidgetStorage__blobServiceUri).')
output dataBlobServiceUri string = dataStorage.properties.primaryEndpoints.blob

@description('Table service endpoint of the data account (WidgetStorage__tableServiceUri): the callers\' grants.')
output dataTableServiceUri string = dataStorage.properties.primaryEndpoints.table

@description('Name of the callers\' grants table, for its table-scoped role assignment.')
output grantsTableName string = grantsTable.name

@description('Names of the queues (the poison queue included), for the queue-scoped role assignments.')
output queueNames object = {
  input: inputQueue.name
  poison: poisonQueue.name
  output: outputQueue.name
  rejected: rejectedQueue.name
}

@description('Names of the blob containers, for the container-scoped role assignments.')
output containerNames object = {
  claimCheck: claimCheckContainer.name
  canonical: canonicalContainer.name
  rejected: rejectedContainer.name
  audit: auditContainer.name
}
