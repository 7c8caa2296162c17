// The widget signing service, from an empty resource group to a running, least-privilege deployment.
// One module per concern; every name is derived from environmentName plus a uniqueString of the resource group.
// Deploy: az deployment group create --resource-group <rg> --template-file infra/main.bicep --parameters infra/main.consumption.bicepparam
// Compile and lint locally with the pinned compiler: .ci/bicep (docs/deploy.md).
// The signing key is not here: the pipeline's key bootstrap stage creates it in the vault (docs/deploy.md).

targetScope = 'resourceGroup'

@description('Short environment name (2-8 lowercase letters or digits, e.g. dev, test, prod); prefixes every resource name.')
@minLength(2)
@maxLength(8)
param environmentName string = 'dev'

@description('Azure region for every resource; defaults to the resource group\'s.')
param location string = resourceGroup().location

@description('Function app plan: Y1 (Windows Consumption, the default) or EP1-EP3 (Windows Elastic Premium).')
@allowed([
  'Y1'
  'EP1'
  'EP2'
  'EP3'
])
param planSku string = 'Y1'

@description('Elastic Premium only: the most instances the plan may scale out to.')
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

@description('Storage account key (key1 or key2) the connection strings in the vault are built from. Switch it to rotate the other key (docs/deploy.md, "Storage key rotation").')
@allowed([
  'key1'
  'key2'
])
param storageKeyName string = 'key1'

@description('Name of the Key Vault secret that holds the signing key. The pipeline creates it; this template only points the app at it.')
@minLength(1)
@maxLength(127)
param signingSecretName string = 'widget-signing-key'

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

@description('Queue the queue trigger reads envelopes from (Queues:Input).')
param inputQueueName string = 'widget-envelopes'

@description('Queue the signatures are written to (Queues:Output).')
param outputQueueName string = 'widget-signatures'

@description('Queue rejected envelopes are moved to (Queues:Rejected).')
param rejectedQueueName string = 'widget-envelopes-rejected'

@description('Blob container for claim-check envelopes (Queues:ClaimCheckContainer).')
param claimCheckContainerName string = 'widget-claims'

@description('Blob container for canonical bytes too large to send inline (Queues:CanonicalContainer).')
param canonicalContainerName string = 'widget-canonical'

@description('Blob container for copies of rejected inline envelopes (Queues:RejectedContainer).')
param rejectedContainerName string = 'widget-rejected'

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
  dataStorage: take('std${compactEnvironment}${suffix}', 24)
  // Key Vault names: 3-24 characters.
  keyVault: empty(keyVaultName) ? take('kv-${environmentName}-${suffix}', 24) : keyVaultName
  plan: 'plan-${environmentName}-${suffix}'
  functionApp: 'func-${environmentName}-${suffix}'
  // Azure Files share names: 3-63 lowercase letters, digits and hyphens.
  contentShare: toLower('func-${environmentName}-${suffix}-content')
}

// Vault secrets this template writes (connection strings built from listKeys); the signing key is not one of them.
var connectionSecretNames = {
  widgetStorage: 'widget-storage-connection'
  contentShare: 'content-share-connection'
}

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
    dataStorageAccountName: names.dataStorage
    skuName: storageSku
    inputQueueName: inputQueueName
    outputQueueName: outputQueueName
    rejectedQueueName: rejectedQueueName
    claimCheckContainerName: claimCheckContainerName
    canonicalContainerName: canonicalContainerName
    rejectedContainerName: rejectedContainerName
    contentShareName: names.contentShare
    tags: tags
  }
}

module keyVault 'modules/keyVault.bicep' = {
  name: 'keyVault'
  params: {
    location: location
    keyVaultName: names.keyVault
    softDeleteRetentionInDays: keyVaultSoftDeleteRetentionInDays
    tags: tags
  }
}

module connectionSecrets 'modules/connectionSecrets.bicep' = {
  name: 'connectionSecrets'
  params: {
    keyVaultName: keyVault.outputs.name
    hostStorageAccountName: storage.outputs.hostStorageAccountName
    dataStorageAccountName: storage.outputs.dataStorageAccountName
    storageKeyName: storageKeyName
    widgetStorageSecretName: connectionSecretNames.widgetStorage
    contentShareSecretName: connectionSecretNames.contentShare
  }
}

module roleAssignments 'modules/roleAssignments.bicep' = {
  name: 'roleAssignments'
  params: {
    principalId: identity.outputs.principalId
    keyVaultName: keyVault.outputs.name
    hostStorageAccountName: storage.outputs.hostStorageAccountName
    dataStorageAccountName: storage.outputs.dataStorageAccountName
    queueNames: storage.outputs.queueNames
    containerNames: storage.outputs.containerNames
  }
}

module functionApp 'modules/functionApp.bicep' = {
  name: 'functionApp'
  params: {
    location: location
    planName: names.plan
    functionAppName: names.functionApp
    planSku: planSku
    maximumElasticWorkerCount: maximumElasticWorkerCount
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    hostStorageAccountName: storage.outputs.hostStorageAccountName
    contentShareName: storage.outputs.contentShareName
    contentShareSecretUri: connectionSecrets.outputs.contentShareSecretUri
    widgetStorageSecretUri: connectionSecrets.outputs.widgetStorageSecretUri
    appInsightsName: monitoring.outputs.appInsightsName
    keyVaultUri: keyVault.outputs.vaultUri
    signingSecretName: signingSecretName
    inputQueueName: inputQueueName
    outputQueueName: outputQueueName
    rejectedQueueName: rejectedQueueName
    claimCheckContainerName: claimCheckContainerName
    canonicalContainerName: canonicalContainerName
    rejectedContainerName: rejectedContainerName
    tags: tags
  }
  // The app must not start before its identity may read the key and reach its storage.
  dependsOn: [
    roleAssignments
  ]
}

@description('Name of the function app (AzureFunctionApp@2 appName).')
output functionAppName string = functionApp.outputs.name

@description('Default host name of the function app, for the smoke test.')
output functionAppHostName string = functionApp.outputs.defaultHostName

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

@description('Name of the queue the app reads envelopes from.')
output inputQueueName string = inputQueueName
