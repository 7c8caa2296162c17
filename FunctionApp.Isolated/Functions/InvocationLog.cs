using Microsoft.Extensions.Logging;

namespace FunctionApp.Isolated.Functions;

/// <summary>Source-generated log messages of the worker's function invocations (event ids 6000–6099, with HostingLog's).</summary>
internal static partial class InvocationLog
{
    [LoggerMessage(EventId = 6004, Level = LogLevel.Warning,
        Message = "{Function} invocation {InvocationId}: its HTTP request never reached the worker (the client left, or the host could not forward it), and the wait for it {Outcome}; nothing ran")]
    public static partial void RequestNeverForwarded(ILogger logger, string function, string invocationId, string outcome);
}
