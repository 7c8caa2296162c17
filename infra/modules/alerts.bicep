// Alerts: log search alert rules over the Application Insights component's tables (requests, customMetrics), on the
// names of the WidgetSigning meter and the host's invocation spans (docs/operations.md, "Alerts and dashboard").
// The rules query the component they are scoped to under Azure Monitor's own authority: no identity, no key.

@description('Azure region for the rules.')
param location string

@description('Prefix of every rule name (alert-<environment>-<suffix>); each rule adds what it watches.')
param namePrefix string

@description('Name of the Application Insights component the rules query (the monitoring module\'s).')
param appInsightsName string

@description('Resource id of the action group every rule notifies. Empty: the rules are deployed and fire (visible in Azure Monitor > Alerts) but notify no one.')
param actionGroupId string

@description('HTTP 5xx: the share of HTTP invocations (Sign, Verify, Keys) answered with a 5xx in 5 minutes, in percent, above which the rule fires.')
@minValue(1)
@maxValue(100)
param httpServerErrorPercent int

@description('HTTP 5xx: the fewest HTTP invocations in 5 minutes for the share to count (a few failures of a handful of calls are not an outage).')
@minValue(1)
param httpMinimumRequests int

@description('Refusal spike: refusals (4xx and queue rejections, all problem types) in 5 minutes above which the rule fires.')
@minValue(1)
param refusalsPer5Minutes int

@description('Queue: the oldest message\'s age at dequeue, in seconds, above which the rule fires.')
@minValue(1)
param queueMessageAgeSeconds int

@description('Key Vault: failed key refreshes in 15 minutes above which the rule fires.')
@minValue(0)
param keyVaultRefreshFailures int

@description('Key expiry: days before a current or staged key\'s exp below which the rule fires (one alert per receiver).')
@minValue(1)
param keyExpiryDays int

@description('Audit wait: the 95th percentile, in milliseconds, of a signature\'s wait for its audit record to be durable (the widgetsigning.audit.wait span) over 5 minutes, above which the rule fires.')
@minValue(1)
param auditWaitP95Milliseconds int

@description('Tags applied to every resource.')
param tags object

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

// The HTTP functions' invocations: SignQueue is a queue invocation with no HTTP status.
var httpServerErrorQuery = format(
  '''
requests
| where name in ("Sign", "Verify", "Keys")
| summarize total = sum(itemCount), serverErrors = sumif(itemCount, resultCode startswith "5")
| where total >= {0}
| extend serverErrorPercent = 100.0 * serverErrors / total
''',
  httpMinimumRequests
)

var refusalQuery = '''
customMetrics
| where name == "widgetsigning.refusals"
| summarize refusals = sum(valueSum)
'''

var queueMessageAgeQuery = '''
customMetrics
| where name == "widgetsigning.queue.message_age"
| summarize maxMessageAgeSeconds = max(valueMax)
'''

var poisonQuery = '''
customMetrics
| where name == "widgetsigning.queue.poison"
| summarize poisonMessages = sum(valueSum)
'''

var keyVaultRefreshFailureQuery = '''
customMetrics
| where name == "widgetsigning.keyvault.refreshes"
| where tostring(customDimensions["widgetsigning.outcome"]) == "failure"
| summarize failures = sum(valueSum)
'''

// A retiring key's exp coming near is expected (it only still verifies); the current and staged keys' is not.
var keyExpiryQuery = '''
customMetrics
| where name == "widgetsigning.key.seconds_to_expiry"
| where tostring(customDimensions["widgetsigning.key_state"]) != "retiring"
| summarize secondsToExpiry = min(value) by receiver = tostring(customDimensions["widgetsigning.receiver"])
'''

// From the wait's spans, not the widgetsigning.audit.wait.duration histogram: customMetrics keeps a histogram's sum,
// count, min and max but not its buckets, so no percentile can be read there. Spans are sampled; a percentile of a
// sample still estimates it, and at least 20 waits are needed for one to count.
var auditWaitQuery = '''
dependencies
| where name == "widgetsigning.audit.wait"
| summarize waits = sum(itemCount), auditWaitP95Milliseconds = percentile(duration, 95)
| where waits >= 20
'''

var rules = [
  {
    name: 'http-5xx'
    displayName: 'Widget signing: HTTP 5xx rate'
    description: 'More than ${httpServerErrorPercent} % of at least ${httpMinimumRequests} HTTP invocations in 5 minutes answered with a 5xx.'
    severity: 1
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    query: httpServerErrorQuery
    timeAggregation: 'Maximum'
    metricMeasureColumn: 'serverErrorPercent'
    operator: 'GreaterThan'
    threshold: httpServerErrorPercent
    dimensions: []
  }
  {
    name: 'refusal-spike'
    displayName: 'Widget signing: refusal spike'
    description: 'More than ${refusalsPer5Minutes} refusals in 5 minutes (the workbook splits them by problem type).'
    severity: 2
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    query: refusalQuery
    timeAggregation: 'Total'
    metricMeasureColumn: 'refusals'
    operator: 'GreaterThan'
    threshold: refusalsPer5Minutes
    dimensions: []
  }
  {
    name: 'queue-message-age'
    displayName: 'Widget signing: queue message age'
    description: 'A queue message waited more than ${queueMessageAgeSeconds} seconds before processing started.'
    severity: 2
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    query: queueMessageAgeQuery
    timeAggregation: 'Maximum'
    metricMeasureColumn: 'maxMessageAgeSeconds'
    operator: 'GreaterThan'
    threshold: queueMessageAgeSeconds
    dimensions: []
  }
  {
    name: 'poison-messages'
    displayName: 'Widget signing: poison messages'
    description: 'A queue message was moved to the poison queue in the last 15 minutes.'
    severity: 1
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    query: poisonQuery
    timeAggregation: 'Total'
    metricMeasureColumn: 'poisonMessages'
    operator: 'GreaterThan'
    threshold: 0
    dimensions: []
  }
  {
    name: 'keyvault-refresh-failures'
    displayName: 'Widget signing: Key Vault refresh failures'
    description: 'More than ${keyVaultRefreshFailures} key refreshes failed in 15 minutes; signing stops once the cached key is older than KeyVault:MaxCachedKeyAge.'
    severity: 1
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    query: keyVaultRefreshFailureQuery
    timeAggregation: 'Total'
    metricMeasureColumn: 'failures'
    operator: 'GreaterThan'
    threshold: keyVaultRefreshFailures
    dimensions: []
  }
  {
    name: 'audit-wait'
    displayName: 'Widget signing: audit wait p95'
    description: 'The 95th percentile of signatures\' wait for their audit record passed ${auditWaitP95Milliseconds} ms in 5 minutes: the audit store is slow, and every signature waits for it.'
    severity: 2
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    query: auditWaitQuery
    timeAggregation: 'Maximum'
    metricMeasureColumn: 'auditWaitP95Milliseconds'
    operator: 'GreaterThan'
    threshold: auditWaitP95Milliseconds
    dimensions: []
  }
  {
    name: 'key-expiry'
    displayName: 'Widget signing: key near its expiry'
    description: 'A receiver\'s current or staged key expires within ${keyExpiryDays} days; past its exp the receiver gets no signatures.'
    severity: 2
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    query: keyExpiryQuery
    timeAggregation: 'Minimum'
    metricMeasureColumn: 'secondsToExpiry'
    operator: 'LessThan'
    threshold: keyExpiryDays * 86400
    dimensions: [
      {
        name: 'receiver'
        operator: 'Include'
        values: [
          '*'
        ]
      }
    ]
  }
]

resource rule 'Microsoft.Insights/scheduledQueryRules@2026-03-01' = [
  for r in rules: {
    name: '${namePrefix}-${r.name}'
    location: location
    tags: tags
    kind: 'LogAlert'
    properties: {
      displayName: r.displayName
      description: r.description
      severity: r.severity
      enabled: true
      scopes: [
        appInsights.id
      ]
      evaluationFrequency: r.evaluationFrequency
      windowSize: r.windowSize
      criteria: {
        allOf: [
          {
            query: r.query
            timeAggregation: r.timeAggregation
            metricMeasureColumn: r.metricMeasureColumn
            operator: r.operator
            threshold: r.threshold
            dimensions: r.dimensions
            failingPeriods: {
              numberOfEvaluationPeriods: 1
              minFailingPeriodsToAlert: 1
            }
          }
        ]
      }
      // The alert resolves itself once the condition no longer holds.
      autoMitigate: true
      actions: {
        actionGroups: empty(actionGroupId) ? [] : [
          actionGroupId
        ]
      }
    }
  }
]

