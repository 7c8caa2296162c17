// Parameters for infra/main.bicep. Every parameter has a safe default there; set here what differs per
// environment. The pipeline overrides environmentName, planSku and secretsOfficerPrincipalId on the command line.
// No secret belongs in this file: the signing key lives only in Key Vault.
using './main.bicep'

param environmentName = 'dev'
param planSku = 'Y1'
param storageSku = 'Standard_LRS'
param signingSecretName = 'widget-signing-key'
param logRetentionInDays = 30
