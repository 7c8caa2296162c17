using System.Diagnostics.Tracing;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// Counts large-object-heap allocations in this process from the runtime's <c>GCAllocationTick</c> events
/// (keyword GC, level Verbose, <c>AllocationKind</c> 1 = large). The runtime raises one tick per ~100 KB
/// allocated of a kind, carrying the amount allocated since the previous tick, so the sum of the large
/// ticks is the LOH bytes allocated, short by less than 100 KB; no tick at all means less than 100 KB went
/// to the LOH over the whole measured run.
/// </summary>
public sealed class LargeObjectHeapListener : EventListener
{
    private const string RuntimeSource = "Microsoft-Windows-DotNETRuntime";
    private const EventKeywords GcKeyword = (EventKeywords)0x1;
    private const int AllocationTickEventId = 10;
    private const uint LargeKind = 1;

    private long _ticks;
    private long _bytes;
    private long _fromTicks = long.MaxValue;
    private long _toTicks = long.MaxValue;
    private long _allocatedAtStart;
    private EventSource? _runtime;

    /// <summary>Large-object ticks seen while recording.</summary>
    public long Ticks => Interlocked.Read(ref _ticks);

    /// <summary>LOH bytes reported by those ticks.</summary>
    public long Bytes => Interlocked.Read(ref _bytes);

    /// <summary>All bytes the process allocated between <see cref="Start"/> and <see cref="Stop"/> (every heap).</summary>
    public long AllocatedBytes { get; private set; }

    /// <summary>Subscribes to the runtime's GC events and starts counting (from zero) those raised from now on.</summary>
    public void Start()
    {
        // Subscribed only while measuring: every delivered event allocates (its arguments, its payload), and
        // those allocations would otherwise show up in the memory diagnoser's process-wide figures.
        var runtime = _runtime ?? throw new InvalidOperationException("The runtime's event source is not available.");
        EnableEvents(runtime, EventLevel.Verbose, GcKeyword);
        Interlocked.Exchange(ref _toTicks, long.MaxValue);
        Interlocked.Exchange(ref _ticks, 0);
        Interlocked.Exchange(ref _bytes, 0);
        _allocatedAtStart = GC.GetTotalAllocatedBytes(precise: true);
        Interlocked.Exchange(ref _fromTicks, DateTime.UtcNow.Ticks);
    }

    /// <summary>Stops counting at this moment, then waits for the events raised until now to be delivered.</summary>
    public void Stop()
    {
        Interlocked.Exchange(ref _toTicks, DateTime.UtcNow.Ticks);
        AllocatedBytes = GC.GetTotalAllocatedBytes(precise: true) - _allocatedAtStart;

        // Runtime events reach EventListeners late, through an EventPipe session polled by a dispatcher
        // thread; events are counted by the time they were raised, so waiting loses none and adds none.
        Thread.Sleep(TimeSpan.FromMilliseconds(300));
        if (_runtime is not null)
        {
            DisableEvents(_runtime);
        }
    }

    /// <inheritdoc />
    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        ArgumentNullException.ThrowIfNull(eventSource);
        if (eventSource.Name == RuntimeSource)
        {
            _runtime = eventSource;
        }
    }

    /// <inheritdoc />
    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        ArgumentNullException.ThrowIfNull(eventData);
        if (eventData.EventId != AllocationTickEventId || eventData.Payload is null || eventData.PayloadNames is null)
        {
            return;
        }

        var raised = eventData.TimeStamp.ToUniversalTime().Ticks;
        if (raised < Interlocked.Read(ref _fromTicks) || raised > Interlocked.Read(ref _toTicks))
        {
            return;
        }

        var kind = eventData.PayloadNames.IndexOf("AllocationKind");
        if (kind < 0 || Convert.ToUInt32(eventData.Payload[kind], System.Globalization.CultureInfo.InvariantCulture) != LargeKind)
        {
            return;
        }

        var amount = eventData.PayloadNames.IndexOf("AllocationAmount64");
        var bytes = amount >= 0
            ? Convert.ToInt64(eventData.Payload[amount], System.Globalization.CultureInfo.InvariantCulture)
            : Convert.ToInt64(eventData.Payload[eventData.PayloadNames.IndexOf("AllocationAmount")], System.Globalization.CultureInfo.InvariantCulture);
        Interlocked.Increment(ref _ticks);
        Interlocked.Add(ref _bytes, bytes);
    }
}
