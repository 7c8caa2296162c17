using Microsoft.Azure.Functions.Worker.Grpc.Messages;

namespace WorkerHost;

/// <summary>Console output for the worker's RpcLog messages (Trace and Debug are skipped to keep the console readable).</summary>
internal static class WorkerLog
{
    public static void Write(RpcLog log)
    {
        if (log.Level is RpcLog.Types.Level.Trace or RpcLog.Types.Level.Debug or RpcLog.Types.Level.None)
        {
            return;
        }

        var exception = log.Exception is { } e ? $" ({e.Type}: {e.Message})" : "";
        Console.WriteLine($"[worker log] {log.Level} {log.Category}: {log.Message}{exception}");
    }
}
