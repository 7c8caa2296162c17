using System.Net;
using System.Net.Http.Headers;
using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// What tools/WorkerHost prints while the isolated app starts, as <c>npm start</c> shows it: the one address to use is
/// the host's, printed last by the ready line; the worker's internal listening address is not shown; the worker's memory
/// pool line (event 6001) appears once.
/// </summary>
public sealed partial class WorkerHostStartupOutputTests(IsolatedHostFixture fixture) : IClassFixture<IsolatedHostFixture>
{
    private const string PoolLine = "Memory pool for kestrel: 65536-byte receive blocks";

    [Fact]
    public async Task Start_Output_NamesOnlyTheHostsAddressAndTheReadyLineLast()
    {
        // Arrange: what was printed up to the ready line, after a request has been through the worker (so its start-up
        // logs, which reach the host over the worker channel, are in).
        await SignOneWidgetAsync();
        var lines = fixture.Host.Output.Split('\n', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        var ready = Array.FindIndex(lines, l => l.StartsWith("WorkerHost ready: ", StringComparison.Ordinal));

        // Act
        var addresses = lines.SelectMany(l => Url().Matches(l).Select(m => m.Groups["authority"].Value)).Distinct(StringComparer.Ordinal).ToList();

        // Assert
        Assert.True(ready >= 0, fixture.Host.Output);
        Assert.DoesNotContain("Now listening on", fixture.Host.Output, StringComparison.Ordinal);
        Assert.Equal([fixture.Host.BaseAddress.Authority], addresses);
        Assert.StartsWith($"WorkerHost ready: {fixture.Host.BaseAddress.GetLeftPart(UriPartial.Authority)}/api/", lines[ready], StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_Output_LogsTheMemoryPoolLineOnce()
    {
        // Arrange: the line reaches the host's output through the worker channel, not always at once.
        var deadline = System.Diagnostics.Stopwatch.StartNew();
        while (!fixture.Host.Output.Contains(PoolLine, StringComparison.Ordinal) && deadline.Elapsed < TimeSpan.FromSeconds(15))
        {
            await Task.Delay(50);
        }

        // Act: a request through the worker's Kestrel, after every pool it uses was created and logged.
        await SignOneWidgetAsync();

        // Assert
        Assert.Equal(1, Regex.Count(fixture.Host.Output, Regex.Escape(PoolLine)));
    }

    private async Task SignOneWidgetAsync()
    {
        using var body = new ByteArrayContent(await File.ReadAllBytesAsync(RepoFiles.File("FunctionApp.Tests", "TestData", "vectors", "one-widget", "input.json")));
        body.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        using var response = await fixture.Client.PostAsync(new Uri("/api/sign", UriKind.Relative), body);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [GeneratedRegex(@"https?://(?<authority>[^/\s]+)")]
    private static partial Regex Url();
}
