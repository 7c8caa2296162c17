// Parameters for infra/main.bicep on the Elastic Premium plan (EP1-EP3, Windows): pre-warmed instances, no cold
// start, longer runs. The pipeline picks this file for planSku EP1-EP3 and writes this run's environmentName, location and
// planSku over it (Plan stage). No secret belongs in this file: the signing key lives only in Key
// Vault, and no storage key is used anywhere.
using './main.bicep'

param environmentName = 'prod'
param planSku = 'EP1'
param maximumElasticWorkerCount = 20
param storageSku = 'Standard_ZRS'
param signingSecretName = 'widget-signing-key'
param logRetentionInDays = 90
