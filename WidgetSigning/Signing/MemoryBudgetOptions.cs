using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Signing;

/// <summary>
/// The process-wide budget for envelope bytes in flight (configuration section <c>MemoryBudget</c>): pooled request and
/// claim-check bodies and canonical forms together, HTTP and queue alike ([decision](docs/decisions/memory-budget.md)).
/// </summary>
internal sealed class MemoryBudgetOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "MemoryBudget";

    /// <summary>The full name of the <see cref="MaxBytesInFlight"/> setting.</summary>
    public const string MaxBytesInFlightSetting = SectionName + ":" + nameof(MaxBytesInFlight);

    /// <summary>The full name of the <see cref="MaxWait"/> setting.</summary>
    public const string MaxWaitSetting = SectionName + ":" + nameof(MaxWait);

    /// <summary>The smallest explicit budget: 32 MiB, one default-size body and its canonical form.</summary>
    public const long MinBytesInFlight = 32L * 1024 * 1024;

    /// <summary>The share of the memory available to the process that the default budget takes (one eighth).</summary>
    public const int DefaultMemoryDivisor = 8;

    /// <summary>
    /// The most envelope bytes (pooled bodies and canonical forms) all requests and messages together may hold; one that
    /// would go over waits up to <see cref="MaxWait"/> (HTTP) and is then answered 503 with <c>Retry-After</c>, or is
    /// released back to its queue. Setting: <c>MemoryBudget:MaxBytesInFlight</c>. Default 0: an eighth of
    /// <c>GC.GetGCMemoryInfo().TotalAvailableMemoryBytes</c> (the plan's or container's memory; Y1 1.5 GB gives 192 MiB,
    /// EP1 3.5 GB 448 MiB). An eighth because each budgeted byte brought up to five bytes of process memory at the peak in
    /// the worst case measured (escape-heavy 16 MiB bodies: Newtonsoft holds a long string's raw text as UTF-16 in a
    /// doubling buffer while it unescapes it; docs/performance.md), so the worst case stays near five eighths of the memory
    /// and the rest is left to the host and the runtime. Explicit values 33554432 … 68719476736.
    /// </summary>
    [Range(0L, 64L * 1024 * 1024 * 1024, ErrorMessage = MaxBytesInFlightSetting + " must be 0 (an eighth of the memory) or between 33554432 and {2} bytes.")]
    public long MaxBytesInFlight { get; set; }

    /// <summary>
    /// How long an HTTP request waits for room in the budget before it gets 503. Setting: <c>MemoryBudget:MaxWait</c>.
    /// Default 2 s: long enough for a signature in flight to finish, short enough not to hold a connection (0 … 30 s).
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:00", "00:00:30", ErrorMessage = MaxWaitSetting + " must be between {1} and {2}.")]
    public TimeSpan MaxWait { get; set; } = TimeSpan.FromSeconds(2);
}
