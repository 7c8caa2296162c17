// Parameters for infra/main.bicep on the Consumption plan (Y1, Windows): pay per execution, scale to zero, cold
// starts. Every parameter has a safe default in main.bicep; set here what differs per environment. The pipeline
// picks this file for planSku Y1 and writes this run's environmentName, location and
// planSku over it (Plan stage).
// No secret belongs in this file: the signing key and the storage connection strings live only in Key Vault.
using './main.bicep'

param environmentName = 'dev'
param planSku = 'Y1'
param storageSku = 'Standard_LRS'
param storageKeyName = 'key1'
param signingSecretName = 'widget-signing-key'
param logRetentionInDays = 30
