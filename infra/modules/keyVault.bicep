// Key Vault: holds the HMAC signing key as a secret, and nothing else (no storage key: the accounts allow Entra ID only). RBAC mode (no access policies), soft delete and purge
// protection on. This template never creates the signing key: the pipeline's key bootstrap does (through Resource Manager), with a random
// value, only if it does not exist yet, so a redeployment can never overwrite or reveal the key.

@description('Azure region for the vault.')
param location string

@description('Name of the Key Vault (3-24 letters, digits and hyphens).')
@minLength(3)
@maxLength(24)
param keyVaultName string

@description('Days a deleted vault or secret stays recoverable (7-90).')
@minValue(7)
@maxValue(90)
param softDeleteRetentionInDays int

@description('Resource id of the Log Analytics workspace that receives the vault\'s audit log.')
param workspaceId string

@description('Tags applied to every resource.')
param tags object

resource vault 'Microsoft.KeyVault/vaults@2026-05-15' = {
  name: keyVaultName
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: softDeleteRetentionInDays
    enablePurgeProtection: true
    enabledForDeployment: false
    enabledForDiskEncryption: false
    enabledForTemplateDeployment: false
    // Public endpoint with Entra ID and RBAC only: see docs/deploy.md, "Network posture".
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Allow'
    }
  }
}

// Every data-plane access (each read of the signing key included) lands in the workspace as an AuditEvent.
// 2021-05-01-preview is the newest diagnosticSettings version the pinned compiler has types for; the only GA one it
// offers (2016-09-01) is the old subscription log profile shape, which cannot target a workspace per resource.
#disable-next-line use-recent-api-versions
resource vaultDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: vault
  properties: {
    workspaceId: workspaceId
    logs: [
      {
        category: 'AuditEvent'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}

@description('Name of the vault.')
output name string = vault.name

@description('URI of the vault, for the KeyVault__VaultUri setting.')
output vaultUri string = vault.properties.vaultUri
