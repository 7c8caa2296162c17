// Dashboard: an Azure Monitor workbook on the Application Insights component (its Workbooks blade), charting the
// WidgetSigning meter and the host's invocation spans (docs/operations.md, "Alerts and dashboard").

@description('Azure region for the workbook.')
param location string

@description('Name of the workbook resource (a GUID, stable per environment).')
param workbookName string

@description('Name shown in the workbook gallery.')
param displayName string

@description('Name of the Application Insights component the workbook queries (the monitoring module\'s).')
param appInsightsName string

@description('Tags applied to every resource.')
param tags object

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

// {TimeRange:grain} is the workbook's bin for the chosen time range (a KQL timespan, e.g. 5m).
var signaturesPerSecondQuery = '''
customMetrics
| where name == "widgetsigning.signatures"
| where tostring(customDimensions["widgetsigning.outcome"]) == "signed"
| summarize signaturesPerSecond = sum(valueSum) / ({TimeRange:grain} / 1s) by bin(timestamp, {TimeRange:grain}), receiver = tostring(customDimensions["widgetsigning.receiver"])
'''

var durationQuery = '''
requests
| where name in ("Sign", "SignQueue")
| summarize p50 = percentile(duration, 50), p95 = percentile(duration, 95) by bin(timestamp, {TimeRange:grain}), name
'''

var refusalsQuery = '''
customMetrics
| where name == "widgetsigning.refusals"
| summarize refusals = sum(valueSum) by bin(timestamp, {TimeRange:grain}), problemType = tostring(customDimensions["widgetsigning.problem_type"])
'''

var queueMessageAgeQuery = '''
customMetrics
| where name == "widgetsigning.queue.message_age"
| summarize maxMessageAgeSeconds = max(valueMax) by bin(timestamp, {TimeRange:grain})
'''

var poisonQuery = '''
customMetrics
| where name == "widgetsigning.queue.poison"
| summarize poisonMessages = sum(valueSum) by bin(timestamp, {TimeRange:grain})
'''

var keyExpiryQuery = '''
customMetrics
| where name == "widgetsigning.key.seconds_to_expiry"
| summarize daysToExpiry = round(min(value) / 86400.0, 1) by receiver = tostring(customDimensions["widgetsigning.receiver"])
| order by daysToExpiry asc
'''

var charts = [
  {
    name: 'signatures-per-second'
    title: 'Signatures per second by receiver (signed)'
    query: signaturesPerSecondQuery
    visualization: 'timechart'
  }
  {
    name: 'duration'
    title: 'Sign and SignQueue duration, p50 and p95 (ms)'
    query: durationQuery
    visualization: 'timechart'
  }
  {
    name: 'refusals'
    title: 'Refusals by problem type'
    query: refusalsQuery
    visualization: 'barchart'
  }
  {
    name: 'queue-message-age'
    title: 'Queue message age at dequeue, max (s)'
    query: queueMessageAgeQuery
    visualization: 'timechart'
  }
  {
    name: 'poison-messages'
    title: 'Poison messages'
    query: poisonQuery
    visualization: 'barchart'
  }
  {
    name: 'key-expiry'
    title: 'Days until the nearest key exp, by receiver'
    query: keyExpiryQuery
    visualization: 'table'
  }
]

// The workbook's own JSON (Notebook/1.0): a time range picker, then one query per chart.
var content = {
  version: 'Notebook/1.0'
  isLocked: false
  items: concat(
    [
      {
        type: 9
        name: 'parameters'
        content: {
          version: 'KqlParameterItem/1.0'
          parameters: [
            {
              id: 'time-range'
              name: 'TimeRange'
              label: 'Time range'
              type: 4
              isRequired: true
              value: {
                durationMs: 86400000
              }
              typeSettings: {
                allowCustom: true
                selectableValues: [
                  {
                    durationMs: 3600000
                  }
                  {
                    durationMs: 14400000
                  }
                  {
                    durationMs: 86400000
                  }
                  {
                    durationMs: 604800000
                  }
                  {
                    durationMs: 2592000000
                  }
                ]
              }
            }
          ]
        }
      }
    ],
    map(charts, c => {
      type: 3
      name: c.name
      content: {
        version: 'KqlItem/1.0'
        title: c.title
        query: c.query
        queryType: 0
        resourceType: 'microsoft.insights/components'
        visualization: c.visualization
        size: 0
        timeContextFromParameter: 'TimeRange'
        timeContext: {
          durationMs: 86400000
        }
      }
    })
  )
}

resource workbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: workbookName
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: displayName
    category: 'workbook'
    sourceId: appInsights.id
    serializedData: string(union(content, {
      fallbackResourceIds: [
        appInsights.id
      ]
    }))
  }
}
