using Azure.Core;
using Azure.Core.Pipeline;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// Counts the receives of a queue client that Storage answered with a 5xx, each attempt the client's retry policy made
/// included. A message Storage cannot return (its text not valid XML 1.0) fails the receive that would include it and
/// leaves that batch invisible, so the client's next attempt finds nothing and succeeds: the listener would never see a
/// failure, only an empty queue. This sees every attempt (a per-retry policy).
/// </summary>
internal sealed class ReceiveFailureCounter : HttpPipelineSynchronousPolicy
{
    private int _failures;
    private int _lastStatus;

    /// <summary>Receives answered with a 5xx so far.</summary>
    public int Failures => Volatile.Read(ref _failures);

    /// <summary>The status of the last such answer.</summary>
    public int LastStatus => Volatile.Read(ref _lastStatus);

    /// <inheritdoc />
    public override void OnReceivedResponse(HttpMessage message)
    {
        ArgumentNullException.ThrowIfNull(message);
        var request = message.Request;
        if (request.Method == RequestMethod.Get && message.HasResponse && message.Response.Status >= 500 &&
            request.Uri.Path.EndsWith("/messages", StringComparison.Ordinal) &&
            !request.Uri.Query.Contains("peekonly", StringComparison.OrdinalIgnoreCase))
        {
            Volatile.Write(ref _lastStatus, message.Response.Status);
            Interlocked.Increment(ref _failures);
        }
    }
}
