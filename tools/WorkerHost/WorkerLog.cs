using Microsoft.Azure.Functions.Worker.Grpc.Messages;

namespace WorkerHost;

/// <summary>
/// Console output for the worker's RpcLog messages. Trace and Debug are skipped to keep the console readable, and so is
/// the worker's own ASP.NET Core lifetime at Information ("Now listening on: http://localhost:&lt;port&gt;", "Press Ctrl+C",
/// its content root): that server takes requests from this host only, and the address to use is the ready line's.
/// </summary>
internal static class WorkerLog
{
    private const string LifetimeCategory = "Microsoft.Hosting.Lifetime";

    public static void Write(RpcLog log)
    {
        if (log.Level is RpcLog.Types.Level.Trace or RpcLog.Types.Level.Debug or RpcLog.Types.Level.None
            || (log.Level is RpcLog.Types.Level.Information && log.Category == LifetimeCategory))
        {
            return;
        }

        var exception = log.Exception is { } e ? $" ({e.Type}: {e.Message})" : "";
        Console.WriteLine($"[worker log] {log.Level} {log.Category}: {log.Message}{exception}");
    }
}
