using System.Net;
using Azure;
using Azure.Storage.Queues;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>
/// Keeps one received message invisible while its run is alive: renews the visibility at half of
/// <c>visibilityTimeout</c> and tracks the pop receipt each renewal returns. A 404 (the message is gone) or a 400
/// PopReceiptMismatch (another receiver holds it) means the lease is lost: <see cref="Lost"/> is cancelled so the
/// run stops before it forwards anything, and the listener leaves the message alone.
/// </summary>
internal sealed class MessageLease : IAsyncDisposable
{
    private readonly QueueClient _queue;
    private readonly string _messageId;
    private readonly TimeSpan _visibility;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _lost = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _renewal;

    public MessageLease(QueueClient queue, string messageId, string popReceipt, TimeSpan visibility, ILogger logger)
    {
        _queue = queue;
        _messageId = messageId;
        PopReceipt = popReceipt;
        _visibility = visibility;
        _logger = logger;
        _renewal = Task.Run(RenewAsync);
    }

    /// <summary>The current pop receipt (changes with every renewal).</summary>
    public string PopReceipt { get; private set; }

    /// <summary>Cancelled when the lease is lost.</summary>
    public CancellationToken Lost => _lost.Token;

    /// <summary>Whether the lease was lost.</summary>
    public bool IsLost => _lost.IsCancellationRequested;

    /// <summary>Stops renewing (before the message is completed with <see cref="PopReceipt"/>).</summary>
    public async Task StopAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _renewal.ConfigureAwait(false);
    }

    /// <summary>Marks the lease lost (a completion call answered 404).</summary>
    public void MarkLost(int status)
    {
        if (!_lost.IsCancellationRequested)
        {
            WidgetQueueTriggerLog.LeaseLost(_logger, _queue.Name, _messageId, status);
            _lost.Cancel();
        }
    }

    /// <summary>
    /// Whether Storage answered that this receiver no longer holds the message: 404 (the message is gone) or 400
    /// PopReceiptMismatch (another receiver took it), as the official extension reads them.
    /// </summary>
    public static bool IsLeaseLost(RequestFailedException exception) =>
        exception.Status == (int)HttpStatusCode.NotFound ||
        (exception.Status == (int)HttpStatusCode.BadRequest && exception.ErrorCode == "PopReceiptMismatch");

    public async ValueTask DisposeAsync()
    {
        await StopAsync().ConfigureAwait(false);
        _stop.Dispose();
        _lost.Dispose();
    }

    private async Task RenewAsync()
    {
        var interval = _visibility / 2;
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                await Task.Delay(interval, _stop.Token).ConfigureAwait(false);
                // Not cancelled by StopAsync: a renewal cut off mid-call could leave a pop receipt we never learn.
                var receipt = await _queue.UpdateMessageAsync(_messageId, PopReceipt, visibilityTimeout: _visibility, cancellationToken: CancellationToken.None).ConfigureAwait(false);
                PopReceipt = receipt.Value.PopReceipt;
            }
            catch (OperationCanceledException) when (_stop.IsCancellationRequested)
            {
                return;
            }
            catch (RequestFailedException ex) when (IsLeaseLost(ex))
            {
                MarkLost(ex.Status);
                return;
            }
#pragma warning disable CA1031 // A failed renewal is tried again at the next tick; the lease still has half its time.
            catch (Exception ex) when (ex is RequestFailedException or HttpRequestException or TimeoutException or IOException)
#pragma warning restore CA1031
            {
                WidgetQueueTriggerLog.CompletionFailed(_logger, ex, _queue.Name, _messageId);
            }
        }
    }
}
