namespace WidgetSigning.Http;

/// <summary>Tells a failed response write caused by the client leaving from a server fault.</summary>
internal static class ResponseWrite
{
    /// <summary>
    /// True for a cancellation once the request was aborted, and for any I/O failure of the response body (which only the
    /// connection to the client can cause).
    /// </summary>
    public static bool IsClientGone(Exception exception, CancellationToken requestAborted) =>
        (exception is OperationCanceledException && requestAborted.IsCancellationRequested) || exception is IOException;
}
