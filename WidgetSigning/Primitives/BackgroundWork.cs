using System.Diagnostics;

namespace WidgetSigning.Primitives;

/// <summary>
/// Starts work that outlives the call that happens to start it (the audit writers, the scaling probe, key refreshes,
/// timers) with none of that call's ambient state: no current span, so its spans are roots of their own traces and its
/// logs link to no caller's trace, and no flowed <see cref="ExecutionContext"/> (log scopes, the Functions invocation).
/// </summary>
internal static class BackgroundWork
{
    /// <summary>
    /// Runs <paramref name="start"/> on this thread with no current span and with execution-context flow suppressed:
    /// whatever it starts (a task, a timer, an async method's continuations) inherits neither.
    /// </summary>
    public static T Start<T>(Func<T> start)
    {
        ArgumentNullException.ThrowIfNull(start);
        var ambient = Activity.Current;
        Activity.Current = null;
        AsyncFlowControl? flow = ExecutionContext.IsFlowSuppressed() ? null : ExecutionContext.SuppressFlow();
        try
        {
            return start();
        }
        finally
        {
            flow?.Undo();
            Activity.Current = ambient;
        }
    }

    /// <summary>Runs <paramref name="work"/> on the thread pool, detached as <see cref="Start{T}"/> says.</summary>
    public static Task Run(Func<Task> work) => Start(() => Task.Run(work));

    /// <summary>Runs <paramref name="work"/> on the thread pool, detached as <see cref="Start{T}"/> says.</summary>
    public static Task<T> Run<T>(Func<Task<T>> work) => Start(() => Task.Run(work));

    /// <summary>A timer of <paramref name="time"/> whose callbacks run detached, as <see cref="Start{T}"/> says.</summary>
    public static ITimer CreateTimer(TimeProvider time, TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        ArgumentNullException.ThrowIfNull(time);
        return Start(() => time.CreateTimer(callback, state, dueTime, period));
    }
}
