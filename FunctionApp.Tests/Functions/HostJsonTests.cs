using FunctionApp.Tests.Infrastructure;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Functions;

/// <summary>The shipped host.json bounds HTTP concurrency, so a burst queues briefly or gets 429 instead of exhausting memory.</summary>
public sealed class HostJsonTests
{
    [Fact]
    public void HostJson_HttpExtension_BoundsConcurrencyForATwoCoreInstance()
    {
        // Arrange
        var http = (JObject)JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "host.json")))["extensions"]!["http"]!;

        // Act
        var concurrent = (int?)http["maxConcurrentRequests"];
        var outstanding = (int?)http["maxOutstandingRequests"];

        // Assert: 8 executing (4 per core; worst case 8 x ~150 MB of a hostile 16 MiB body fits a 1.5 GB Y1 instance), 64 in all.
        Assert.Equal(8, concurrent);
        Assert.Equal(64, outstanding);
        Assert.True(outstanding > concurrent);
    }
}
