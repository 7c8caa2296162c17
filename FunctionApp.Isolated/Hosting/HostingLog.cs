using Microsoft.Extensions.Logging;

namespace FunctionApp.Isolated.Hosting;

/// <summary>Source-generated log messages of the isolated worker's own server configuration (event ids 6000–6099).</summary>
internal static partial class HostingLog
{
    [LoggerMessage(EventId = 6001, Level = LogLevel.Information,
        Message = "Memory pool for {Owner}: {BlockBytes}-byte receive blocks, at most {MaxRetainedBlocks} kept for reuse")]
    public static partial void MemoryPoolCreated(ILogger logger, string owner, int blockBytes, int maxRetainedBlocks);

    [LoggerMessage(EventId = 6002, Level = LogLevel.Warning,
        Message = "Refused a {Method} request from {RemoteAddress} to the worker's HTTP endpoint: it did not come from the Functions host (no invocation id); answered 400")]
    public static partial void RequestWithoutInvocation(ILogger logger, string method, string remoteAddress);

    [LoggerMessage(EventId = 6003, Level = LogLevel.Warning,
        Message = "Refused a {Method} request from {RemoteAddress}: its invocation id matched no invocation (a client's own x-ms-invocation-id header); answered 400")]
    public static partial void RequestMatchedNoInvocation(ILogger logger, string method, string remoteAddress);
}
