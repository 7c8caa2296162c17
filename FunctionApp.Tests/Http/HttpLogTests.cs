using FunctionApp.Tests.TestKit;
using WidgetSigning.Http;

namespace FunctionApp.Tests.Http;

/// <summary>A refusal's log line names the path that caused it, or none: never a literal "(null)".</summary>
public sealed class HttpLogTests
{
    [Fact]
    public void Rejected_NoJsonPath_NamesTheRefusalWithoutAPath()
    {
        // Arrange
        using var logs = new CapturedLogs();

        // Act
        HttpLog.Rejected(logs.CreateLogger("t"), "Sign", 401, "urn:widget-signing:problem:unauthenticated", jsonPath: null);

        // Assert
        var entry = Assert.Single(logs.Entries);
        Assert.Equal("Sign rejected a request with 401 (urn:widget-signing:problem:unauthenticated)", entry.Message);
        Assert.Equal(4004, entry.EventId.Id);
    }

    [Fact]
    public void Rejected_AtAJsonPath_NamesThePath()
    {
        // Arrange
        using var logs = new CapturedLogs();

        // Act
        HttpLog.Rejected(logs.CreateLogger("t"), "Sign", 400, "urn:widget-signing:problem:invalid-envelope", "$.widgets[0].id");

        // Assert
        var entry = Assert.Single(logs.Entries);
        Assert.Equal("Sign rejected a request with 400 (urn:widget-signing:problem:invalid-envelope) at $.widgets[0].id", entry.Message);
        Assert.Equal(4001, entry.EventId.Id);
    }
}
