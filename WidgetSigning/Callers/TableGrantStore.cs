using Azure;
using Azure.Data.Tables;
using Microsoft.Extensions.Logging;
using WidgetSigning.Primitives;

namespace WidgetSigning.Callers;

/// <summary>
/// Grants in an Azure table: one query per caller, of its own partition, reading only the row keys. The app's identity
/// only reads the table ("Storage Table Data Reader" on it alone).
/// </summary>
internal sealed class TableGrantStore : IGrantStore
{
    private readonly TableClient _table;
    private readonly ILogger<TableGrantStore> _logger;

    /// <summary>Creates the store over <paramref name="table"/>.</summary>
    public TableGrantStore(TableClient table, ILogger<TableGrantStore> logger)
    {
        ArgumentNullException.ThrowIfNull(table);
        _table = table;
        _logger = logger;
    }

    /// <inheritdoc />
    public async Task<IReadOnlySet<string>> GetReceiversAsync(string objectId, int max, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(objectId);
        var receivers = new HashSet<string>(StringComparer.Ordinal);
        using var span = Telemetry.WidgetSigningTelemetry.Source.StartActivity(Telemetry.WidgetSigningTelemetry.GrantsReadSpan);
        try
        {
            var filter = TableClient.CreateQueryFilter($"PartitionKey eq {objectId}");
            await foreach (var entity in _table.QueryAsync<TableEntity>(filter, maxPerPage: Math.Min(max, 1000), select: ["RowKey"], cancellationToken: cancellationToken).ConfigureAwait(false))
            {
                if (receivers.Count == max)
                {
                    CallersLog.TooManyGrants(_logger, objectId, max);
                    break;
                }

                receivers.Add(entity.RowKey);
            }
        }
        catch (RequestFailedException e)
        {
            span?.SetStatus(System.Diagnostics.ActivityStatusCode.Error, "grants unreadable");
            CallersLog.GrantsUnreadable(_logger, e, _table.Name, e.Status);
            throw Problems.GrantsUnavailable(e);
        }

        return receivers;
    }
}
