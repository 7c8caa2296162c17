// Function app, isolated worker on Flex Consumption (FC1): the product's primary app (FunctionApp.Isolated, net10.0).
// The plan scales to zero and out per function on the queue trigger's queue length (the official trigger, which the
// platform's scale controller understands). Runtime, deployment storage and scale live in functionAppConfig, not in app
// settings: Flex refuses FUNCTIONS_WORKER_RUNTIME, FUNCTIONS_EXTENSION_VERSION and WEBSITE_RUN_FROM_PACKAGE*, and none
// of the in-process app's settings is here. Every connection is identity-based with the user-assigned identity: host
// storage (service URIs), the deployment container, WidgetStorage, Key Vault and Application Insights (Entra auth).

@description('Azure region for the plan and the app.')
param location string

@description('Name of the Flex Consumption plan.')
param planName string

@description('Name of the function app (also its default host name prefix).')
param functionAppName string

@description('Plan SKU: FC1 (main.bicep refuses any other value for the isolated app before it gets here).')
param planSku string

@description('Most instances the app may scale out to (Flex: 1-1000).')
@minValue(1)
@maxValue(1000)
param maximumInstanceCount int

@description('Memory of each instance in MB; the memory budget\'s default follows it (docs/deploy.md, "Flex Consumption: scale and memory").')
@allowed([
  2048
  4096
])
param instanceMemoryMB int

@description('Always-ready instances for the HTTP functions (0: scale to zero, cold starts possible).')
@minValue(0)
@maxValue(20)
param alwaysReadyHttpInstances int

@description('Resource id of the user-assigned managed identity the app runs as.')
param identityId string

@description('Client id of that identity (AzureWebJobsStorage, WidgetStorage, Key Vault, Application Insights).')
param identityClientId string

@description('Name of the storage account behind AzureWebJobsStorage.')
param hostStorageAccountName string

@description('URL of the deployment container (deployment account) Flex keeps the app package in.')
param deploymentContainerUrl string

@description('Queue service endpoint of the data account (WidgetStorage__queueServiceUri).')
param dataQueueServiceUri string

@description('Blob service endpoint of the data account (WidgetStorage__blobServiceUri).')
param dataBlobServiceUri string

@description('Table service endpoint of the data account (WidgetStorage__tableServiceUri): the callers\' grants.')
param dataTableServiceUri string

@description('Entra tenant (GUID) whose access tokens the app accepts (Auth:TenantId).')
param authTenantId string

@description('Client id (GUID) of the app registration that represents this API: the audience of its v2 tokens (Auth:Audience).')
param authClientId string

@description('Identifier URI of that app registration, also accepted as an audience (Auth:AppIdUri); empty: none.')
param authAppIdUri string

@description('Receiver ids (comma-separated) the input queue\'s envelopes may name besides the default receiver (Queues:AllowedReceivers); empty: only the default.')
param queueAllowedReceivers string

@description('Name of the Application Insights component the app reports to.')
param appInsightsName string

@description('URI of the Key Vault that holds the signing key.')
param keyVaultUri string

@description('Name of the Key Vault secret that holds the signing key (created by the pipeline, never by this template).')
param signingSecretName string

@description('Queue the queue trigger reads envelopes from (WidgetInputQueue).')
param inputQueueName string

@description('Queue the signatures are written to (WidgetOutputQueue).')
param outputQueueName string

@description('Queue rejected envelopes are moved to (WidgetRejectedQueue).')
param rejectedQueueName string

@description('Blob container for claim-check envelopes (WidgetClaimsContainer).')
param claimCheckContainerName string

@description('Blob container for canonical bytes too large to send inline (WidgetCanonicalContainer).')
param canonicalContainerName string

@description('Blob container for copies of rejected inline envelopes (WidgetRejectedContainer).')
param rejectedContainerName string

@description('Blob container of the audit trail (Audit:Container).')
param auditContainerName string

@description('Name of the Key Vault secret that holds the audit seal key (Audit:SigningKeySecretName; created by the pipeline, never by this template).')
param auditSigningSecretName string

@description('Tags applied to every resource.')
param tags object

resource hostStorage 'Microsoft.Storage/storageAccounts@2026-06-01' existing = {
  name: hostStorageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

// Flex Consumption is Linux only: reserved: true.
resource plan 'Microsoft.Web/serverfarms@2025-03-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: planSku
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true
  }
}

resource site 'Microsoft.Web/sites@2025-03-01' = {
  name: functionAppName
  location: location
  tags: tags
  kind: 'functionapp,linux'
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
    functionAppConfig: {
      // The package: the deploy step publishes it (az functionapp deployment source config-zip); the platform writes it
      // here and reads it at start, both with the user-assigned identity (the account allows no shared key).
      deployment: {
        storage: {
          type: 'blobContainer'
          value: deploymentContainerUrl
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
        alwaysReady: alwaysReadyHttpInstances > 0
          ? [
              {
                name: 'http'
                instanceCount: alwaysReadyHttpInstances
              }
            ]
          : []
      }
      runtime: {
        name: 'dotnet-isolated'
        version: '10.0'
      }
    }
    siteConfig: {
      minTlsVersion: '1.2'
      scmMinTlsVersion: '1.2'
      ftpsState: 'Disabled'
      http20Enabled: true
      remoteDebuggingEnabled: false
      appSettings: [
        // Identity-based host storage: service URIs, the user-assigned identity, no key.
        {
          name: 'AzureWebJobsStorage__blobServiceUri'
          value: hostStorage.properties.primaryEndpoints.blob
        }
        {
          name: 'AzureWebJobsStorage__queueServiceUri'
          value: hostStorage.properties.primaryEndpoints.queue
        }
        {
          name: 'AzureWebJobsStorage__tableServiceUri'
          value: hostStorage.properties.primaryEndpoints.table
        }
        {
          name: 'AzureWebJobsStorage__credential'
          value: 'managedidentity'
        }
        {
          name: 'AzureWebJobsStorage__clientId'
          value: identityClientId
        }
        // The host's own request body limit: the app's default envelope limit (16 MiB) plus 1/128 (128 KiB), because the
        // host's Kestrel counts chunk framing with the data (HttpOptions.HostBodyLimit; docs/api.md, Limits). Larger bodies
        // are refused by the host before the app reads them.
        {
          name: 'FUNCTIONS_REQUEST_BODY_SIZE_LIMIT'
          value: '16908288'
        }
        // A 64 MiB first GC generation for the worker (the host starts the worker with the app's settings as its
        // environment; the runtime reads this knob from the environment only). Where the VM hides its cache sizes, the
        // default budget is ~1.6 MiB, less than one 1 MB request allocates (docs/performance.md, The request over a socket).
        {
          name: 'DOTNET_GCgen0size'
          value: '0x4000000'
        }
        // Application Insights with Entra authentication: the component refuses local (instrumentation key) auth, and the
        // identity holds Monitoring Metrics Publisher on it. The connection string only locates the component.
        {
          name: 'APPLICATIONINSIGHTS_CONNECTION_STRING'
          value: appInsights.properties.ConnectionString
        }
        {
          name: 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING'
          value: 'ClientId=${identityClientId};Authorization=AAD'
        }
        // The service name on every span, metric and log the worker exports (the OpenTelemetry SDK reads OTEL_*).
        {
          name: 'OTEL_SERVICE_NAME'
          value: 'widget-signing'
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
        // The queue trigger's connection, identity-based (the official storage extension's names).
        {
          name: 'WidgetStorage__queueServiceUri'
          value: dataQueueServiceUri
        }
        {
          name: 'WidgetStorage__blobServiceUri'
          value: dataBlobServiceUri
        }
        {
          name: 'WidgetStorage__tableServiceUri'
          value: dataTableServiceUri
        }
        {
          name: 'WidgetStorage__credential'
          value: 'managedidentity'
        }
        {
          name: 'WidgetStorage__clientId'
          value: identityClientId
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
        // The audit trail: its container (append only for the app) and the vault secret with its seal key, read from the
        // same vault with the same identity as the signing key (KeyVault__VaultUri, KeyVault__ManagedIdentityClientId).
        {
          name: 'Audit__Container'
          value: auditContainerName
        }
        {
          name: 'Audit__SigningKeySecretName'
          value: auditSigningSecretName
        }
        {
          name: 'Queues__AllowedReceivers'
          value: queueAllowedReceivers
        }
        // Callers: the Entra tenant and the app registration whose access tokens the app validates (no secret: it
        // only validates tokens, with the tenant's published signing keys).
        {
          name: 'Auth__TenantId'
          value: authTenantId
        }
        {
          name: 'Auth__Audience'
          value: authClientId
        }
        {
          name: 'Auth__AppIdUri'
          value: authAppIdUri
        }
      ]
    }
  }
}

// No FTP and no basic-auth deployment: the pipeline publishes with its Entra token.
// Built-in authentication as the first gate: the platform refuses a request without a valid access token for this app
// registration (401) before it reaches the app, which validates the token again and checks its app roles and grants.
// Validation only: no client secret, no sign-in flow, no token store.
resource authSettings 'Microsoft.Web/sites/config@2025-03-01' = {
  parent: site
  name: 'authsettingsV2'
  properties: {
    platform: {
      enabled: true
    }
    globalValidation: {
      requireAuthentication: true
      unauthenticatedClientAction: 'Return401'
      // Receivers' public key sets (GET /api/receivers/{receiver}/jwks) are anonymous: a receiver holds no token of
      // ours. Only that anonymous function answers under this path (docs/api.md says why it may).
      excludedPaths: [
        '/api/receivers/*'
      ]
    }
    httpSettings: {
      requireHttps: true
    }
    identityProviders: {
      azureActiveDirectory: {
        enabled: true
        registration: {
          clientId: authClientId
          openIdIssuer: '${environment().authentication.loginEndpoint}${authTenantId}/v2.0'
        }
        validation: {
          allowedAudiences: empty(authAppIdUri) ? [authClientId] : [authClientId, authAppIdUri]
        }
      }
    }
    login: {
      tokenStore: {
        enabled: false
      }
    }
  }
}

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
