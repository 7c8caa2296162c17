using WidgetSigning.Primitives;

namespace WidgetSigning.Signing;

/// <summary>
/// What one request or message holds of the <see cref="EnvelopeMemoryBudget"/>: it only grows (a body's bytes stay
/// charged while its canonical form is written, which usually needs as much), and it is all released on disposal.
/// Used by one flow at a time; disposal may come from anywhere, once or more.
/// </summary>
internal sealed class EnvelopeBudgetLease : IDisposable
{
    private readonly EnvelopeMemoryBudget _budget;
    private long _charged;

    internal EnvelopeBudgetLease(EnvelopeMemoryBudget budget) => _budget = budget;

    /// <summary>Bytes charged to the budget by this lease.</summary>
    public long Charged => Volatile.Read(ref _charged);

    /// <summary>Charges up to <paramref name="bytes"/> in total, at once or not at all.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MemoryBudget"/>: the budget has no room.</exception>
    public void Cover(long bytes)
    {
        if (bytes > _charged && !TryCover(bytes))
        {
            throw _budget.Exceeded(bytes - _charged);
        }
    }

    /// <summary>Charges up to <paramref name="bytes"/> in total if the budget has room now; false (and nothing charged) if not.</summary>
    internal bool TryCoverNow(long bytes) => bytes <= _charged || TryCover(bytes);

    /// <summary>
    /// Gives back what is charged above <paramref name="bytes"/> (a body returned to the pool while its canonical form,
    /// written beside it, stays). The one exception to only growing, for the flow that holds the lease.
    /// </summary>
    internal void ShrinkTo(long bytes)
    {
        var charged = _charged;
        if (bytes < charged && Interlocked.CompareExchange(ref _charged, bytes, charged) == charged)
        {
            _budget.Release(charged - bytes);
        }
    }

    /// <summary>Charges up to <paramref name="bytes"/> in total, waiting up to the budget's <c>MaxWait</c> for room.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MemoryBudget"/>: still no room after the wait.</exception>
    public ValueTask CoverAsync(long bytes, CancellationToken cancellationToken) =>
        bytes <= _charged || TryCover(bytes) ? ValueTask.CompletedTask : WaitAsync(bytes, cancellationToken);

    /// <inheritdoc />
    public void Dispose()
    {
        var charged = Interlocked.Exchange(ref _charged, 0);
        if (charged > 0)
        {
            _budget.Release(charged);
        }
    }

    private bool TryCover(long bytes)
    {
        var charged = _charged;
        if (!_budget.TryCharge(bytes - charged))
        {
            return false;
        }

        _charged = bytes;
        return true;
    }

    private async ValueTask WaitAsync(long bytes, CancellationToken cancellationToken)
    {
        var time = _budget.Time;
        var start = time.GetTimestamp();
        while (time.GetElapsedTime(start) < _budget.MaxWait)
        {
            await Task.Delay(EnvelopeMemoryBudget.Poll, time, cancellationToken).ConfigureAwait(false);
            if (TryCover(bytes))
            {
                return;
            }
        }

        throw _budget.Exceeded(bytes - _charged);
    }
}
