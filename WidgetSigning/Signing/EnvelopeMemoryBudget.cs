using Microsoft.Extensions.Logging;
using WidgetSigning.Primitives;

namespace WidgetSigning.Signing;

/// <summary>
/// The one process-wide count of envelope bytes in flight (<see cref="MemoryBudgetOptions"/>), shared by HTTP and queue.
/// Charged and released by <see cref="EnvelopeBudgetLease"/>: an interlocked add per pooled block, no lock.
/// </summary>
internal sealed class EnvelopeMemoryBudget
{
    /// <summary>How long a client or message is told to wait before trying again.</summary>
    public static readonly TimeSpan RetryAfter = TimeSpan.FromSeconds(1);

    // Waiting is polled: a request over the budget is rare and bounded by MaxWait, so no wake-up list is worth its cost.
    private static readonly TimeSpan PollInterval = TimeSpan.FromMilliseconds(20);

    private readonly ILogger? _logger;
    private long _inUse;

    /// <summary>Creates a budget of <paramref name="capacity"/> bytes.</summary>
    public EnvelopeMemoryBudget(long capacity, TimeSpan maxWait, ILogger? logger = null, TimeProvider? time = null)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(capacity);
        Capacity = capacity;
        MaxWait = maxWait;
        Time = time ?? TimeProvider.System;
        _logger = logger;
    }

    /// <summary>The budget in bytes.</summary>
    public long Capacity { get; }

    /// <summary>How long an asynchronous charge waits for room.</summary>
    public TimeSpan MaxWait { get; }

    /// <summary>Bytes charged now.</summary>
    public long InUse => Volatile.Read(ref _inUse);

    internal TimeProvider Time { get; }

    /// <summary>The default budget for a process that may use <paramref name="availableBytes"/> of memory.</summary>
    public static long DefaultFor(long availableBytes) =>
        Math.Max(MemoryBudgetOptions.MinBytesInFlight, availableBytes / MemoryBudgetOptions.DefaultMemoryDivisor);

    /// <summary>Starts a lease: the bytes one request or message holds, released together when it is disposed.</summary>
    public EnvelopeBudgetLease Lease() => new(this);

    internal bool TryCharge(long bytes)
    {
        var now = Interlocked.Add(ref _inUse, bytes);
        if (now <= Capacity)
        {
            return true;
        }

        Interlocked.Add(ref _inUse, -bytes);
        return false;
    }

    internal void Release(long bytes) => Interlocked.Add(ref _inUse, -bytes);

    internal static TimeSpan Poll => PollInterval;

    internal ProblemException Exceeded(long requested)
    {
        if (_logger is not null)
        {
            SigningLog.BudgetSpent(_logger, requested, InUse, Capacity, MemoryBudgetOptions.MaxBytesInFlightSetting);
        }

        return Problems.MemoryBudget($"The instance is at its memory budget for envelopes in flight ({Capacity} bytes, setting {MemoryBudgetOptions.MaxBytesInFlightSetting}); try again shortly.", RetryAfter);
    }
}
