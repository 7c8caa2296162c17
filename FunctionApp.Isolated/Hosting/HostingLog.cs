using Microsoft.Extensions.Logging;

namespace FunctionApp.Isolated.Hosting;

/// <summary>Source-generated log messages of the isolated worker's own server configuration (event ids 6000–6099).</summary>
internal static partial class HostingLog
{
    [LoggerMessage(EventId = 6001, Level = LogLevel.Information,
        Message = "Memory pool for {Owner}: {BlockBytes}-byte receive blocks, at most {MaxRetainedBlocks} kept for reuse")]
    public static partial void MemoryPoolCreated(ILogger logger, string owner, int blockBytes, int maxRetainedBlocks);
}
