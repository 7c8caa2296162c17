// Function app: a Windows plan (Consumption by default, Elastic Premium by parameter) and the .NET 8 in-process
// function app, running as the user-assigned identity: identity-based host storage and Key Vault access, and the
// two connection strings the platform and the queue trigger still need as Key Vault references (no key in a setting).

@description('Azure region for the plan and the app.')
param location string

@description('Name of the App Service plan.')
param planName string

@description('Name of the function app (also its default host name prefix).')
param functionAppName string

@description('Plan SKU: Y1 is Windows Consumption; EP1-EP3 are Elastic Premium.')
@allowed([
  'Y1'
  'EP1'
  'EP2'
  'EP3'
])
param planSku string

@description('Elastic Premium only: the most instances the plan may scale out to.')
@minValue(1)
@maxValue(100)
param maximumElasticWorkerCount int

@description('Resource id of the user-assigned managed identity the app runs as.')
param identityId string

@description('Client id of that identity (selects it for AzureWebJobsStorage and Key Vault).')
param identityClientId string

@description('Name of the storage account behind AzureWebJobsStorage and the content share.')
param hostStorageAccountName string

@description('Name of the Azure Files share with the app\'s content (created by storage.bicep).')
param contentShareName string

@description('Versionless URI of the vault secret with the host account\'s connection string (content share).')
param contentShareSecretUri string

@description('Versionless URI of the vault secret with the data account\'s connection string (WidgetStorage).')
param widgetStorageSecretUri string

@description('Name of the Application Insights component the app reports to.')
param appInsightsName string

@description('URI of the Key Vault that holds the signing key.')
param keyVaultUri string

@description('Name of the Key Vault secret that holds the signing key (created by the pipeline, never by this template).')
param signingSecretName string

@description('Queue the queue trigger reads envelopes from (Queues:Input).')
param inputQueueName string

@description('Queue the signatures are written to (Queues:Output).')
param outputQueueName string

@description('Queue rejected envelopes are moved to (Queues:Rejected).')
param rejectedQueueName string

@description('Blob container for claim-check envelopes (Queues:ClaimCheckContainer).')
param claimCheckContainerName string

@description('Blob container for canonical bytes too large to send inline (Queues:CanonicalContainer).')
param canonicalContainerName string

@description('Blob container for copies of rejected inline envelopes (Queues:RejectedContainer).')
param rejectedContainerName string

@description('Tags applied to every resource.')
param tags object

var isElasticPremium = startsWith(planSku, 'EP')

resource hostStorage 'Microsoft.Storage/storageAccounts@2026-06-01' existing = {
  name: hostStorageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource plan 'Microsoft.Web/serverfarms@2025-03-01' = {
  name: planName
  location: location
  tags: tags
  // Windows: in-process .NET 8 apps run on Windows plans here; 'reserved: true' would make it Linux.
  kind: isElasticPremium ? 'elastic' : 'functionapp'
  sku: {
    name: planSku
    tier: isElasticPremium ? 'ElasticPremium' : 'Dynamic'
  }
  properties: {
    reserved: false
    maximumElasticWorkerCount: isElasticPremium ? maximumElasticWorkerCount : null
  }
}

resource site 'Microsoft.Web/sites@2025-03-01' = {
  name: functionAppName
  location: location
  tags: tags
  kind: 'functionapp'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    clientCertEnabled: false
    keyVaultReferenceIdentity: identityId
    siteConfig: {
      netFrameworkVersion: 'v8.0'
      use32BitWorkerProcess: false
      minTlsVersion: '1.2'
      scmMinTlsVersion: '1.2'
      ftpsState: 'Disabled'
      http20Enabled: true
      remoteDebuggingEnabled: false
      appSettings: [
        // Identity-based host storage: no account key in AzureWebJobsStorage.
        {
          name: 'AzureWebJobsStorage__accountName'
          value: hostStorage.name
        }
        {
          name: 'AzureWebJobsStorage__credential'
          value: 'managedidentity'
        }
        {
          name: 'AzureWebJobsStorage__clientId'
          value: identityClientId
        }
        // Windows Consumption and Elastic Premium keep the app's content on an Azure Files share that takes a
        // connection string (no identity option on these plans). It is a Key Vault reference, not a key: the
        // platform resolves it with keyVaultReferenceIdentity. A reference cannot be checked while the site is
        // written, so the content-share validation is skipped and storage.bicep creates the share beforehand.
        {
          name: 'WEBSITE_CONTENTAZUREFILECONNECTIONSTRING'
          value: '@Microsoft.KeyVault(SecretUri=${contentShareSecretUri})'
        }
        {
          name: 'WEBSITE_CONTENTSHARE'
          value: contentShareName
        }
        {
          name: 'WEBSITE_SKIP_CONTENTSHARE_VALIDATION'
          value: '1'
        }
        {
          name: 'FUNCTIONS_EXTENSION_VERSION'
          value: '~4'
        }
        {
          name: 'FUNCTIONS_WORKER_RUNTIME'
          value: 'dotnet'
        }
        // The in-process model on .NET 8 (with netFrameworkVersion v8.0 above).
        {
          name: 'FUNCTIONS_INPROC_NET8_ENABLED'
          value: '1'
        }
        // Run from the deployed zip, read-only; AzureFunctionApp@2 uploads the package.
        {
          name: 'WEBSITE_RUN_FROM_PACKAGE'
          value: '1'
        }
        // The host's own request body limit, equal to the app's default body limit (16 MiB): larger bodies are
        // refused by the host before the app reads them.
        {
          name: 'FUNCTIONS_REQUEST_BODY_SIZE_LIMIT'
          value: '16777216'
        }
        {
          name: 'APPLICATIONINSIGHTS_CONNECTION_STRING'
          value: appInsights.properties.ConnectionString
        }
        // The signing key: where it is, never what it is.
        {
          name: 'KeyVault__VaultUri'
          value: keyVaultUri
        }
        {
          name: 'KeyVault__SecretName'
          value: signingSecretName
        }
        {
          name: 'KeyVault__ManagedIdentityClientId'
          value: identityClientId
        }
        // The queue trigger's connection (the storage extension reads the WidgetStorage setting): a Key Vault
        // reference to the connection string connectionSecrets.bicep keeps in the vault, never the key itself.
        {
          name: 'WidgetStorage'
          value: '@Microsoft.KeyVault(SecretUri=${widgetStorageSecretUri})'
        }
        {
          name: 'WidgetInputQueue'
          value: inputQueueName
        }
        {
          name: 'WidgetOutputQueue'
          value: outputQueueName
        }
        {
          name: 'WidgetRejectedQueue'
          value: rejectedQueueName
        }
        {
          name: 'WidgetClaimsContainer'
          value: claimCheckContainerName
        }
        {
          name: 'WidgetCanonicalContainer'
          value: canonicalContainerName
        }
        {
          name: 'WidgetRejectedContainer'
          value: rejectedContainerName
        }
      ]
    }
  }
}

// No FTP and no basic-auth deployment: AzureFunctionApp@2 deploys with the service connection's Entra token.
resource ftpPublishing 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2025-03-01' = {
  parent: site
  name: 'ftp'
  properties: {
    allow: false
  }
}

resource scmPublishing 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2025-03-01' = {
  parent: site
  name: 'scm'
  properties: {
    allow: false
  }
}

@description('Name of the function app.')
output name string = site.name

@description('Default host name of the function app.')
output defaultHostName string = site.properties.defaultHostName
