using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Signing;

/// <summary>
/// Settings of the one <c>RecyclableMemoryStreamManager</c> (configuration section <c>StreamPool</c>).
/// Every stream of the service (request bodies, canonical JSON, blobs) comes from this pool.
/// </summary>
internal sealed class StreamPoolOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "StreamPool";

    private const string Positive = SectionName + ":{0} must be positive so the pool is bounded.";

    /// <summary>
    /// Size of one pooled block. Default 64 KiB: below the 85,000-byte large-object threshold, so even the
    /// pool's own blocks never land on the large object heap. Setting: <c>StreamPool:BlockSize</c>.
    /// </summary>
    [Range(4096, 84_999, ErrorMessage = SectionName + ":{0} must be between {1} and {2} bytes (below the large-object threshold).")]
    public int BlockSize { get; set; } = 64 * 1024;

    /// <summary>
    /// Large buffers (only made if something asks for one contiguous buffer, which the signing path never
    /// does) are multiples of this. Default 1 MiB. Setting: <c>StreamPool:LargeBufferMultiple</c>.
    /// </summary>
    [Range(1, int.MaxValue, ErrorMessage = SectionName + ":{0} must be positive.")]
    public int LargeBufferMultiple { get; set; } = 1024 * 1024;

    /// <summary>The largest large buffer kept in the pool. Default 16 MiB. Setting: <c>StreamPool:MaximumBufferSize</c>.</summary>
    public int MaximumBufferSize { get; set; } = 16 * 1024 * 1024;

    /// <summary>
    /// Bytes of free blocks the pool keeps; blocks returned beyond this are left to the GC, so the pool
    /// cannot grow without bound after a burst. Default 64 MiB. Setting: <c>StreamPool:MaximumSmallPoolFreeBytes</c>.
    /// </summary>
    [Range(1L, long.MaxValue, ErrorMessage = Positive)]
    public long MaximumSmallPoolFreeBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>Bytes of free large buffers the pool keeps. Default 32 MiB. Setting: <c>StreamPool:MaximumLargePoolFreeBytes</c>.</summary>
    [Range(1L, long.MaxValue, ErrorMessage = Positive)]
    public long MaximumLargePoolFreeBytes { get; set; } = 32L * 1024 * 1024;

    /// <summary>
    /// The most one stream may hold; writing past it fails instead of exhausting memory.
    /// Default 256 MiB. Setting: <c>StreamPool:MaximumStreamCapacity</c>.
    /// </summary>
    public long MaximumStreamCapacity { get; set; } = 256L * 1024 * 1024;
}
