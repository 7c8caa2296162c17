// Connection secrets: the two storage connection strings the platform and the app still take as strings, built
// here from listKeys() and kept only in the vault. The app settings hold Key Vault references to them
// (@Microsoft.KeyVault(SecretUri=...)), resolved by the app's user-assigned identity; no key is in an app setting,
// an output or a parameter.
//
// Rotate-safe: both strings are built from the key named by storageKeyName (key1 or key2), never from keys[0].
// To rotate: deploy with the other key name (the secrets get a new version built from it), let the app pick the
// references up (restart or the config-reference refresh; see docs/deploy.md, "Storage key rotation"), then
// regenerate the key no longer in use.

@description('Name of the Key Vault that keeps the connection strings.')
param keyVaultName string

@description('Name of the storage account behind the content share (WEBSITE_CONTENTAZUREFILECONNECTIONSTRING).')
param hostStorageAccountName string

@description('Name of the storage account with the envelope queues and the blob containers (WidgetStorage).')
param dataStorageAccountName string

@description('Storage account key the connection strings are built from: key1 or key2 (switch to rotate the other).')
@allowed([
  'key1'
  'key2'
])
param storageKeyName string

@description('Name of the vault secret that holds the data account\'s connection string (the WidgetStorage setting).')
param widgetStorageSecretName string

@description('Name of the vault secret that holds the host account\'s connection string (the content share).')
param contentShareSecretName string

resource vault 'Microsoft.KeyVault/vaults@2026-05-15' existing = {
  name: keyVaultName
}

resource hostStorage 'Microsoft.Storage/storageAccounts@2026-06-01' existing = {
  name: hostStorageAccountName
}

resource dataStorage 'Microsoft.Storage/storageAccounts@2026-06-01' existing = {
  name: dataStorageAccountName
}

// The key by name, not by position: keys[0] is key1 today, but the name is what an operator rotates.
var dataKey = filter(dataStorage.listKeys().keys, k => k.keyName == storageKeyName)[0].value
var hostKey = filter(hostStorage.listKeys().keys, k => k.keyName == storageKeyName)[0].value

resource widgetStorageSecret 'Microsoft.KeyVault/vaults/secrets@2026-05-15' = {
  parent: vault
  name: widgetStorageSecretName
  properties: {
    contentType: 'text/plain; storage-connection-string; ${storageKeyName}'
    value: 'DefaultEndpointsProtocol=https;AccountName=${dataStorage.name};EndpointSuffix=${environment().suffixes.storage};AccountKey=${dataKey}'
  }
}

resource contentShareSecret 'Microsoft.KeyVault/vaults/secrets@2026-05-15' = {
  parent: vault
  name: contentShareSecretName
  properties: {
    contentType: 'text/plain; storage-connection-string; ${storageKeyName}'
    value: 'DefaultEndpointsProtocol=https;AccountName=${hostStorage.name};EndpointSuffix=${environment().suffixes.storage};AccountKey=${hostKey}'
  }
}

// Versionless URIs: the app follows the newest version, so a rotation needs no app-settings change.
@description('Versionless URI of the WidgetStorage connection secret, for its Key Vault reference (a location, not a value).')
output widgetStorageSecretUri string = widgetStorageSecret.properties.secretUri

@description('Versionless URI of the content share connection secret, for its Key Vault reference (a location, not a value).')
output contentShareSecretUri string = contentShareSecret.properties.secretUri
