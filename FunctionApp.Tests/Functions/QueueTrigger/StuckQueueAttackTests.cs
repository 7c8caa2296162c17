using Azure.Core;
using Azure.Core.Pipeline;
using Azure.Storage.Queues;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using WidgetSigning.Storage;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Functions.QueueTrigger;

/// <summary>
/// A message whose text holds a character XML 1.0 does not allow (a raw ESC, 0x1B) in the Put Message XML: Azurite
/// stores it and then fails every receive that would return it (a 500, the batch left invisible, so the client's retry
/// finds nothing), and the listener's batch never arrives. The in-process app's own listener must say so, naming the queue (docs/queue.md#a-stuck-queue).
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed class StuckQueueAttackTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task Listener_MessageWithRawEscStorageCannotReturn_WarnsOnceNamingTheQueueAndTheDocs()
    {
        // Arrange: the listener on a 2 s visibility, its storage clients on a transport that counts the receives
        // Storage fails (each attempt, retries included); a message whose text carries a raw ESC, written by a client
        // whose transport swaps a placeholder byte for 0x1B after the SDK built (and signed) the request: the same length.
        var logs = new CapturedLogs();
        var failedReceives = new FailedReceiveCounter();
        await using var host = await QueueFunctionHost.StartAsync(
            azurite,
            output,
            new Dictionary<string, string?> { ["visibilityTimeout"] = "00:00:02" },
            services => services.AddSingleton<ILoggerProvider>(logs),
            storage: configuration => new WidgetStorageClientFactory(configuration, transport: failedReceives));
        failedReceives.Queue = host.Input.Name;
        var raw = new QueueClient(azurite.ConnectionString, host.Input.Name, new QueueClientOptions
        {
            MessageEncoding = QueueMessageEncoding.None,
            Transport = new InterceptingTransport(EscapeInBody),
        });

        // Act: wait for the warning, then for two more failed receives (the batch is visible again, and fails again,
        // once per visibility timeout): the loop is sequential, so the first of them has been counted by the listener.
        await raw.SendMessageAsync("stuck`message");
        var warned = await WaitAsync(() => logs.Entries.Any(IsStuckWarning), Patience);
        var failuresAtWarning = failedReceives.Count;
        var failedAgain = await WaitAsync(() => failedReceives.Count >= failuresAtWarning + 2, Patience);
        output.WriteLine(string.Join('\n', logs.Entries.Where(e => e.Level >= LogLevel.Information).Select(e => $"{e.Level} {e.EventId.Id}: {e.Message}")));

        // Assert: a Warning naming the queue and pointing at the documented recovery, once for the run of failures.
        Assert.True(warned, "no warning that receives keep failing");
        Assert.True(failedAgain, $"receives stopped failing after the warning ({failedReceives.Count} failed in all): nothing shows the warning is not repeated");
        var warning = Assert.Single(logs.Entries, IsStuckWarning);
        Assert.Equal(LogLevel.Warning, warning.Level);
        Assert.Contains(host.Input.Name, warning.Message, StringComparison.Ordinal);
        Assert.Contains("docs/queue.md#a-stuck-queue", warning.Message, StringComparison.Ordinal);
    }

    private static bool IsStuckWarning(CapturedLog entry) => entry.EventId.Id == 5110;

    /// <summary>Replaces each backtick in a Put Message body with a raw ESC.</summary>
    private static void EscapeInBody(HttpMessage message)
    {
        if (message.Request.Method != RequestMethod.Post || message.Request.Content is not { } content)
        {
            return;
        }

        using var buffer = new MemoryStream();
        content.WriteTo(buffer, CancellationToken.None);
        var bytes = buffer.ToArray();
        for (var i = 0; i < bytes.Length; i++)
        {
            if (bytes[i] == (byte)'`')
            {
                bytes[i] = 0x1B;
            }
        }

        message.Request.Content = RequestContent.Create(bytes);
    }

    private static async Task<bool> WaitAsync(Func<bool> condition, TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        while (!condition())
        {
            try
            {
                await Task.Delay(200, cancel.Token);
            }
            catch (OperationCanceledException)
            {
                return condition();
            }
        }

        return true;
    }

    /// <summary>The real transport, counting the receives from <see cref="Queue"/> that Storage answered with a 5xx.</summary>
    private sealed class FailedReceiveCounter : HttpPipelineTransport
    {
        private readonly HttpClientTransport _inner = new();
        private int _count;

        public string Queue { get; set; } = "(not yet)";

        public int Count => Volatile.Read(ref _count);

        public override Request CreateRequest() => _inner.CreateRequest();

        public override void Process(HttpMessage message)
        {
            _inner.Process(message);
            Observe(message);
        }

        public override async ValueTask ProcessAsync(HttpMessage message)
        {
            await _inner.ProcessAsync(message);
            Observe(message);
        }

        private void Observe(HttpMessage message)
        {
            if (message.Request.Method == RequestMethod.Get && message.HasResponse && message.Response.Status >= 500 &&
                message.Request.Uri.Path.EndsWith($"/{Queue}/messages", StringComparison.Ordinal))
            {
                Interlocked.Increment(ref _count);
            }
        }
    }
}
