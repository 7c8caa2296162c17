using System.Text;

namespace FunctionApp.Tests.TestKit;

/// <summary>What came back to a <see cref="RawHttpClient"/>: a whole response, or the connection's end without one (closed, reset, timed out).</summary>
public sealed record RawHttpOutcome(RawHttpResponse? Response, string? Failure, TimeSpan Elapsed)
{
    public override string ToString() => Response is { } r
        ? $"{r.Status} after {Elapsed.TotalMilliseconds:0} ms: {Encoding.UTF8.GetString(r.Body)}"
        : $"no response ({Failure}) after {Elapsed.TotalMilliseconds:0} ms";
}
