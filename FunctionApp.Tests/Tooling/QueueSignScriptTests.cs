using System.Diagnostics;
using System.Globalization;
using System.Text;
using Azure.Storage.Queues;
using FunctionApp.Tests.Infra;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Tooling;

/// <summary>
/// scripts/queue-sign.mjs (the README's queue block) finds Azurite where <c>npm start</c> put it (AZURITE_QUEUE_PORT),
/// and says in one line what to run when nothing listens there. Real Azurite, with a stand-in for the app's queue
/// trigger (this test's own consumer) so the script's side is what is checked.
/// </summary>
public sealed class QueueSignScriptTests(NpmStartAzuriteFixture azurite) : IClassFixture<NpmStartAzuriteFixture>
{
    private static readonly string OneWidget = RepoFiles.File("FunctionApp.Tests", "TestData", "vectors", "one-widget", "input.json");

    [Fact]
    public async Task QueueSign_AzuriteQueuePortSet_UsesAzuriteOnThatPort()
    {
        // Arrange: Azurite on a port other than 10001; the script is told only the port, as npm start's user is.
        var canonical = Path.GetTempFileName();
        var queues = new QueueServiceClient(azurite.ConnectionString);
        var input = queues.GetQueueClient("widget-envelopes");
        var output = queues.GetQueueClient("widget-signatures");
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var consumer = AnswerOneEnvelopeAsync(input, output, stop.Token);

        try
        {
            // Act
            var run = await RunAsync(new() { ["AZURITE_QUEUE_PORT"] = azurite.QueueServiceUri.Port.ToString(CultureInfo.InvariantCulture) }, OneWidget, canonical, "20");

            // Assert: the stand-in's answer came back through Azurite on that port.
            Assert.True(run.ExitCode == 0, run.Error);
            Assert.Equal("0123abcd", run.Output.Trim());
            Assert.Equal("canonical bytes", await File.ReadAllTextAsync(canonical));
            Assert.Contains($"127.0.0.1:{azurite.QueueServiceUri.Port}", run.Error, StringComparison.Ordinal);
            Assert.True(consumer.IsCompletedSuccessfully);
        }
        finally
        {
            await stop.CancelAsync();
            File.Delete(canonical);
        }
    }

    [Theory]
    [InlineData("AZURITE_QUEUE_PORT")]
    [InlineData("WidgetStorage")]
    public async Task QueueSign_NothingListensAtTheQueueEndpoint_FailsInOneLineNamingTheAddressAndNpmStart(string variable)
    {
        // Arrange: a port nobody listens on, named either way.
        var port = Loopback.FreePort();
        var value = variable == "WidgetStorage"
            ? $"DefaultEndpointsProtocol=http;AccountName={AzuriteFixture.AccountName};AccountKey={AzuriteFixture.AccountKey};QueueEndpoint=http://127.0.0.1:{port}/{AzuriteFixture.AccountName};"
            : port.ToString(CultureInfo.InvariantCulture);

        // Act
        var run = await RunAsync(new() { [variable] = value }, OneWidget, Path.Combine(Path.GetTempPath(), "never-written.json"), "20");

        // Assert: one line, no SDK stack trace, what was tried and what to run.
        Assert.Equal(1, run.ExitCode);
        var lines = run.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(lines.Length == 1, run.Error);
        Assert.Contains($"127.0.0.1:{port}", lines[0], StringComparison.Ordinal);
        Assert.Contains("'npm start'", lines[0], StringComparison.Ordinal);
        Assert.Contains(variable, lines[0], StringComparison.Ordinal);
        Assert.DoesNotContain("RestError", run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task QueueSign_AzuriteQueuePortNotAPort_ExitsTwoNamingIt()
    {
        // Act
        var run = await RunAsync(new() { ["AZURITE_QUEUE_PORT"] = "10001x" }, OneWidget, Path.Combine(Path.GetTempPath(), "never-written.json"));

        // Assert
        Assert.Equal(2, run.ExitCode);
        Assert.Equal("[queue-sign] AZURITE_QUEUE_PORT must be a port number (1-65535), not '10001x'.", run.Error.Trim());
    }

    private static async Task AnswerOneEnvelopeAsync(QueueClient input, QueueClient output, CancellationToken cancellationToken)
    {
        await input.CreateIfNotExistsAsync(cancellationToken: cancellationToken);
        await output.CreateIfNotExistsAsync(cancellationToken: cancellationToken);
        while (true)
        {
            var received = (await input.ReceiveMessagesAsync(1, cancellationToken: cancellationToken)).Value;
            if (received.Length == 0)
            {
                await Task.Delay(100, cancellationToken);
                continue;
            }

            var message = received[0];
            var answer = new JObject
            {
                ["messageId"] = message.MessageId,
                ["signature"] = "0123abcd",
                ["canonicalBase64"] = Convert.ToBase64String(Encoding.UTF8.GetBytes("canonical bytes")),
                ["widgetCount"] = 1,
                ["keyId"] = "local",
            };
            await output.SendMessageAsync(Convert.ToBase64String(Encoding.UTF8.GetBytes(answer.ToString())), cancellationToken);
            await input.DeleteMessageAsync(message.MessageId, message.PopReceipt, cancellationToken);
            return;
        }
    }

    private static async Task<ExternalTool> RunAsync(Dictionary<string, string> environment, params string[] arguments)
    {
        var start = new ProcessStartInfo("node")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = RepoRoot.Path,
        };
        start.ArgumentList.Add(RepoFiles.File("scripts", "queue-sign.mjs"));
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var name in new[] { "AZURITE_QUEUE_PORT", "WidgetStorage", "WidgetInputQueue", "WidgetOutputQueue" })
        {
            start.Environment.Remove(name);
        }

        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        return await ExternalTool.RunAsync(start, "node scripts/queue-sign.mjs");
    }
}
