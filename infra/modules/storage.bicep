// Storage: two accounts, so that each identity grant can be as narrow as its purpose.
// - The host account backs AzureWebJobsStorage (identity-based: leases, host keys, diagnostic events) and the Windows
//   content share. It keeps shared-key access ON only because the content share (WEBSITE_CONTENTAZUREFILECONNECTIONSTRING)
//   takes a connection string on Windows Consumption and Elastic Premium plans.
// - The data account holds the envelope queues and the claim-check, canonical and rejected containers. Its shared
//   key stays ON because the app's queue trigger (the storage extension) reads the WidgetStorage connection string.
// Both connection strings live only in Key Vault (connectionSecrets.bicep), built from the key named by
// storageKeyName, and reach the app as Key Vault references; the identity also holds the narrow data roles.

@description('Azure region for the storage accounts.')
param location string

@description('Name of the storage account behind AzureWebJobsStorage and the content share (3-24 lowercase letters and digits).')
@minLength(3)
@maxLength(24)
param hostStorageAccountName string

@description('Name of the storage account for the envelope queues and the claim-check container (3-24 lowercase letters and digits).')
@minLength(3)
@maxLength(24)
param dataStorageAccountName string

@description('Replication SKU of both accounts.')
@allowed([
  'Standard_LRS'
  'Standard_ZRS'
  'Standard_GRS'
  'Standard_RAGRS'
])
param skuName string

@description('Queue the queue trigger reads envelopes from (Queues:Input).')
param inputQueueName string

@description('Queue the signatures are written to (Queues:Output).')
param outputQueueName string

@description('Queue rejected envelopes are moved to, with the reason (Queues:Rejected).')
param rejectedQueueName string

@description('Blob container for claim-check envelopes too large for a queue message (Queues:ClaimCheckContainer).')
param claimCheckContainerName string

@description('Blob container for canonical bytes too large to send inline (Queues:CanonicalContainer).')
param canonicalContainerName string

@description('Blob container for copies of rejected inline envelopes (Queues:RejectedContainer).')
param rejectedContainerName string

@description('Name of the Azure Files share that holds the app\'s content (WEBSITE_CONTENTSHARE); created here because the app skips the platform\'s content-share validation (see functionApp.bicep).')
@minLength(3)
@maxLength(63)
param contentShareName string

@description('Tags applied to every resource.')
param tags object

// The Functions queue trigger moves a message that failed maxDequeueCount times to "<queue>-poison". Creating it
// here means the app only ever needs to send to it, never to create queues.
var poisonQueueName = '${inputQueueName}-poison'

resource hostStorage 'Microsoft.Storage/storageAccounts@2026-06-01' = {
  name: hostStorageAccountName
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: skuName
  }
  properties: {
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    allowBlobPublicAccess: false
    // Needed by the content share's connection string only (see the top of this file).
    allowSharedKeyAccess: true
    defaultToOAuthAuthentication: true
    allowCrossTenantReplication: false
    publicNetworkAccess: 'Enabled'
  }
}

resource dataStorage 'Microsoft.Storage/storageAccounts@2026-06-01' = {
  name: dataStorageAccountName
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: skuName
  }
  properties: {
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    allowBlobPublicAccess: false
    // Needed by the WidgetStorage connection string only (see the top of this file).
    allowSharedKeyAccess: true
    defaultToOAuthAuthentication: true
    allowCrossTenantReplication: false
    publicNetworkAccess: 'Enabled'
  }
}

resource fileService 'Microsoft.Storage/storageAccounts/fileServices@2026-06-01' = {
  parent: hostStorage
  name: 'default'
}

// The platform creates the content share itself only while it validates WEBSITE_CONTENTAZUREFILECONNECTIONSTRING;
// a Key Vault reference cannot be validated, so the share must exist before the app does.
resource contentShare 'Microsoft.Storage/storageAccounts/fileServices/shares@2026-06-01' = {
  parent: fileService
  name: contentShareName
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

@description('Name of the host storage account (AzureWebJobsStorage).')
output hostStorageAccountName string = hostStorage.name

@description('Name of the content share.')
output contentShareName string = contentShare.name

@description('Name of the data storage account (queues and claim-check blobs).')
output dataStorageAccountName string = dataStorage.name

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
}
