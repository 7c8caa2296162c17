using System.Collections.Concurrent;
using System.Diagnostics.Tracing;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Watches the runtime's GC AllocationTick events (one per ~100 KB allocated on a heap) for large-object-heap
/// allocations. A marker allocation of a type nothing else uses proves the listener is live and flushes the
/// asynchronously delivered events, so a quiet monitor means "no LOH allocation", not "not listening".
/// </summary>
public sealed class LargeObjectHeapMonitor : EventListener
{
    private const int AllocationKindLarge = 1;
    private const string MarkerType = "System.Decimal[]";

    private readonly ConcurrentQueue<string> _largeTicks = new();
    private int _markersSeen;

    public IReadOnlyCollection<string> LargeAllocationTicks => _largeTicks;

    /// <summary>Allocates a marker on the LOH and waits until its tick arrives; then clears what was seen.</summary>
    public void Reset()
    {
        Flush();
        _largeTicks.Clear();
    }

    /// <summary>Waits until every event raised before this call has been delivered.</summary>
    public void Flush()
    {
        var target = Volatile.Read(ref _markersSeen) + 1;
        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (Volatile.Read(ref _markersSeen) < target)
        {
            // 200 KB of a distinctive type: always enough to raise its own large allocation tick.
            GC.KeepAlive(new decimal[200_000 / 16]);
            if (DateTime.UtcNow > deadline)
            {
                throw new Xunit.Sdk.XunitException("the GC event listener saw no allocation tick for its marker: it is not listening");
            }

            Thread.Sleep(50);
        }
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
        {
            // GC keyword (0x1) at Verbose level carries GCAllocationTick.
            EnableEvents(eventSource, EventLevel.Verbose, (EventKeywords)0x1);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventName?.StartsWith("GCAllocationTick", StringComparison.Ordinal) != true || eventData.Payload is null)
        {
            return;
        }

        var kind = Convert.ToInt32(eventData.Payload[eventData.PayloadNames!.IndexOf("AllocationKind")], System.Globalization.CultureInfo.InvariantCulture);
        if (kind != AllocationKindLarge)
        {
            return;
        }

        var typeIndex = eventData.PayloadNames.IndexOf("TypeName");
        var typeName = typeIndex >= 0 ? eventData.Payload[typeIndex] as string ?? "?" : "?";
        if (typeName == MarkerType)
        {
            Interlocked.Increment(ref _markersSeen);
            return;
        }

        _largeTicks.Enqueue(typeName);
    }
}
