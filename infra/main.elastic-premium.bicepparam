// Parameters for infra/main.bicep: the in-process app (FunctionApp, net8.0) on Elastic Premium (EP1-EP3, Windows):
// pre-warmed instances, runtime scale monitoring for its own queue trigger. The pipeline picks this file for
// app=inprocess and writes this run's environmentName, location and planSku over it (Plan stage). The in-process app
// may not use FC1 or Y1: main.bicep refuses both with the reason. No secret belongs in this file: the signing key lives
// only in Key Vault, and no storage key is used anywhere.
using './main.bicep'

param environmentName = 'prod'
param app = 'inprocess'
param planSku = 'EP1'
param maximumElasticWorkerCount = 20
param storageSku = 'Standard_ZRS'
param signingSecretName = 'widget-signing-key'
param logRetentionInDays = 90
// The audit trail's container is write-once for a year and its policy locked: production. The pipeline writes
// auditPolicyLocked=false over it for any other target (a locked container outlives every attempt to delete it).
param auditRetentionDays = 365
param auditPolicyLocked = true
