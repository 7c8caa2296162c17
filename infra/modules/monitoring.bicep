// Monitoring: a Log Analytics workspace and the workspace-based Application Insights component the app logs to.

@description('Azure region for the resources.')
param location string

@description('Name of the Log Analytics workspace.')
param logAnalyticsName string

@description('Name of the Application Insights component.')
param appInsightsName string

@description('Days Log Analytics keeps data (30 is the free-retention minimum).')
@minValue(30)
@maxValue(730)
param retentionInDays int

@description('Tags applied to every resource.')
param tags object

resource workspace 'Microsoft.OperationalInsights/workspaces@2026-03-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspace.id
    IngestionMode: 'LogAnalytics'
    // Entra authentication only: telemetry with just the instrumentation key is refused, so the connection string in
    // the app settings locates the component but grants nothing (the app's identity has Monitoring Metrics Publisher).
    DisableLocalAuth: true
  }
}

@description('Name of the Application Insights component; the function app module reads its connection string through an existing reference, so no connection string passes through outputs.')
output appInsightsName string = appInsights.name

@description('Resource id of the Log Analytics workspace.')
output workspaceId string = workspace.id
