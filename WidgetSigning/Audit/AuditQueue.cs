namespace WidgetSigning.Audit;

/// <summary>
/// The records waiting for a write, and the writers waiting for records. Group commit that follows the load: a writer
/// takes everything waiting the moment it is free, so a record that arrives while every writer has a write in flight
/// joins the next group, and a record that finds a writer idle wakes exactly that one writer, at once. Nothing waits on
/// a clock, and a record that arrives while all writers are busy wakes nobody.
/// </summary>
internal sealed class AuditQueue
{
    private readonly object _lock = new();
    private readonly Queue<AuditPending> _records = new();
    private readonly Stack<Slot> _idle = new();
    private bool _completed;

    /// <summary>A writer's place in the queue: its wake-up while it is idle.</summary>
    public sealed class Slot
    {
        internal TaskCompletionSource<bool>? Wake { get; set; }
    }

    /// <summary>Queues <paramref name="record"/>, waking one idle writer if there is one; false once the queue is completed.</summary>
    public bool TryAdd(AuditPending record)
    {
        TaskCompletionSource<bool>? wake = null;
        lock (_lock)
        {
            if (_completed)
            {
                return false;
            }

            _records.Enqueue(record);
            if (_idle.TryPop(out var slot))
            {
                (wake, slot.Wake) = (slot.Wake, null);
            }
        }

        wake?.TrySetResult(true);
        return true;
    }

    /// <summary>
    /// Moves what is waiting (up to <paramref name="max"/>, skipping records their callers gave up) into
    /// <paramref name="batch"/>. When nothing is waiting, returns the writer's wake-up instead: true when records may
    /// have arrived, false when the queue is completed and empty. Null when <paramref name="batch"/> got records.
    /// </summary>
    public Task<bool>? TakeOrWait(Slot slot, List<AuditPending> batch, int max)
    {
        ArgumentNullException.ThrowIfNull(slot);
        ArgumentNullException.ThrowIfNull(batch);
        lock (_lock)
        {
            while (batch.Count < max && _records.TryDequeue(out var record))
            {
                // A record its caller gave up on (answered 503) is dropped here, never written afterwards.
                if (record.TryTake())
                {
                    batch.Add(record);
                }
            }

            if (batch.Count > 0)
            {
                return null;
            }

            if (_completed)
            {
                return Task.FromResult(false);
            }

            if (slot.Wake is null)
            {
                // Completed without a hop: the request that wakes the writer runs the write's start (its lines, its seal,
                // the call up to the socket) in the writer's own context, while it would be waiting anyway; one thread
                // fewer to wake per idle write.
                slot.Wake = new TaskCompletionSource<bool>();
                _idle.Push(slot);
            }

            return slot.Wake.Task;
        }
    }

    /// <summary>
    /// No record is added after this; idle writers wake to find the queue empty and stop. False when the queue was
    /// already completed.
    /// </summary>
    public bool Complete()
    {
        List<TaskCompletionSource<bool>> wakes = [];
        lock (_lock)
        {
            if (_completed)
            {
                return false;
            }

            _completed = true;
            while (_idle.TryPop(out var slot))
            {
                if (slot.Wake is { } wake)
                {
                    wakes.Add(wake);
                    slot.Wake = null;
                }
            }
        }

        foreach (var wake in wakes)
        {
            wake.TrySetResult(false);
        }

        return true;
    }
}
