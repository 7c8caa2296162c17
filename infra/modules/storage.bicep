// Storage: two accounts, so that each identity grant can be as narrow as its purpose.
// - The host account backs AzureWebJobsStorage (leases, host keys, diagnostic events) and the Windows content
//   share. It keeps shared-key access ON only because the content share (WEBSITE_CONTENTAZUREFILECONNECTIONSTRING)
//   still needs an account key on Windows Consumption and Elastic Premium plans; nothing else uses the key.
// - The data account holds the envelope queues and the claim-check, canonical and rejected containers. Its shared
//   key stays ON for now only because the app's queue trigger (built on WindowsAzure.Storage 9.3.1 while the
//   5.x queue extension cannot be restored, see the README's "Queue-triggered signing") takes a connection string.
//   The identity already holds the narrow data roles for the day the trigger moves to identity-based connections;
//   then set allowSharedKeyAccess to false here and drop the WidgetStorage connection string setting.

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

@description('Tags applied to every resource.')
param tags object

// The Functions queue trigger moves a message that failed maxDequeueCount times to "<queue>-poison". Creating it
// here means the app only ever needs to send to it, never to create queues.
var poisonQueueName = '${inputQueueName}-poison'

resource hostStorage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
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
    // Needed by the content share only (see the top of this file and the README's Deploy section).
    allowSharedKeyAccess: true
    defaultToOAuthAuthentication: true
    allowCrossTenantReplication: false
    publicNetworkAccess: 'Enabled'
  }
}

resource dataStorage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
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
    // Needed by the queue trigger's connection string only (see the top of this file).
    allowSharedKeyAccess: true
    defaultToOAuthAuthentication: true
    allowCrossTenantReplication: false
    publicNetworkAccess: 'Enabled'
  }
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {
  parent: dataStorage
  name: 'default'
}

resource inputQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: inputQueueName
}

resource poisonQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: poisonQueueName
}

resource outputQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: outputQueueName
}

resource rejectedQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: rejectedQueueName
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: dataStorage
  name: 'default'
}

resource claimCheckContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: claimCheckContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource canonicalContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: canonicalContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource rejectedContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: rejectedContainerName
  properties: {
    publicAccess: 'None'
  }
}

@description('Name of the host storage account (AzureWebJobsStorage).')
output hostStorageAccountName string = hostStorage.name

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
