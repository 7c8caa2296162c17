using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Text;
using FunctionApp.Queues;
using Microsoft.Azure.WebJobs.Host.Executors;
using Microsoft.Azure.WebJobs.Host.Listeners;
using Microsoft.Extensions.Logging;
using Microsoft.WindowsAzure.Storage;
using Microsoft.WindowsAzure.Storage.Queue;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// Polls one queue and runs the function for each message, with the Functions queue extension's semantics:
/// batches of <c>batchSize</c>, a new batch when in-flight messages drop to <c>newBatchThreshold</c>, polling that
/// backs off to <c>maxPollingInterval</c> while the queue is empty, a message deleted only after its function
/// succeeded, made visible again after <c>visibilityTimeout</c> when it failed, and moved to <c>&lt;queue&gt;-poison</c>
/// once it has failed <c>maxDequeueCount</c> times. Nothing is deleted that was not either processed or copied
/// to the poison queue first.
/// </summary>
internal sealed class SigningQueueListener : IListener
{
    private static readonly TimeSpan MinimumPollingInterval = TimeSpan.FromMilliseconds(100);

    private readonly string _queueName;
    private readonly QueueStorage _storage;
    private readonly ITriggeredFunctionExecutor _executor;
    private readonly SigningQueueTriggerOptions _options;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stopping = new();
    private readonly SemaphoreSlim _slotFreed = new(0);
    private readonly ConcurrentDictionary<Task, bool> _inFlight = new();
    private CloudQueue? _queue;
    private CloudQueue? _poison;
    private bool _poisonCreated;
    private Task? _loop;
    private int _inFlightCount;

    public SigningQueueListener(string queueName, QueueStorage storage, ITriggeredFunctionExecutor executor, SigningQueueTriggerOptions options, ILogger logger)
    {
        _queueName = queueName;
        _storage = storage;
        _executor = executor;
        _options = options;
        _logger = logger;
    }

    private string PoisonQueueName => _queueName + "-poison";

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        // The SDK must hand over the message text untouched: decoding is done here, so a bad message is rejected
        // with a reason instead of failing inside the SDK.
        _queue = _storage.Queue(_queueName);
        _queue.EncodeMessage = false;
        _poison = _storage.Queue(PoisonQueueName);
        _poison.EncodeMessage = false;
        await _queue.CreateIfNotExistsAsync(null, null, cancellationToken).ConfigureAwait(false);
        _loop = Task.Run(() => PollAsync(_stopping.Token), CancellationToken.None);
        QueueTriggerLog.ListenerStarted(_logger, _queueName, _options.BatchSize, _options.EffectiveNewBatchThreshold, _options.MaxDequeueCount, _options.MessageEncoding);
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        if (_loop is not null)
        {
            await _loop.WaitAsync(cancellationToken).ConfigureAwait(false);
        }

        // Let running functions finish (or observe the cancellation) before the host goes away.
        await Task.WhenAll(_inFlight.Keys).WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    public void Cancel() => _stopping.Cancel();

    public void Dispose()
    {
        _stopping.Cancel();
        _stopping.Dispose();
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

                var received = await _queue!.GetMessagesAsync(_options.BatchSize, _options.MessageLease, null, null, stopping).ConfigureAwait(false);
                var any = false;
                foreach (var message in received)
                {
                    any = true;
                    Interlocked.Increment(ref _inFlightCount);
                    var task = ProcessAsync(message, stopping);
                    _inFlight.TryAdd(task, true);
                    _ = task.ContinueWith(static (done, state) => ((ConcurrentDictionary<Task, bool>)state!).TryRemove(done, out _), _inFlight, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
                }

                if (any)
                {
                    delay = TimeSpan.Zero;
                    continue;
                }

                delay = NextDelay(delay);
                await Task.Delay(delay, stopping).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stopping.IsCancellationRequested)
            {
                break;
            }
#pragma warning disable CA1031 // The loop must survive any storage or network failure; it logs and backs off.
            catch (Exception ex)
#pragma warning restore CA1031
            {
                QueueTriggerLog.PollFailed(_logger, ex, _queueName);
                delay = NextDelay(delay);
                try
                {
                    await Task.Delay(delay, stopping).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    break;
                }
            }
        }
    }

    private TimeSpan NextDelay(TimeSpan current)
    {
        var next = current < MinimumPollingInterval ? MinimumPollingInterval : current * 2;
        return next > _options.MaxPollingInterval ? _options.MaxPollingInterval : next;
    }

    private async Task ProcessAsync(CloudQueueMessage message, CancellationToken stopping)
    {
        // Yield at once, so the poll loop can start the rest of the batch.
        await Task.Yield();
        try
        {
            if (message.DequeueCount > _options.MaxDequeueCount)
            {
                // Already handed out more often than allowed (a crash mid-run, for example): never run it again.
                await MoveToPoisonAsync(message).ConfigureAwait(false);
                return;
            }

            var input = Decode(message);
            var data = new TriggeredFunctionData
            {
                TriggerValue = input,
                TriggerDetails = new Dictionary<string, string>
                {
                    ["MessageId"] = message.Id,
                    ["DequeueCount"] = message.DequeueCount.ToString(CultureInfo.InvariantCulture),
                    ["InsertionTime"] = message.InsertionTime?.ToString("O", CultureInfo.InvariantCulture) ?? string.Empty,
                },
            };

            var result = await _executor.TryExecuteAsync(data, stopping).ConfigureAwait(false);
            if (result.Succeeded)
            {
                await DeleteAsync(message).ConfigureAwait(false);
            }
            else if (message.DequeueCount >= _options.MaxDequeueCount)
            {
                await MoveToPoisonAsync(message).ConfigureAwait(false);
            }
            else
            {
                QueueTriggerLog.WillRetry(_logger, _queueName, message.Id, message.DequeueCount, _options.MaxDequeueCount, _options.VisibilityTimeout);
                await _queue!.UpdateMessageAsync(message, _options.VisibilityTimeout, MessageUpdateFields.Visibility, null, null, CancellationToken.None)
                    .ConfigureAwait(false);
            }
        }
#pragma warning disable CA1031 // A message whose handling failed stays invisible until its lease ends, then comes back: nothing is lost.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            QueueTriggerLog.HandlingFailed(_logger, ex, _queueName, message.Id, _options.MessageLease);
        }
        finally
        {
            Interlocked.Decrement(ref _inFlightCount);
            _slotFreed.Release();
        }
    }

    private SigningQueueMessage Decode(CloudQueueMessage message)
    {
        var text = message.AsString ?? string.Empty;
        if (_options.MessageEncoding == QueueMessageEncoding.None)
        {
            return new SigningQueueMessage(message.Id, message.DequeueCount, message.InsertionTime, Encoding.UTF8.GetBytes(text));
        }

        // A queue message is at most 64 KiB, so this buffer stays below the large-object threshold.
        var buffer = new byte[((text.Length + 3) / 4) * 3];
        if (Convert.TryFromBase64String(text, buffer, out var written))
        {
            return new SigningQueueMessage(message.Id, message.DequeueCount, message.InsertionTime, buffer.AsMemory(0, written));
        }

        QueueTriggerLog.DecodeFailed(_logger, _queueName, message.Id);
        return new SigningQueueMessage(
            message.Id,
            message.DequeueCount,
            message.InsertionTime,
            "The message text is not valid base64. host.json extensions.queues.messageEncoding is 'base64': producers must send base64 of the UTF-8 JSON.",
            Encoding.UTF8.GetBytes(text));
    }

    private async Task DeleteAsync(CloudQueueMessage message)
    {
        try
        {
            await _queue!.DeleteMessageAsync(message.Id, message.PopReceipt, null, null, CancellationToken.None).ConfigureAwait(false);
        }
        catch (StorageException ex) when (ex.RequestInformation?.HttpStatusCode == (int)HttpStatusCode.NotFound)
        {
            // The lease ran out and another instance took the message: it will be processed again (at least once).
            QueueTriggerLog.LeaseLost(_logger, _queueName, message.Id);
        }
    }

    private async Task MoveToPoisonAsync(CloudQueueMessage message)
    {
        if (!_poisonCreated)
        {
            await _poison!.CreateIfNotExistsAsync(null, null, CancellationToken.None).ConfigureAwait(false);
            _poisonCreated = true;
        }

        // Copy first, delete second: a crash in between leaves a duplicate, never a loss.
        await _poison!.AddMessageAsync(new CloudQueueMessage(message.AsString ?? string.Empty), null, null, null, null, CancellationToken.None)
            .ConfigureAwait(false);
        await DeleteAsync(message).ConfigureAwait(false);
        QueueTriggerLog.MovedToPoison(_logger, _queueName, message.Id, message.DequeueCount, PoisonQueueName);
    }
}
