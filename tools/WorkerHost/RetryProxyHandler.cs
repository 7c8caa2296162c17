namespace WorkerHost;

/// <summary>
/// The host's retry around forwarding to the worker (azure-functions-host@89dc438d,
/// src/WebJobs.Script.Grpc/Server/RetryProxyHandler.cs): up to 10 attempts on <see cref="HttpRequestException"/>,
/// 50 ms doubling to at most 250 ms between them; anything else is not retried. Written here because the host's type
/// is internal to its assembly. A request whose content was already sent cannot be sent again: that second attempt
/// throws <see cref="InvalidOperationException"/>, which ends the retries, as in the host.
/// </summary>
internal sealed class RetryProxyHandler(HttpMessageHandler inner) : DelegatingHandler(inner)
{
    private const int MaxRetries = 10;
    private const int InitialDelayMs = 50;
    private const int MaximumDelayMs = 250;

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        var delay = InitialDelayMs;
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            }
            catch (HttpRequestException e) when (attempt < MaxRetries)
            {
                Console.WriteLine($"WorkerHost: warn: forwarding to the worker failed ({e.Message}); retrying in {delay} ms, attempt {attempt} of {MaxRetries}.");
                await Task.Delay(delay, cancellationToken).ConfigureAwait(false);
                delay = Math.Min(delay * 2, MaximumDelayMs);
            }
        }
    }
}
