using System.Globalization;
using System.Threading.RateLimiting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;

namespace HostTools;

/// <summary>
/// The Functions host's own HTTP limits, as both local hosts (tools/LocalHost, tools/WorkerHost) apply them: one source
/// file, linked into each.
/// </summary>
internal static class HostHttpLimits
{
    /// <summary>The host's body limit when <c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c> is not set: 100 MB.</summary>
    public const long DefaultMaxRequestBodyBytes = 100L * 1024 * 1024;

    /// <summary>
    /// The host's body limit: the setting <c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>, or 100 MB. Both local hosts give it to
    /// Kestrel as <c>MaxRequestBodySize</c>, as the host does per request (HttpRequestBodySizeMiddleware): Kestrel counts a
    /// chunked body's size lines and chunk extensions against it with the data, so the deployed value sits 1/128 above the
    /// app's envelope limit (docs/api.md, "Chunked bodies and the host's limit").
    /// </summary>
    public static long MaxRequestBodyBytes(string? setting) =>
        long.TryParse(setting, NumberStyles.None, CultureInfo.InvariantCulture, out var limit) ? limit : DefaultMaxRequestBodyBytes;

    /// <summary>
    /// The host's HTTP throttle (HttpRequestQueue in azure-functions-host src/WebJobs.Script.WebHost): at most
    /// maxConcurrentRequests run, maxOutstandingRequests wait or run, the rest get 429; none at all when
    /// maxConcurrentRequests is not positive. <paramref name="limits"/> reads host.json's two values for a request.
    /// </summary>
    public static IServiceCollection AddHostThrottle(this IServiceCollection services, Func<HttpContext, (int MaxConcurrent, int MaxOutstanding)> limits) =>
        services.AddRateLimiter(limiter =>
        {
            limiter.RejectionStatusCode = StatusCodes.Status429TooManyRequests;
            limiter.GlobalLimiter = PartitionedRateLimiter.Create<HttpContext, string>(context =>
            {
                var (maxConcurrent, maxOutstanding) = limits(context);
                return maxConcurrent <= 0
                    ? RateLimitPartition.GetNoLimiter("host")
                    : RateLimitPartition.GetConcurrencyLimiter("host", _ => new ConcurrencyLimiterOptions
                    {
                        PermitLimit = maxConcurrent,
                        QueueLimit = Math.Max(0, maxOutstanding - maxConcurrent),
                        QueueProcessingOrder = QueueProcessingOrder.OldestFirst,
                    });
            });
        });
}
