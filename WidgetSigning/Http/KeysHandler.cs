using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging;
using WidgetSigning.Audit;
using WidgetSigning.Callers;
using WidgetSigning.Keys;
using WidgetSigning.Telemetry;
using WidgetSigning.Primitives;

namespace WidgetSigning.Http;

/// <summary>
/// <c>GET /api/keys</c>, whatever the host: the key ids and states a receiver may meet (never key material), for the
/// receivers granted to the caller (every receiver with <see cref="AppRoles.KeysReadAll"/>). Each host's function is a
/// one-line adapter.
/// </summary>
public sealed class KeysHandler
{
    /// <summary>The function's name in either host.</summary>
    public const string FunctionName = "Keys";

    /// <summary>The query parameter giving the page size of the receiver list.</summary>
    public const string PageSizeParameter = "pageSize";

    /// <summary>The query parameter giving where the receiver list's page starts.</summary>
    public const string PageTokenParameter = "pageToken";

    /// <summary>The most receivers on one page (each may cost a Key Vault read on an instance that has not cached it).</summary>
    public const int MaxPageSize = 25;

    /// <summary>The longest page token accepted.</summary>
    public const int MaxPageTokenLength = 1024;

    private const string AuditOperation = "keys";

    private readonly IReceiverKeySource _keys;
    private readonly HttpOperation _operation;
    private readonly HttpEndpoint _endpoint;

    /// <summary>Creates the handler (a singleton in DI).</summary>
    internal KeysHandler(IReceiverKeySource keys, HttpOperation operation, ILogger<KeysHandler> logger)
    {
        _keys = keys;
        _operation = operation;
        _endpoint = new HttpEndpoint(FunctionName, AuditOperation, AppRoles.KeysRead, WidgetSigningTelemetry.KeysSpan, logger);
    }

    /// <summary>Lists the keys; a vault outage is a problem result, never an exception.</summary>
    public Task<IActionResult> HandleAsync(HttpRequest request) => _operation.RunAsync(request, _endpoint, ListAsync);

    private async Task<IActionResult> ListAsync(HttpCall call)
    {
        var request = call.Request;
        var visible = await call.VisibleReceiversAsync().ConfigureAwait(false);
        if (request.Query.TryGetValue(QueryParameters.ReceiverParameter, out var named) && named.Count > 0)
        {
            // One receiver: its keys, or its problem (403 not granted, 404 unknown, 503 unavailable) as the answer.
            // The grant first, as sign checks it: a receiver not granted looks the same whether it exists or not.
            var receiver = QueryParameters.Receiver(request, new ReceiverOptions { DefaultReceiver = null, MaxPerRequest = 1 });
            call.Receivers = [receiver];
            if (visible is not null && !visible.Contains(receiver.Value))
            {
                throw Problems.ReceiverNotGranted(receiver.Value);
            }

            var keys = await _keys.DescribeKeysAsync(receiver, call.Aborted).ConfigureAwait(false);
            call.Record = Record(receiver.Value);
            return new KeyListResult(receiver, keys);
        }

        var pageSize = ReadPageSize(request);
        var token = ReadPageToken(request);
        var page = visible is null ? await AllReceiversAsync(token, pageSize, call.Aborted).ConfigureAwait(false) : GrantedPage(visible, token, pageSize);
        var entries = new List<ReceiverKeyList.Entry>(page.Receivers.Count);
        foreach (var listed in page.Receivers)
        {
            entries.Add(Describe(listed));
        }

        call.Record = Record(string.Empty);
        return new ReceiverKeyList(entries, page.NextPageToken);
    }

    private async ValueTask<ReceiverPage> AllReceiversAsync(string? token, int pageSize, CancellationToken cancellationToken)
    {
        try
        {
            return await _keys.ListReceiversAsync(token, pageSize, cancellationToken).ConfigureAwait(false);
        }
        catch (ArgumentException)
        {
            throw InvalidPageToken();
        }
    }

    // The caller's own receivers, in ordinal order, from its grants (already read, no Key Vault call). The page token is
    // the first receiver of the next page, so it must be one of them.
    private static ReceiverPage GrantedPage(IReadOnlySet<string> granted, string? token, int pageSize)
    {
        var ordered = granted.Where(r => ReceiverId.TryParse(r, out _)).Order(StringComparer.Ordinal).ToList();
        var start = 0;
        if (token is not null)
        {
            start = ordered.BinarySearch(token, StringComparer.Ordinal);
            if (start < 0)
            {
                throw InvalidPageToken();
            }
        }

        var end = Math.Min(ordered.Count, start + pageSize);
        var receivers = ordered.GetRange(start, end - start).Select(ReceiverId.Parse).ToList();
        return new ReceiverPage(receivers, end < ordered.Count ? ordered[end] : null);
    }

    private static ProblemException InvalidPageToken() =>
        Problems.InvalidRequest($"Query parameter '{PageTokenParameter}' is not a page token this service handed out.");

    private static AuditRecord Record(string receivers) => new() { Operation = AuditOperation, Outcome = AuditOutcome.KeysRead, Receivers = receivers };

    // Only what this instance holds already: a page lists many receivers, and loading each would spend Key Vault calls
    // and lookup tokens meant for signing (and keep them cached). ?receiver= loads one.
    private ReceiverKeyList.Entry Describe(ReceiverId receiver) => new(receiver, _keys.DescribeLoadedKeys(receiver));

    private static int ReadPageSize(HttpRequest request)
    {
        if (!request.Query.TryGetValue(PageSizeParameter, out var values))
        {
            return MaxPageSize;
        }

        return values.Count == 1 && values[0] is { Length: > 0 and <= 2 } text &&
            int.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var size) && size is >= 1 and <= MaxPageSize
            ? size
            : throw Problems.InvalidRequest($"Query parameter '{PageSizeParameter}' must be given once, as a whole number from 1 to {MaxPageSize}.");
    }

    private static string? ReadPageToken(HttpRequest request)
    {
        if (!request.Query.TryGetValue(PageTokenParameter, out var values))
        {
            return null;
        }

        return values.Count == 1 && values[0] is { Length: > 0 and <= MaxPageTokenLength } token
            ? token
            : throw Problems.InvalidRequest($"Query parameter '{PageTokenParameter}' must be given once, at most {MaxPageTokenLength} characters.");
    }
}
