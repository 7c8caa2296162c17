using System.Diagnostics;
using FunctionApp.Benchmarks.Infrastructure;
using Microsoft.IO;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// Runs one signing method on N dedicated threads (not the thread pool, which would start with only as many
/// threads as cores) for a fixed number of operations in total, and measures the process meanwhile.
/// </summary>
public static class LoadScenario
{
    /// <summary>Warms <paramref name="operation"/> up, then runs <paramref name="operations"/> of it on <paramref name="workers"/> threads.</summary>
    public static LoadResult Run(
        string method, Action operation, RecyclableMemoryStreamManager pool, int workers, int operations, LargeObjectHeapListener listener)
    {
        ArgumentNullException.ThrowIfNull(operation);
        ArgumentNullException.ThrowIfNull(pool);
        ArgumentNullException.ThrowIfNull(listener);
        ArgumentOutOfRangeException.ThrowIfLessThan(workers, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(operations, workers);

        // Warm-up at full concurrency, so the JIT is done and the pool has grown to its working size.
        RunWorkers(operation, workers, workers * 2);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        long blocksCreated = 0;
        void OnBlockCreated(object? sender, RecyclableMemoryStreamManager.BlockCreatedEventArgs e) => Interlocked.Increment(ref blocksCreated);
        void OnLargeBufferCreated(object? sender, RecyclableMemoryStreamManager.LargeBufferCreatedEventArgs e) => Interlocked.Increment(ref blocksCreated);
        pool.BlockCreated += OnBlockCreated;
        pool.LargeBufferCreated += OnLargeBufferCreated;

        using var sampler = new PoolSampler(pool);
        var gen0 = GC.CollectionCount(0);
        var gen1 = GC.CollectionCount(1);
        var gen2 = GC.CollectionCount(2);
        var allocated = GC.GetTotalAllocatedBytes(precise: true);
        listener.Start();
        var clock = Stopwatch.StartNew();

        var done = RunWorkers(operation, workers, operations);

        clock.Stop();
        var allocatedAfter = GC.GetTotalAllocatedBytes(precise: true);
        var gen0After = GC.CollectionCount(0);
        var gen1After = GC.CollectionCount(1);
        var gen2After = GC.CollectionCount(2);
        sampler.Stop();
        listener.Stop();
        pool.BlockCreated -= OnBlockCreated;
        pool.LargeBufferCreated -= OnLargeBufferCreated;

        return new LoadResult(
            method, workers, done, clock.Elapsed, allocatedAfter - allocated,
            gen0After - gen0, gen1After - gen1, gen2After - gen2, listener.Bytes,
            sampler.PeakInUse, sampler.PeakFree, Interlocked.Read(ref blocksCreated));
    }

    private static int RunWorkers(Action operation, int workers, int operations)
    {
        var completed = 0;
        var failures = new List<Exception>();
        using var start = new ManualResetEventSlim(false);
        var threads = new Thread[workers];
        for (var w = 0; w < workers; w++)
        {
            // Spread the remainder so exactly `operations` run.
            var share = (operations / workers) + (w < operations % workers ? 1 : 0);
            threads[w] = new Thread(() =>
            {
                start.Wait();
                try
                {
                    for (var i = 0; i < share; i++)
                    {
                        operation();
                        Interlocked.Increment(ref completed);
                    }
                }
                catch (Exception ex) when (ex is not OutOfMemoryException)
                {
                    lock (failures)
                    {
                        failures.Add(ex);
                    }
                }
            })
            {
                IsBackground = true,
                Name = $"signer-{w}",
            };
            threads[w].Start();
        }

        start.Set();
        foreach (var thread in threads)
        {
            thread.Join();
        }

        if (failures.Count > 0)
        {
            throw new AggregateException("A signer failed under load.", failures);
        }

        return completed;
    }

    /// <summary>Samples the pool's in-use and free sizes every millisecond on its own thread.</summary>
    private sealed class PoolSampler : IDisposable
    {
        private readonly RecyclableMemoryStreamManager _pool;
        private readonly Thread _thread;
        private volatile bool _stopping;

        public PoolSampler(RecyclableMemoryStreamManager pool)
        {
            _pool = pool;
            _thread = new Thread(Sample) { IsBackground = true, Name = "pool-sampler" };
            _thread.Start();
        }

        public long PeakInUse { get; private set; }

        public long PeakFree { get; private set; }

        public void Stop()
        {
            _stopping = true;
            _thread.Join();
        }

        public void Dispose()
        {
            if (!_stopping)
            {
                Stop();
            }
        }

        private void Sample()
        {
            while (!_stopping)
            {
                Take();
                Thread.Sleep(1);
            }

            Take();
        }

        private void Take()
        {
            PeakInUse = Math.Max(PeakInUse, _pool.SmallPoolInUseSize + _pool.LargePoolInUseSize);
            PeakFree = Math.Max(PeakFree, _pool.SmallPoolFreeSize + _pool.LargePoolFreeSize);
        }
    }
}
