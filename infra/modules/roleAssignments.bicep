// Role assignments: every grant the running app needs, each on the narrowest scope Azure RBAC offers, plus the two
// narrow grants the pipeline needs (the package upload and the queue smoke test). No one but the app may read the
// signing key: the pipeline has no Key Vault data role (the key bootstrap writes through Resource Manager, the smoke
// test never reads the key).
//
// App identity                          Role                                   Scope
// reads the signing key                 Key Vault Secrets User                 the signing-key secret (not the vault)
// reads the audit seal key              Key Vault Secrets User                 the audit-signing-key secret (not the vault)
// host storage (leases, host keys)      Storage Blob Data Owner                host account (the host creates its containers)
// host diagnostic events                Storage Table Data Contributor         host account
// telemetry with Entra auth             Monitoring Metrics Publisher           the Application Insights component
// app package, isolated (Flex writes    Storage Blob Data Contributor          package container (deployment account)
//   it at deploy, reads it at start)
// app package, in-process (read)        Storage Blob Data Reader               package container (deployment account)
// queue trigger: receive, peek, renew   Storage Queue Data Contributor         input queue
//   visibility (Update Message), delete, queue length
// move to poison                        Storage Queue Data Message Sender      poison queue
// signatures out                        Storage Queue Data Message Sender      output queue
// rejected envelopes out                Storage Queue Data Message Sender      rejected queue
// claim-check envelopes                 Storage Blob Data Reader               claim-check container
// large canonical bytes out             Storage Blob Data Contributor,         canonical container
//                                         condition: create only
// copies of rejected bodies             Storage Blob Data Contributor,         rejected container
//                                         condition: create only
// callers' grants (read only)           Storage Table Data Reader              grants table (data account)
// audit trail: create append and        Storage Blob Data Contributor,         audit container (widget-audit)
//   block blobs, append blocks, read      condition: read and create/append
//                                         only (no write, delete or move)
//
// Pipeline (privileged connection)      Storage Blob Data Contributor          package container, in-process only (uploads
//                                                                              FunctionApp.zip; Flex takes the package
//                                                                              through the app's publish endpoint instead)
// Smoke-test connection (optional)      Storage Queue Data Message Sender      input queue
//                                       Storage Queue Data Reader              output queue (peek only)
// Audit reader (optional: an operator   Storage Blob Data Reader               audit container (verify reads it)
//   or auditor group)
//
// Why Contributor on the input queue: Update Message (the trigger renews a message's visibility while it is being
// processed) needs queues/messages/write, which neither Message Processor nor Reader has; the scope is that one queue.
// Why a condition on the two write containers: Contributor is the only built-in role that creates blobs; the
// condition denies blobs/write (overwrite) and blobs/delete, so only blobs/add/action (create a new blob) and reads
// remain. The audit container's condition also denies blobs/move/action (a rename, on accounts with a hierarchical
// namespace), so only blobs/read and blobs/add/action are left: Put Blob of a new blob, Append Block, reads and lists
// ("Authorize with Microsoft Entra ID", permissions for Blob service operations). Not a custom role with just those two
// data actions: defining one needs Microsoft.Authorization/roleDefinitions/write, which the deploy connection does not
// hold and must not (it could then widen that role and assign it to itself, e.g. to read the signing key). The
// container's immutability policy (storage.bicep) holds any other writer to the same rule. Reader on the grants table: operators write grants (infra/scripts/caller-grant.sh), the app never does, so a
// compromised app cannot grant a caller a receiver. No queue-create right anywhere: storage.bicep creates every queue
// and container.
//
// The signing-key grant needs the secret to exist: the pipeline's Plan sets signingKeyExists, and on a first
// deployment Apply deploys again with it true once the key bootstrap has created the key (docs/deploy.md).

@description('Which app is deployed: isolated (Flex Consumption) or inprocess (Elastic Premium); decides the package grants.')
@allowed([
  'isolated'
  'inprocess'
])
param app string

@description('Object (principal) id of the function app\'s managed identity.')
param principalId string

@description('Name of the Application Insights component the app sends telemetry to with Entra authentication.')
param appInsightsName string

@description('Name of the Key Vault that holds the signing key.')
param keyVaultName string

@description('Name of the signing-key secret (the app\'s only Key Vault grant is on this secret).')
param signingSecretName string

@description('Whether the signing-key secret exists yet; the grant on it is made only then (a role assignment needs its scope to exist).')
param signingKeyExists bool

@description('Name of the storage account behind AzureWebJobsStorage.')
param hostStorageAccountName string

@description('Name of the storage account that keeps the app package.')
param deploymentStorageAccountName string

@description('Name of the container in the deployment account that holds the app package.')
param packageContainerName string

@description('Object id of the principal that deploys this template (the pipeline\'s privileged connection); it uploads the app package.')
param deployerPrincipalId string

@description('Object id of the smoke-test connection\'s service principal; empty: no smoke-test grants.')
param smokeTestPrincipalId string

@description('Name of the storage account with the queues and the claim-check container.')
param dataStorageAccountName string

@description('Names of the queues: input, poison, output and rejected.')
param queueNames object

@description('Names of the blob containers: claimCheck, canonical, rejected and audit.')
param containerNames object

@description('Name of the callers\' grants table in the data account (the app reads it only).')
param grantsTableName string

@description('Name of the audit seal key secret (Ed25519 seed, whsk_<base64>); the app\'s grant is on this secret only.')
param auditSigningSecretName string

@description('Whether the audit seal key secret exists yet; the grant on it is made only then (as for the signing key).')
param auditSigningKeyExists bool

@description('Object id of a principal (an operator or auditor group) that runs the audit trail\'s verify: Storage Blob Data Reader on the audit container only. Empty: none.')
param auditReaderPrincipalId string

// Built-in role definition ids (the same in every tenant).
var roleIds = {
  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageBlobDataContributor: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
  storageBlobDataReader: '2a2b9908-6ea1-4ae2-8e65-a410df84e7d1'
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  storageTableDataReader: '76199698-9eea-4c19-bc75-cec21354c6b6'
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  storageQueueDataReader: '19e7f393-937e-4f77-808e-94535e297925'
  storageQueueDataMessageSender: 'c6a89b2d-59bc-44d0-9896-0f6e12d7b80a'
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb'
}

// Create-only: with this condition, Storage Blob Data Contributor can read and create blobs (blobs/add/action) but
// cannot overwrite (blobs/write) or delete them.
var createOnlyCondition = '((!(ActionMatches{\'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write\'})) AND (!(ActionMatches{\'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete\'})))'

// Append only, for the audit trail: as createOnlyCondition, and no rename either (blobs/move/action). What is left of
// Storage Blob Data Contributor is blobs/read and blobs/add/action: create a new blob, append a block.
var appendOnlyCondition = '((!(ActionMatches{\'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write\'})) AND (!(ActionMatches{\'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete\'})) AND (!(ActionMatches{\'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/move/action\'})))'

var grantSmokeTest = !empty(smokeTestPrincipalId)
var grantAuditReader = !empty(auditReaderPrincipalId)
var isolated = app == 'isolated'

resource vault 'Microsoft.KeyVault/vaults@2026-05-15' existing = {
  name: keyVaultName
}

resource signingSecret 'Microsoft.KeyVault/vaults/secrets@2026-05-15' existing = {
  parent: vault
  name: signingSecretName
}

resource auditSigningSecret 'Microsoft.KeyVault/vaults/secrets@2026-05-15' existing = {
  parent: vault
  name: auditSigningSecretName
}

resource hostStorage 'Microsoft.Storage/storageAccounts@2026-06-01' existing = {
  name: hostStorageAccountName
}

resource deploymentStorage 'Microsoft.Storage/storageAccounts@2026-06-01' existing = {
  name: deploymentStorageAccountName
}

resource deploymentBlobService 'Microsoft.Storage/storageAccounts/blobServices@2026-06-01' existing = {
  parent: deploymentStorage
  name: 'default'
}

resource packageContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' existing = {
  parent: deploymentBlobService
  name: packageContainerName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
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

resource auditContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2026-06-01' existing = {
  parent: blobService
  name: containerNames.audit
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2026-06-01' existing = {
  parent: dataStorage
  name: 'default'
}

resource grantsTable 'Microsoft.Storage/storageAccounts/tableServices/tables@2026-06-01' existing = {
  parent: tableService
  name: grantsTableName
}

resource appSigningKeyReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (signingKeyExists) {
  name: guid(signingSecret.id, principalId, roleIds.keyVaultSecretsUser)
  scope: signingSecret
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultSecretsUser)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Function app reads the signing key (this secret only).'
  }
}

resource appAuditKeyReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (auditSigningKeyExists) {
  name: guid(auditSigningSecret.id, principalId, roleIds.keyVaultSecretsUser)
  scope: auditSigningSecret
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultSecretsUser)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Function app reads the audit seal key (this secret only).'
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

resource appTelemetryPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, principalId, roleIds.monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.monitoringMetricsPublisher)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Telemetry with Entra authentication (APPLICATIONINSIGHTS_AUTHENTICATION_STRING); the component refuses local auth.'
  }
}

// Flex Consumption's deployment storage: the platform writes the published package into this container and reads it
// at start, both as the app's user-assigned identity.
resource appPackageWriter 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (isolated) {
  name: guid(packageContainer.id, principalId, roleIds.storageBlobDataContributor)
  scope: packageContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Flex Consumption deployment storage: write the published package, read it at start (this container only).'
  }
}

// The in-process app runs from the package blob (WEBSITE_RUN_FROM_PACKAGE=<URL>) and only reads it.
resource appPackageReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!isolated) {
  name: guid(packageContainer.id, principalId, roleIds.storageBlobDataReader)
  scope: packageContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataReader)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Run from the package blob: read (this container only).'
  }
}

resource appInputQueueContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(inputQueue.id, principalId, roleIds.storageQueueDataContributor)
  scope: inputQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Queue trigger: receive, peek, renew visibility, delete; queue length for the scale monitor.'
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

resource appClaimCheckBlobReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(claimCheckContainer.id, principalId, roleIds.storageBlobDataReader)
  scope: claimCheckContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataReader)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Claim-check envelopes: read.'
  }
}

resource appCanonicalBlobCreator 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(canonicalContainer.id, principalId, roleIds.storageBlobDataContributor)
  scope: canonicalContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Canonical bytes too large to send inline: create only.'
    condition: createOnlyCondition
    conditionVersion: '2.0'
  }
}

resource appRejectedBlobCreator 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(rejectedContainer.id, principalId, roleIds.storageBlobDataContributor)
  scope: rejectedContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Copies of rejected inline envelopes: create only.'
    condition: createOnlyCondition
    conditionVersion: '2.0'
  }
}

resource appAuditAppender 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(auditContainer.id, principalId, roleIds.storageBlobDataContributor)
  scope: auditContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataContributor)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Audit trail: create append and block blobs, append blocks, read; never overwrite, delete or rename (this container only).'
    condition: appendOnlyCondition
    conditionVersion: '2.0'
  }
}

resource appGrantsTableReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(grantsTable.id, principalId, roleIds.storageTableDataReader)
  scope: grantsTable
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageTableDataReader)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Callers\' grants: read (this table only; operators write it).'
  }
}

// In-process only: the deploying principal uploads the app package; it may be a user for a manual deployment, so no
// principalType. The isolated app's package goes through its publish endpoint, which the platform writes with the app's
// identity, so the pipeline holds no storage role for it.
resource deployerPackageUploader 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!isolated) {
  name: guid(packageContainer.id, deployerPrincipalId, roleIds.storageBlobDataContributor)
  scope: packageContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataContributor)
    principalId: deployerPrincipalId
    description: 'Deployment: upload the app package (this container only).'
  }
}

resource smokeInputQueueSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (grantSmokeTest) {
  name: guid(inputQueue.id, smokeTestPrincipalId, roleIds.storageQueueDataMessageSender)
  scope: inputQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataMessageSender)
    principalId: smokeTestPrincipalId
    principalType: 'ServicePrincipal'
    description: 'Smoke test: put one envelope on the input queue.'
  }
}

resource smokeOutputQueueReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (grantSmokeTest) {
  name: guid(outputQueue.id, smokeTestPrincipalId, roleIds.storageQueueDataReader)
  scope: outputQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataReader)
    principalId: smokeTestPrincipalId
    principalType: 'ServicePrincipal'
    description: 'Smoke test: peek the forwarded signature on the output queue.'
  }
}

// An operator or auditor runs verify against the container: read and list only. It may be a group or a user, so no
// principalType.
resource auditReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (grantAuditReader) {
  name: guid(auditContainer.id, auditReaderPrincipalId, roleIds.storageBlobDataReader)
  scope: auditContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataReader)
    principalId: auditReaderPrincipalId
    description: 'Audit trail verify: read and list (this container only).'
  }
}
