// Function app, in-process (app: 'inprocess'): a Windows Elastic Premium plan (EP1-EP3) and the .NET 8 in-process
// function app, running as the user-assigned identity. Elastic Premium only: our own queue trigger scales through runtime
// scale monitoring, which only EP has (main.bicep refuses FC1 and Y1 for this app). Every connection is identity-based:
// host storage, the WidgetStorage queues and blobs, the app package (run from a blob URL in the deployment account),
// Application Insights (Entra) and the signing key. No setting holds a key or a Key Vault reference, so nothing has to
// resolve while the site is created (docs/deploy.md).

@description('Azure region for the plan and the app.')
param location string

@description('Name of the App Service plan.')
param planName string

@description('Name of the function app (also its default host name prefix).')
param functionAppName string

@description('Plan SKU: Elastic Premium EP1-EP3 (queue signing through runtime scale monitoring); main.bicep refuses FC1 and Y1 for this app before it gets here.')
param planSku string

@description('The most instances the plan may scale out to.')
@minValue(1)
@maxValue(100)
param maximumElasticWorkerCount int

@description('Resource id of the user-assigned managed identity the app runs as.')
param identityId string

@description('Client id of that identity (selects it for AzureWebJobsStorage and Key Vault).')
param identityClientId string

@description('Name of the storage account behind AzureWebJobsStorage.')
param hostStorageAccountName string

@description('URL of the app package blob (WEBSITE_RUN_FROM_PACKAGE), read with the app\'s identity.')
param packageBlobUrl string

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

resource plan 'Microsoft.Web/serverfarms@2025-03-01' = {
  name: planName
  location: location
  tags: tags
  // Windows: in-process .NET 8 apps run on Windows plans here; 'reserved: true' would make it Linux.
  kind: 'elastic'
  sku: {
    name: planSku
    tier: 'ElasticPremium'
  }
  properties: {
    reserved: false
    maximumElasticWorkerCount: maximumElasticWorkerCount
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
      // Elastic Premium: the scale controller asks the host (our trigger's IScaleMonitor, queue length) instead of
      // watching event sources itself, which it cannot do for a custom trigger. It needs one always-ready instance.
      functionsRuntimeScaleMonitoringEnabled: true
      minimumElasticInstanceCount: 1
      preWarmedInstanceCount: 1
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
        // Run from the package blob (deployment account), read-only, fetched with the user-assigned identity: no Azure Files content
        // share, whose setting (WEBSITE_CONTENTAZUREFILECONNECTIONSTRING) would need an account key. The pipeline
        // uploads the blob, restarts the app and syncs its triggers.
        {
          name: 'WEBSITE_RUN_FROM_PACKAGE'
          value: packageBlobUrl
        }
        {
          name: 'WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID'
          value: identityId
        }
        // The host's own request body limit: the app's default envelope limit (16 MiB) plus 1/128 (128 KiB), because the
        // host's Kestrel counts chunk framing with the data (HttpOptions.HostBodyLimit; docs/api.md, Limits). Larger bodies
        // are refused by the host before the app reads them.
        {
          name: 'FUNCTIONS_REQUEST_BODY_SIZE_LIMIT'
          value: '16908288'
        }
        // The host's HTTP throttle, for the in-process app only (host.json, shared with the isolated app, sets none): its
        // HTTP binding copies a Content-Length body into a string before the app's memory budget sees it, so here the
        // host's slots bound those copies (8 executing, 64 in flight; docs/security.md).
        {
          name: 'AzureFunctionsJobHost__extensions__http__maxConcurrentRequests'
          value: '8'
        }
        {
          name: 'AzureFunctionsJobHost__extensions__http__maxOutstandingRequests'
          value: '64'
        }
        // Application Insights with Entra authentication (the component refuses instrumentation-key auth; the identity
        // holds Monitoring Metrics Publisher on it). The connection string only locates the component.
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
        // The queue trigger's connection, identity-based (the names the official 5.x storage extension reads).
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
        // Callers: the Entra tenant and the app registration whose access tokens the platform validates (authSettings
        // below); the app checks the principal the platform passes against them again.
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
        // The host pins Microsoft.IdentityModel 7.1, so the app cannot validate tokens: it reads the caller from the
        // principal App Service Authentication passes (X-MS-CLIENT-PRINCIPAL), only while WEBSITE_AUTH_ENABLED is
        // True, which the platform sets when authSettings below is on (docs/security.md, "Callers").
        {
          name: 'Auth__PlatformAuthentication'
          value: 'true'
        }
      ]
    }
  }
}

// No FTP and no basic-auth deployment: the pipeline uploads the package blob with its Entra token.
// Built-in authentication validates the caller's token: the platform refuses a request without a valid access token for
// this app registration (401) before it reaches the app, and passes the token's claims to it in X-MS-CLIENT-PRINCIPAL,
// stripping any a client sent; the app checks that principal's tenant and audience, its app roles and grants.
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
