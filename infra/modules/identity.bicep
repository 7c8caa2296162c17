// Identity: the user-assigned managed identity the function app runs as. User-assigned, so that its role
// assignments exist before the app's first start (a system-assigned identity only exists once the app does).

@description('Azure region for the identity.')
param location string

@description('Name of the user-assigned managed identity.')
param identityName string

@description('Tags applied to every resource.')
param tags object

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: identityName
  location: location
  tags: tags
}

@description('Resource id of the identity, for the function app\'s identity block.')
output id string = identity.id

@description('Name of the identity.')
output name string = identity.name

@description('Object (principal) id of the identity, for role assignments.')
output principalId string = identity.properties.principalId

@description('Client id of the identity, for AzureWebJobsStorage__clientId and KeyVault__ManagedIdentityClientId.')
output clientId string = identity.properties.clientId
