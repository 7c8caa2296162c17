using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using Azure;
using Azure.Storage.Queues;
using Azure.Storage.Queues.Models;
using WidgetSigning.Queues;
using Microsoft.Azure.WebJobs.Host.Executors;
using Microsoft.Azure.WebJobs.Host.Listeners;
using Microsoft.Azure.WebJobs.Host.Scale;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// Polls one queue and runs the function for each message, with the official storage extension's semantics where it
/// has them: batches of <c>batchSize</c>, a new batch when the runs in flight drop to <c>newBatchThreshold</c>, polling
/// that backs off exponentially to <c>maxPollingInterval</c> while the queue is empty or failing, a message deleted only
/// after its run succeeded, visible again after <c>visibilityTimeout</c> when it failed, and moved with its text intact
/// to <c>&lt;queue&gt;-poison</c> after <c>maxDequeueCount</c> failed attempts. Beyond it: the lease is renewed while a
/// run is alive (<see cref="MessageLease"/>), a released message (<see cref="MessageReleasedException"/>) is handed
/// back without counting as a failure, and shutdown stops fetching, lets runs finish within <c>shutdownTimeout</c> and
/// releases the rest.
/// </summary>
internal sealed class WidgetQueueListener : IListener, IScaleMonitorProvider
{
    private static readonly TimeSpan MinimumPollingInterval = TimeSpan.FromMilliseconds(100);

    /// <summary>Failed receives in a run before the listener warns that the queue may be stuck (event 5110).</summary>
    internal const int StuckAfterFailures = 3;

    private readonly QueueClient _queue;
    private readonly QueueClient _poison;
    private readonly ReceiveFailureCounter _receiveFailures;
    private readonly ITriggeredFunctionExecutor _executor;
    private readonly WidgetQueueOptions _options;
    private readonly ILogger _logger;
    private readonly WidgetQueueScaleMonitor _scaleMonitor;
    private readonly CancellationTokenSource _stopFetching = new();
    private readonly CancellationTokenSource _cancelRuns = new();
    private readonly SemaphoreSlim _slotFreed = new(0);
    private readonly ConcurrentDictionary<string, Task> _inFlight = new(StringComparer.Ordinal);
    private Task? _loop;
    private int _inFlightCount;

    // The run of failed receives (touched by the poll loop only): a message Storage cannot return fails every receive
    // that would include it, once per visibility timeout, while the receives between find the batch invisible.
    private int _failedReceives;
    private long _firstFailure;
    private long _lastFailure;

    public WidgetQueueListener(
        QueueClient queue, QueueClient poison, ReceiveFailureCounter receiveFailures, ITriggeredFunctionExecutor executor, WidgetQueueOptions options, ILogger logger, string functionId, TimeProvider time)
    {
        _queue = queue;
        _poison = poison;
        _receiveFailures = receiveFailures;
        _executor = executor;
        _options = options;
        _logger = logger;
        _scaleMonitor = new WidgetQueueScaleMonitor(functionId, queue, time);
    }

    public IScaleMonitor GetMonitor() => _scaleMonitor;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _loop = Task.Run(() => PollAsync(_stopFetching.Token), CancellationToken.None);
        WidgetQueueTriggerLog.Started(_logger, _queue.Name, _options.BatchSize, _options.EffectiveNewBatchThreshold, _options.VisibilityTimeout, _options.MaxDequeueCount);
        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        // 1. Stop fetching; nothing new starts.
        await _stopFetching.CancelAsync().ConfigureAwait(false);
        if (_loop is not null)
        {
            await _loop.WaitAsync(cancellationToken).ConfigureAwait(false);
        }

        // 2. Let the runs in flight finish within the bound (or until the host stops waiting).
        var running = Task.WhenAll(_inFlight.Values);
        var released = 0;
        using (var grace = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
        {
            grace.CancelAfter(_options.ShutdownTimeout);
            try
            {
                await running.WaitAsync(grace.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // 3. The rest are cancelled; each run then releases its message (visible again at once, not a failure).
                released = _inFlight.Count;
                await _cancelRuns.CancelAsync().ConfigureAwait(false);
                try
                {
                    // Cancelled runs release their messages in moments; a run that ignores cancellation is left to its lease.
                    await running.WaitAsync(TimeSpan.FromSeconds(10), CancellationToken.None).ConfigureAwait(false);
                }
                catch (TimeoutException)
                {
                }
            }
        }

        WidgetQueueTriggerLog.Stopped(_logger, _queue.Name, released);
    }

    public void Cancel()
    {
        _stopFetching.Cancel();
        _cancelRuns.Cancel();
    }

    public void Dispose()
    {
        _stopFetching.Cancel();
        _cancelRuns.Cancel();
        _stopFetching.Dispose();
        _cancelRuns.Dispose();
        _slotFreed.Dispose();
    }

    private async Task PollAsync(CancellationToken stopping)
    {
        var delay = TimeSpan.Zero;
        while (!stopping.IsCancellationRequested)
        {
            try
            {
                while (Volatile.Read(ref _inFlightCount) > _options.EffectiveNewBatchThreshold)
                {
                    await _slotFreed.WaitAsync(stopping).ConfigureAwait(false);
                }

                QueueMessage[] received;
                var failedBefore = _receiveFailures.Failures;
                try
                {
                    received = (await _queue.ReceiveMessagesAsync(_options.BatchSize, _options.VisibilityTimeout, stopping).ConfigureAwait(false)).Value;
                }
                catch (RequestFailedException ex) when (ex.Status == (int)HttpStatusCode.NotFound)
                {
                    // No queue yet (a new deployment): create it, then poll as usual.
                    await _queue.CreateIfNotExistsAsync(cancellationToken: stopping).ConfigureAwait(false);
                    received = [];
                }

                if (_receiveFailures.Failures != failedBefore)
                {
                    // Storage failed an attempt and the client's retry then found the batch invisible: a failure all the same.
                    ReceiveFailed($"HTTP {_receiveFailures.LastStatus}, hidden by the client's retries");
                }
                else
                {
                    ReceiveSucceeded();
                }

                foreach (var message in received)
                {
                    Interlocked.Increment(ref _inFlightCount);
                    var key = message.MessageId + "|" + message.PopReceipt;
                    var run = ProcessAsync(message);
                    _inFlight[key] = run;

                    // Removed by a continuation registered after the add, so a run that ends at once is not left behind.
                    _ = run.ContinueWith(
                        static (_, state) => ((Action)state!)(), (Action)(() => _inFlight.TryRemove(key, out _)), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
                }

                if (received.Length > 0)
                {
                    delay = TimeSpan.Zero;
                    continue;
                }

                delay = NextDelay(delay);
                await Task.Delay(delay, stopping).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stopping.IsCancellationRequested)
            {
                return;
            }
#pragma warning disable CA1031 // The loop must survive any storage or network failure; it logs and backs off.
            catch (Exception ex)
#pragma warning restore CA1031
            {
                delay = NextDelay(delay);
                WidgetQueueTriggerLog.PollFailed(_logger, ex, _queue.Name, delay);
                ReceiveFailed(ex is RequestFailedException failed ? $"HTTP {failed.Status} {failed.ErrorCode}".TrimEnd() : ex.GetType().Name);
                try
                {
                    await Task.Delay(delay, stopping).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return;
                }
            }
        }
    }

    /// <summary>Counts a failed receive; the third of a run is reported once, naming the queue and the way out.</summary>
    private void ReceiveFailed(string reason)
    {
        var now = Stopwatch.GetTimestamp();
        if (_failedReceives == 0)
        {
            _firstFailure = now;
        }

        _failedReceives++;
        _lastFailure = now;
        if (_failedReceives == StuckAfterFailures)
        {
            WidgetQueueTriggerLog.ReceivesKeepFailing(_logger, _queue.Name, _failedReceives, Stopwatch.GetElapsedTime(_firstFailure, now), reason);
        }
    }

    /// <summary>
    /// Ends a run of failed receives once none has failed for longer than a failing batch stays invisible: a receive
    /// that succeeds in between may only have found that batch invisible.
    /// </summary>
    private void ReceiveSucceeded()
    {
        if (_failedReceives == 0)
        {
            return;
        }

        var quiet = Stopwatch.GetElapsedTime(_lastFailure);
        if (quiet <= (2 * _options.VisibilityTimeout) + _options.MaxPollingInterval)
        {
            return;
        }

        if (_failedReceives >= StuckAfterFailures)
        {
            WidgetQueueTriggerLog.ReceivesRecovered(_logger, _queue.Name, quiet, _failedReceives);
        }

        _failedReceives = 0;
    }

    /// <summary>The next wait of an idle or failing poll: doubling from 100 ms, at most <c>maxPollingInterval</c>.</summary>
    internal static TimeSpan NextDelay(TimeSpan current, TimeSpan maximum)
    {
        var next = current < MinimumPollingInterval ? MinimumPollingInterval : current * 2;
        return next > maximum ? maximum : next;
    }

    private TimeSpan NextDelay(TimeSpan current) => NextDelay(current, _options.MaxPollingInterval);

    private async Task ProcessAsync(QueueMessage message)
    {
        // Yield at once, so the poll loop can start the rest of the batch.
        await Task.Yield();
        try
        {
            await using var lease = new MessageLease(_queue, message.MessageId, message.PopReceipt, _options.VisibilityTimeout, _logger);
            using var run = CancellationTokenSource.CreateLinkedTokenSource(_cancelRuns.Token, lease.Lost);
            var text = message.Body.ToString();
            var input = QueueMessageDecoder.Decode(message.MessageId, message.DequeueCount, message.InsertedOn, text);
            var data = new TriggeredFunctionData
            {
                TriggerValue = input,
                TriggerDetails = new Dictionary<string, string>
                {
                    ["MessageId"] = message.MessageId,
                    ["DequeueCount"] = message.DequeueCount.ToString(CultureInfo.InvariantCulture),
                    ["InsertionTime"] = message.InsertedOn?.ToString("O", CultureInfo.InvariantCulture) ?? string.Empty,
                },
            };

            var result = await _executor.TryExecuteAsync(data, run.Token).ConfigureAwait(false);
            await lease.StopAsync().ConfigureAwait(false);
            await CompleteAsync(message, text, input, result, lease).ConfigureAwait(false);
        }
#pragma warning disable CA1031 // A message whose completion failed stays invisible until its lease ends, then comes back: nothing is lost.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            WidgetQueueTriggerLog.CompletionFailed(_logger, ex, _queue.Name, message.MessageId);
        }
        finally
        {
            Interlocked.Decrement(ref _inFlightCount);
            _slotFreed.Release();
        }
    }

    private async Task CompleteAsync(QueueMessage message, string text, SigningQueueMessage input, FunctionResult result, MessageLease lease)
    {
        if (lease.IsLost)
        {
            // Another receiver holds the message now; its run decides. Nothing to complete here.
            return;
        }

        if ((input.ReleasedFor ?? Released(result.Exception)?.RetryAfter) is { } retryAfter)
        {
            await SetVisibilityAsync(message, lease, retryAfter).ConfigureAwait(false);
            WidgetQueueTriggerLog.Released(_logger, _queue.Name, message.MessageId, retryAfter, "the run handed it back");
            return;
        }

        if (result.Succeeded)
        {
            await DeleteAsync(message, lease).ConfigureAwait(false);
            return;
        }

        if (_cancelRuns.IsCancellationRequested)
        {
            // Cut off by shutdown: not the message's fault.
            await SetVisibilityAsync(message, lease, TimeSpan.Zero).ConfigureAwait(false);
            WidgetQueueTriggerLog.ReleasedAtShutdown(_logger, _queue.Name, message.MessageId);
            return;
        }

        if (message.DequeueCount >= _options.MaxDequeueCount)
        {
            await MoveToPoisonAsync(message, text, lease).ConfigureAwait(false);
            return;
        }

        WidgetQueueTriggerLog.WillRetry(_logger, _queue.Name, message.MessageId, message.DequeueCount, _options.MaxDequeueCount, _options.VisibilityTimeout);
        await SetVisibilityAsync(message, lease, _options.VisibilityTimeout).ConfigureAwait(false);
    }

    private static MessageReleasedException? Released(Exception? exception)
    {
        for (var e = exception; e is not null; e = e.InnerException)
        {
            if (e is MessageReleasedException released)
            {
                return released;
            }
        }

        return null;
    }

    private async Task SetVisibilityAsync(QueueMessage message, MessageLease lease, TimeSpan visibility)
    {
        try
        {
            await _queue.UpdateMessageAsync(message.MessageId, lease.PopReceipt, visibilityTimeout: visibility).ConfigureAwait(false);
        }
        catch (RequestFailedException ex) when (MessageLease.IsLeaseLost(ex))
        {
            lease.MarkLost(ex.Status);
        }
    }

    private async Task DeleteAsync(QueueMessage message, MessageLease lease)
    {
        try
        {
            await _queue.DeleteMessageAsync(message.MessageId, lease.PopReceipt).ConfigureAwait(false);
        }
        catch (RequestFailedException ex) when (MessageLease.IsLeaseLost(ex))
        {
            // The lease ran out and another receiver took the message: it will be processed again (at least once).
            lease.MarkLost(ex.Status);
        }
    }

    private async Task MoveToPoisonAsync(QueueMessage message, string text, MessageLease lease)
    {
        // Copy first, delete second: a crash in between leaves a duplicate, never a loss. The text goes as received.
        await StorageWrites.SendAsync(_poison, text, CancellationToken.None).ConfigureAwait(false);
        await DeleteAsync(message, lease).ConfigureAwait(false);
        WidgetQueueTriggerLog.MovedToPoison(_logger, _queue.Name, message.MessageId, message.DequeueCount, _poison.Name);
    }
}
