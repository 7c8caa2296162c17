namespace FunctionApp.Benchmarks.Load;

/// <summary>What one method did under load: a fixed number of operations spread over concurrent signers.</summary>
/// <param name="Method">The method's name.</param>
/// <param name="Workers">Concurrent signer threads.</param>
/// <param name="Operations">Operations completed (all workers together).</param>
/// <param name="Elapsed">Wall-clock time for all of them.</param>
/// <param name="AllocatedBytes">Bytes allocated by the whole process meanwhile.</param>
/// <param name="Gen0">Gen0 collections meanwhile.</param>
/// <param name="Gen1">Gen1 collections meanwhile.</param>
/// <param name="Gen2">Gen2 collections meanwhile.</param>
/// <param name="LohBytes">Large-object-heap bytes allocated meanwhile, from allocation ticks.</param>
/// <param name="PeakPoolInUseBytes">The pool's largest in-use size seen (small + large pool), sampled every millisecond.</param>
/// <param name="PeakPoolFreeBytes">The pool's largest free size seen (small + large pool), sampled every millisecond.</param>
/// <param name="PoolBlocksCreated">Blocks the pool had to create during the run (0 once it is warm and big enough).</param>
public sealed record LoadResult(
    string Method,
    int Workers,
    int Operations,
    TimeSpan Elapsed,
    long AllocatedBytes,
    int Gen0,
    int Gen1,
    int Gen2,
    long LohBytes,
    long PeakPoolInUseBytes,
    long PeakPoolFreeBytes,
    long PoolBlocksCreated)
{
    /// <summary>Operations per second.</summary>
    public double Throughput => Operations / Elapsed.TotalSeconds;

    /// <summary>Allocated bytes per operation.</summary>
    public double AllocatedBytesPerOperation => AllocatedBytes / (double)Operations;
}
