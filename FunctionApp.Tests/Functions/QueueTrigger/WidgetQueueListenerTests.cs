using System.Collections.Concurrent;
using Azure.Core;
using FunctionApp.Functions.QueueTrigger;
using WidgetSigning.Storage;
using WidgetSigning.Keys;
using WidgetSigning.Queues;
using FunctionApp.Tests.TestKit;
using Microsoft.Azure.WebJobs.Host.Scale;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Functions.QueueTrigger;

/// <summary>What our trigger adds to the queue path, in the real WebJobs host on Azurite: lease renewal, release, graceful shutdown, options.</summary>
[Collection(AzuriteCollection.Name)]
public sealed class WidgetQueueListenerTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private readonly AzuriteFixture _azurite;
    private readonly ITestOutputHelper _output;

    public WidgetQueueListenerTests(AzuriteFixture azurite, ITestOutputHelper output)
    {
        _azurite = azurite;
        _output = output;
    }

    [Fact]
    public async Task Listener_RunLongerThanVisibilityTimeout_IsNotDeliveredTwiceWhileAlive()
    {
        // Arrange: visibility 4 s (a renewal that runs a second late on a loaded machine still holds the lease); the
        // first signing is held for 14 s (three and a half leases).
        var keys = new ScriptedKeySource(call => call == 1 ? Task.Delay(TimeSpan.FromSeconds(14)) : Task.CompletedTask);
        await using var host = await QueueFunctionHost.StartAsync(
            _azurite, _output, new Dictionary<string, string?> { ["visibilityTimeout"] = "00:00:04" }, services => services.AddSingleton<IReceiverKeySource>(keys));
        var vector = Vector.Load("one-widget");

        // Act
        var id = await host.EnqueueAsync(vector.Input);
        var outputs = await QueueFunctionHost.ReceiveAsync(host.Output, 1, Patience);
        outputs.AddRange(await QueueFunctionHost.ReceiveAsync(host.Output, 1, TimeSpan.FromSeconds(3)));

        // Assert: one run, one output, first delivery; the renewed lease kept every other receiver away.
        var output = Assert.Single(outputs);
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Equal(1, output.Value<int>("dequeueCount"));
        Assert.Equal(1, keys.Calls);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
    }

    [Fact]
    public async Task Listener_PopReceiptLostOnRenewal_RunStopsWithoutOutputAndTheMessageIsForwardedOnce()
    {
        // Arrange: the first renewal is held on the wire for 3 s, past the 2 s lease, as on a stalled network: the
        // message becomes visible, is received again (a new pop receipt) and signed; the late renewal then meets
        // Storage's "you no longer hold it". The first signing is held long enough to still be running then.
        var stalled = 0;
        var transport = new InterceptingTransport(message =>
        {
            var uri = message.Request.Uri;
            if (message.Request.Method == RequestMethod.Put && uri.Path.Contains("/messages/", StringComparison.Ordinal) &&
                Interlocked.Exchange(ref stalled, 1) == 0)
            {
                Thread.Sleep(TimeSpan.FromSeconds(3));
            }
        });
        var keys = new ScriptedKeySource(call => call == 1 ? Task.Delay(TimeSpan.FromSeconds(8)) : Task.CompletedTask);
        var logs = new CapturedLogs();
        await using var host = await QueueFunctionHost.StartAsync(
            _azurite,
            _output,
            new Dictionary<string, string?> { ["visibilityTimeout"] = "00:00:02", ["maxDequeueCount"] = "1" },
            services =>
            {
                services.AddSingleton<IReceiverKeySource>(keys);
                services.AddSingleton<ILoggerProvider>(logs);
                services.AddSingleton(provider => new WidgetStorageClientFactory(provider.GetRequiredService<Microsoft.Extensions.Configuration.IConfiguration>(), transport: transport));
            });
        var vector = Vector.Load("one-widget");

        // Act
        var id = await host.EnqueueAsync(vector.Input);
        var outputs = await QueueFunctionHost.ReceiveAsync(host.Output, 1, Patience);
        outputs.AddRange(await QueueFunctionHost.ReceiveAsync(host.Output, 1, TimeSpan.FromSeconds(8)));

        // Assert: the lost lease was logged as such, the first run forwarded nothing, the redelivery forwarded once;
        // not counted as a failure (maxDequeueCount 1 would have poisoned it).
        Assert.Equal(1, Volatile.Read(ref stalled));
        Assert.Contains(logs.Entries, e => e.EventId.Id == 5105);
        var output = Assert.Single(outputs);
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Equal(2, output.Value<int>("dequeueCount"));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
        Assert.DoesNotContain(logs.Entries, e => e.EventId.Id is 5011 or 5103 or 5104);
    }

    [Fact]
    public async Task Listener_MessageReleasedException_VisibleAgainAfterRetryAfterNotFailedNorPoisoned()
    {
        // Arrange: maxDequeueCount 1, so a single counted failure would poison it; the first two runs release it for
        // 1 s. Every visibility update the listener sends to Storage is seen on the wire (Azurite keeps the message
        // hidden for what it is told).
        var keys = new ScriptedKeySource(call => call <= 2 ? throw new MessageReleasedException("budget spent (test)", TimeSpan.FromSeconds(1)) : Task.CompletedTask);
        var logs = new CapturedLogs();
        var hidden = new ConcurrentQueue<string?>();
        var transport = new InterceptingTransport(message =>
        {
            var uri = message.Request.Uri.ToUri();
            if (message.Request.Method == RequestMethod.Put && uri.AbsolutePath.Contains("/messages/", StringComparison.Ordinal))
            {
                hidden.Enqueue(System.Web.HttpUtility.ParseQueryString(uri.Query)["visibilitytimeout"]);
            }
        });
        await using var host = await QueueFunctionHost.StartAsync(
            _azurite,
            _output,
            new Dictionary<string, string?> { ["maxDequeueCount"] = "1" },
            services =>
            {
                services.AddSingleton<IReceiverKeySource>(keys);
                services.AddSingleton<ILoggerProvider>(logs);
                services.AddSingleton(provider => new WidgetStorageClientFactory(provider.GetRequiredService<Microsoft.Extensions.Configuration.IConfiguration>(), transport: transport));
            });
        var vector = Vector.Load("one-widget");

        // Act
        var id = await host.EnqueueAsync(vector.Input);
        var output = Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Output, 1, Patience));

        // Assert: signed on the third delivery; each release hid the message for its RetryAfter (1 s), never for
        // nothing (visible at once) nor for the lease; nothing poisoned, no failure logged.
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Equal(3, output.Value<int>("dequeueCount"));
        Assert.Equal(["1", "1"], hidden);
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
        Assert.DoesNotContain(logs.Entries, e => e.EventId.Id is 5011 or 5103 or 5104);
        Assert.DoesNotContain(logs.Entries, e => e.Level >= LogLevel.Error);
    }

    [Fact]
    public async Task Listener_GracefulShutdown_InFlightRunFinishesWithinTheBound()
    {
        // Arrange: the run takes 1.5 s; shutdown allows 20 s.
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var keys = new ScriptedKeySource(_ =>
        {
            started.TrySetResult();
            return Task.Delay(TimeSpan.FromSeconds(1.5));
        });
        var host = await QueueFunctionHost.StartAsync(_azurite, _output, overrideServices: services => services.AddSingleton<IReceiverKeySource>(keys));
        await using (host)
        {
            var id = await host.EnqueueAsync(Vector.Load("one-widget").Input);
            await started.Task.WaitAsync(Patience);

            // Act
            await host.StopAsync(TimeSpan.FromSeconds(30));

            // Assert: the run completed during shutdown: its output sent, its message deleted.
            var output = Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Output, 1, TimeSpan.FromSeconds(5)));
            Assert.Equal(id, output.Value<string>("messageId"));
            Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Input));
        }
    }

    [Fact]
    public async Task Listener_GracefulShutdown_RunPastTheBoundIsReleasedVisibleNotFailed()
    {
        // Arrange: the run never ends by itself; shutdown allows 1 s, the host waits for the stop up to 30 s; one
        // attempt would poison a failure. The run notes whether the host had given up when the run was cancelled.
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var hostGivesUp = new CancellationTokenSource();
        bool? hostHadGivenUp = null;
        var keys = new ScriptedKeySource((_, cancel) =>
        {
            started.TrySetResult();
            cancel.Register(() => hostHadGivenUp = hostGivesUp.IsCancellationRequested);
            return Task.Delay(Timeout.Infinite, cancel);
        });
        var host = await QueueFunctionHost.StartAsync(
            _azurite,
            _output,
            new Dictionary<string, string?> { ["shutdownTimeout"] = "00:00:01", ["maxDequeueCount"] = "1", ["visibilityTimeout"] = "00:01:00" },
            services => services.AddSingleton<IReceiverKeySource>(keys));
        await using (host)
        {
            var id = await host.EnqueueAsync(Vector.Load("one-widget").Input);
            await started.Task.WaitAsync(Patience);

            // Act
            hostGivesUp.CancelAfter(TimeSpan.FromSeconds(30));
            await host.StopAsync(hostGivesUp.Token);

            // Assert: the run was cancelled at the bound, before the host gave up on the stop (an event order, not a
            // time), and the message is visible again at once (not after the 1-minute lease), unpoisoned.
            Assert.False(hostHadGivenUp ?? true, hostHadGivenUp is null ? "the run was never cancelled" : "the run was cancelled after the host gave up on the stop");
            var again = (await host.Input.ReceiveMessageAsync()).Value;
            Assert.NotNull(again);
            Assert.Equal(id, again.MessageId);
            Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
            Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Output));
        }
    }

    [Theory]
    [InlineData("batchSize", "0", "host.json extensions.queues.batchSize")]
    [InlineData("batchSize", "33", "host.json extensions.queues.batchSize")]
    [InlineData("maxDequeueCount", "0", "host.json extensions.queues.maxDequeueCount")]
    [InlineData("visibilityTimeout", "00:00:00", "host.json extensions.queues.visibilityTimeout")]
    [InlineData("newBatchThreshold", "-1", "host.json extensions.queues.newBatchThreshold")]
    [InlineData("shutdownTimeout", "00:06:00", "host.json extensions.queues.shutdownTimeout")]
    public async Task StartAsync_BadHostJsonQueuesKey_FailsNamingIt(string key, string value, string named)
    {
        // Act
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() =>
            QueueFunctionHost.StartAsync(_azurite, _output, new Dictionary<string, string?> { [key] = value }));

        // Assert
        Assert.Contains(named, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task StartAsync_ExtensionsJson_LoadsOurTriggerAndNoStorageExtension()
    {
        // Act
        var startups = AppBuildOutput.StartupTypes();
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output);

        // Assert: the trigger reached the host through extensions.json alone.
        Assert.Contains(typeof(WidgetQueueWebJobsStartup), startups);
        Assert.DoesNotContain(startups, t => t.Assembly.GetName().Name!.StartsWith("Microsoft.Azure.WebJobs.Extensions.Storage", StringComparison.Ordinal));
        Assert.NotNull(host.Services.GetService<IOptions<WidgetQueueOptions>>());
    }

    [Fact]
    public async Task ScaleMonitor_RegisteredByTheListener_ReportsTheQueueLength()
    {
        // Arrange: the host registers each listener's monitor (IScaleMonitorProvider) for runtime scale monitoring.
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var keys = new ScriptedKeySource(_ => gate.Task);
        await using var host = await QueueFunctionHost.StartAsync(
            _azurite, _output, new Dictionary<string, string?> { ["batchSize"] = "1", ["newBatchThreshold"] = "0" }, services => services.AddSingleton<IReceiverKeySource>(keys));
        for (var i = 0; i < 5; i++)
        {
            await host.EnqueueAsync(Vector.Load("one-widget").Input);
        }

        // Act
        var monitor = Assert.Single(host.Services.GetRequiredService<IScaleMonitorManager>().GetMonitors(), m => m is WidgetQueueScaleMonitor);
        var metrics = (WidgetQueueMetrics)await monitor.GetMetricsAsync();
        gate.SetResult();

        // Assert
        Assert.Contains(host.Input.Name, monitor.Descriptor.Id, StringComparison.Ordinal);
        Assert.Equal(5, metrics.QueueLength);
        Assert.True(metrics.QueueTime >= TimeSpan.Zero);
    }

    /// <summary>A key source whose every call first runs a scripted step (a delay, a throw), numbered from 1, given the run's cancellation.</summary>
    private sealed class ScriptedKeySource(Func<int, CancellationToken, Task> step) : IReceiverKeySource
    {
        private readonly SigningKey _key = new(ConfigurationReceiverKeySource.LocalKeyId, Vector.Key);
        private int _calls;

        public ScriptedKeySource(Func<int, Task> step)
            : this((call, _) => step(call))
        {
        }

        public int Calls => Volatile.Read(ref _calls);

        public ReceiverId? DefaultReceiver => SigningTestExtensions.DefaultReceiver;

        public async ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
        {
            await step(Interlocked.Increment(ref _calls), cancellationToken).WaitAsync(cancellationToken);
            return new SigningKeys(_key, []);
        }

        public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
            ValueTask.FromResult<IReadOnlyList<SigningKey>>([_key]);

        public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
            ValueTask.FromResult<IReadOnlyList<KeyDescription>>([new KeyDescription(_key.KeyId, KeyState.Current, null, null, null)]);

        public ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken) =>
            ValueTask.FromResult(new ReceiverPage([SigningTestExtensions.DefaultReceiver], null));
    }
}
