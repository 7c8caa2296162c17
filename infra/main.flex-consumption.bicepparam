// Parameters for infra/main.bicep: the isolated app (FunctionApp.Isolated, net10.0) on Flex Consumption (FC1), the
// default and the pipeline's default. Scales to zero and out per function on the queue length; identity-based
// deployment storage. Every parameter has a safe default in main.bicep; set here what differs per environment. The
// pipeline picks this file for app=isolated and writes this run's environmentName, location and planSku over it.
// No secret belongs in this file: the signing key lives only in Key Vault, and no storage key is used anywhere.
using './main.bicep'

param environmentName = 'prod'
param app = 'isolated'
param planSku = 'FC1'
param maximumInstanceCount = 100
param instanceMemoryMB = 2048
param alwaysReadyHttpInstances = 0
param storageSku = 'Standard_ZRS'
param signingSecretName = 'widget-signing-key'
param logRetentionInDays = 90
// The audit trail's container is write-once for a year and its policy locked: production. The pipeline writes
// auditPolicyLocked=false over it for any other target (a locked container outlives every attempt to delete it).
param auditRetentionDays = 365
param auditPolicyLocked = true
