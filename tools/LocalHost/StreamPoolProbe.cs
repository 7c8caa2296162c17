using System.Diagnostics;
using System.Text.Json;
using Microsoft.AspNetCore.Http;

namespace LocalHost;

/// <summary>
/// <c>GET /local/stream-pool</c> on the local host only: the app's one <c>RecyclableMemoryStreamManager</c>'s bytes in
/// use (small and large pools) and this process's memory, for the load script's "pool back at 0" and peak memory.
/// The manager's type is found by name: this host does not reference the app's packages.
/// </summary>
internal static class StreamPoolProbe
{
    public static Task WriteAsync(HttpContext context)
    {
        var managerType = Type.GetType("Microsoft.IO.RecyclableMemoryStreamManager, Microsoft.IO.RecyclableMemoryStream", throwOnError: false);
        var manager = managerType is null ? null : context.RequestServices.GetService(managerType);
        using var process = Process.GetCurrentProcess();
        var body = new Dictionary<string, object?>
        {
            ["smallPoolInUseBytes"] = managerType?.GetProperty("SmallPoolInUseSize")?.GetValue(manager),
            ["largePoolInUseBytes"] = managerType?.GetProperty("LargePoolInUseSize")?.GetValue(manager),
            ["workingSetBytes"] = process.WorkingSet64,
            ["peakWorkingSetBytes"] = process.PeakWorkingSet64,
        };
        context.Response.ContentType = "application/json";
        return context.Response.WriteAsync(JsonSerializer.Serialize(body));
    }
}
