using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>
/// Every receiver's keys for one signature, all or nothing: an unknown or unavailable receiver fails the whole request,
/// so nothing is signed for the others either. Synchronous while every receiver is cached (the common case); otherwise
/// the lookups still pending run together.
/// </summary>
internal static class ReceiverKeyLookup
{
    public static ValueTask<ReceiverKeys[]> GetAsync(IReceiverKeySource source, IReadOnlyList<ReceiverId> receivers, CancellationToken cancellationToken)
    {
        var keys = new ReceiverKeys[receivers.Count];
        for (var i = 0; i < receivers.Count; i++)
        {
            var pending = source.GetSigningKeysAsync(receivers[i], cancellationToken);
            if (!pending.IsCompletedSuccessfully)
            {
                return WaitAsync(source, receivers, keys, i, pending, cancellationToken);
            }

            keys[i] = new ReceiverKeys(receivers[i], pending.Result);
        }

        return ValueTask.FromResult(keys);
    }

    private static async ValueTask<ReceiverKeys[]> WaitAsync(
        IReceiverKeySource source, IReadOnlyList<ReceiverId> receivers, ReceiverKeys[] keys, int from, ValueTask<SigningKeys> first, CancellationToken cancellationToken)
    {
        var pending = new Task<SigningKeys>[receivers.Count - from];
        pending[0] = first.AsTask();
        for (var i = from + 1; i < receivers.Count; i++)
        {
            pending[i - from] = source.GetSigningKeysAsync(receivers[i], cancellationToken).AsTask();
        }

        try
        {
            await Task.WhenAll(pending).ConfigureAwait(false);
        }
        catch
        {
            // The first receiver (in the order asked) that failed names the problem, whichever finished first.
            foreach (var task in pending)
            {
                if (task.IsFaulted)
                {
                    System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(task.Exception!.InnerException!).Throw();
                }
            }

            throw;
        }

        for (var i = from; i < receivers.Count; i++)
        {
            keys[i] = new ReceiverKeys(receivers[i], pending[i - from].Result);
        }

        return keys;
    }
}
