using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// The shipped host.json sets no HTTP concurrency throttle. The host holds a throttle slot until its forward to the
/// worker ends, and over HTTP/1.1 that is when the client's body ends, however early the worker answered: any finite
/// <c>maxConcurrentRequests</c> lets that many slow uploads hold every slot (docs/security.md). Memory is bounded by the
/// app's own budget instead (<c>MemoryBudget:MaxBytesInFlight</c>), charged as body blocks arrive.
/// </summary>
public sealed class HostJsonTests
{
    [Fact]
    public void HostJson_HttpExtension_SetsNoConcurrencyThrottleSlowUploadsCouldHold()
    {
        // Arrange
        var http = (JObject)JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "host.json")))["extensions"]!["http"]!;

        // Act
        var throttles = http.Properties()
            .Select(p => p.Name)
            .Where(n => n is "maxConcurrentRequests" or "maxOutstandingRequests" or "dynamicThrottlesEnabled")
            .ToList();

        // Assert
        Assert.Empty(throttles);
        Assert.Equal("api", (string?)http["routePrefix"]);
    }
}
