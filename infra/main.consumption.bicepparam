// Parameters for infra/main.bicep on the Consumption plan (Y1, Windows), for HTTP-only use (no queue signing: the
// Consumption scale controller does not know the custom queue trigger). Pay per execution, scale to zero, cold
// starts. Every parameter has a safe default in main.bicep; set here what differs per environment. The pipeline
// picks this file for planSku Y1 and writes this run's environmentName, location and
// planSku over it (Plan stage).
// No secret belongs in this file: the signing key lives only in Key Vault, and no storage key is used anywhere.
using './main.bicep'

param environmentName = 'dev'
param planSku = 'Y1'
param storageSku = 'Standard_LRS'
param signingSecretName = 'widget-signing-key'
param logRetentionInDays = 30
