// Role assignments: every grant the running app needs, each on the narrowest scope that works. Nothing for the
// pipeline: it holds no Key Vault data role at all (the key bootstrap writes through Resource Manager, the smoke
// test never reads the key), so no run, and no one who edits the pipeline, can read the signing key through it.
//
// App identity                          Role                                   Scope
// reads the signing key                 Key Vault Secrets User                 the vault
// host storage (leases, host keys)      Storage Blob Data Owner                host account (the host creates its containers)
// host diagnostic events                Storage Table Data Contributor         host account
// queue trigger: queue length, peek     Storage Queue Data Reader              input queue
// queue trigger: receive, delete        Storage Queue Data Message Processor   input queue
// queue trigger: move to poison         Storage Queue Data Message Sender      poison queue
// signatures out                        Storage Queue Data Message Sender      output queue
// rejected envelopes out                Storage Queue Data Message Sender      rejected queue
// claim-check envelopes                 Storage Blob Data Contributor          claim-check container
// large canonical bytes out             Storage Blob Data Contributor          canonical container
// copies of rejected bodies             Storage Blob Data Contributor          rejected container
//
// The Key Vault Secrets User grant also lets the platform resolve the app's Key Vault references (the WidgetStorage
// and content-share connection strings). The queue trigger reaches the data account through the WidgetStorage
// connection string today; the data-account grants are the narrow set for an identity-based connection.
// Senders get no queue-create right: the WebJobs queue bindings send first and create only on "queue not found",
// and storage.bicep creates every queue they use.

@description('Object (principal) id of the function app\'s managed identity.')
param principalId string

@description('Name of the Key Vault that holds the signing key.')
param keyVaultName string

@description('Name of the storage account behind AzureWebJobsStorage.')
param hostStorageAccountName string

@description('Name of the storage account with the queues and the claim-check container.')
param dataStorageAccountName string

@description('Names of the queues: input, poison, output and rejected.')
param queueNames object

@description('Names of the blob containers: claimCheck, canonical and rejected.')
param containerNames object

// Built-in role definition ids (the same in every tenant).
var roleIds = {
  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageBlobDataContributor: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  storageQueueDataReader: '19e7f393-937e-4f77-808e-94535e297925'
  storageQueueDataMessageProcessor: '8a0f0c08-91a1-4084-bc3d-661d67233fed'
  storageQueueDataMessageSender: 'c6a89b2d-59bc-44d0-9896-0f6e12d7b80a'
}

resource vault 'Microsoft.KeyVault/vaults@2026-05-15' existing = {
  name: keyVaultName
}

resource hostStorage 'Microsoft.Storage/storageAccounts@2026-06-01' existing = {
  name: hostStorageAccountName
}

resource dataStorage 'Microsoft.Storage/storageAccounts@2026-06-01' existing = {
  name: dataStorageAccountName
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2026-06-01' existing = {
  parent: dataStorage
  name: 'default'
}

resource inputQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2026-06-01' existing = {
  parent: queueService
  name: queueNames.input
}

resource poisonQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2026-06-01' existing = {
  parent: queueService
  name: queueNames.poison
}

resource outputQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2026-06-01' existing = {
  parent: queueService
  name: queueNames.output
}

resource rejectedQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2026-06-01' existing = {
  parent: queueService
  name: queueNames.rejected
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2026-06-01' existing = {
  parent: dataStorage
  name: 'default'
}

resource claimCheckContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' existing = {
  parent: blobService
  name: containerNames.claimCheck
}

resource canonicalContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' existing = {
  parent: blobService
  name: containerNames.canonical
}

resource rejectedContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' existing = {
  parent: blobService
  name: containerNames.rejected
}

resource appKeyVaultSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, principalId, roleIds.keyVaultSecretsUser)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultSecretsUser)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Function app reads the signing key.'
  }
}

resource appHostBlobDataOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(hostStorage.id, principalId, roleIds.storageBlobDataOwner)
  scope: hostStorage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataOwner)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Functions host storage (AzureWebJobsStorage): leases, host keys, its own containers.'
  }
}

resource appHostTableDataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(hostStorage.id, principalId, roleIds.storageTableDataContributor)
  scope: hostStorage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageTableDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Functions host diagnostic events (AzureWebJobsStorage tables).'
  }
}

resource appInputQueueReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(inputQueue.id, principalId, roleIds.storageQueueDataReader)
  scope: inputQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataReader)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Queue trigger: queue properties and length.'
  }
}

resource appInputQueueProcessor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(inputQueue.id, principalId, roleIds.storageQueueDataMessageProcessor)
  scope: inputQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataMessageProcessor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Queue trigger: receive and delete envelope messages.'
  }
}

resource appPoisonQueueSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(poisonQueue.id, principalId, roleIds.storageQueueDataMessageSender)
  scope: poisonQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataMessageSender)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Queue trigger: move a message that keeps failing to the poison queue.'
  }
}

resource appOutputQueueSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(outputQueue.id, principalId, roleIds.storageQueueDataMessageSender)
  scope: outputQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataMessageSender)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Signatures out.'
  }
}

resource appRejectedQueueSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(rejectedQueue.id, principalId, roleIds.storageQueueDataMessageSender)
  scope: rejectedQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataMessageSender)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Rejected envelopes out.'
  }
}

resource appClaimCheckBlobContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(claimCheckContainer.id, principalId, roleIds.storageBlobDataContributor)
  scope: claimCheckContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Claim-check envelopes: read, write, delete.'
  }
}

resource appCanonicalBlobContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(canonicalContainer.id, principalId, roleIds.storageBlobDataContributor)
  scope: canonicalContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Canonical bytes too large to send inline.'
  }
}

resource appRejectedBlobContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(rejectedContainer.id, principalId, roleIds.storageBlobDataContributor)
  scope: rejectedContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Copies of rejected inline envelopes.'
  }
}
