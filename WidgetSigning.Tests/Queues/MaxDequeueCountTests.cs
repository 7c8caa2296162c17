using Newtonsoft.Json.Linq;
using WidgetSigning.Queues;

namespace WidgetSigning.Tests.Queues;

/// <summary>The poison count's setting agrees with the attempts the host makes (host.json, which the worker cannot read).</summary>
public sealed class MaxDequeueCountTests
{
    [Theory]
    [InlineData("host.json")]
    [InlineData("FunctionApp.Isolated/host.json")]
    public void MaxDequeueCount_Default_EqualsHostJson(string hostJson)
    {
        // Arrange
        var host = JObject.Parse(File.ReadAllText(Path.Combine(RepoFiles.Root, hostJson)));

        // Act
        var attempts = (int?)host["extensions"]?["queues"]?["maxDequeueCount"];

        // Assert
        Assert.Equal(new QueueOptions().MaxDequeueCount, attempts);
    }
}
