using System.Diagnostics;
using System.Security.Cryptography;

namespace WidgetSigning.SpareCores;

/// <summary>
/// How much faster two cores hash than one on the running machine: two threads' HMAC-SHA256 rate, hashing at once, over
/// one thread's (the same as 2·t1 / t2 for a fixed amount of work each): 2.0 on two real cores, 1.1 … 1.6 on SMT
/// siblings or under a CPU quota, ~1.0 where both threads share one core. There a second core does not pay for the
/// hand-over. Each measurement runs on the thread pool in ~15 ms (docs/decisions/two-core-hashing.md).
/// </summary>
internal sealed class CoreScalingProbe
{
    /// <summary>Bytes per hash: small enough (~10 µs with SHA extensions) that a window holds hundreds of them.</summary>
    internal const int DefaultBufferBytes = 16 * 1024;

    /// <summary>How long each thread hashes per measurement: long enough to span a wake-up and a time slice's jitter, short enough that the probe costs a few ms.</summary>
    internal static readonly TimeSpan DefaultWindow = TimeSpan.FromMilliseconds(2);

    /// <summary>Measurements of each kind; the best of them is kept, as the least disturbed by other work.</summary>
    internal const int DefaultRepeats = 3;

    private readonly Func<Task<double>> _measure;

    /// <summary>One unit of the measured work: the real probe's is one HMAC-SHA256 of <c>data</c>.</summary>
    internal delegate void HashStep(byte[] key, byte[] data, Span<byte> mac);

    private CoreScalingProbe(Func<Task<double>> measure) => _measure = measure;

    /// <summary>One new measurement: each call measures again (a reading taken while other work held a core is low).</summary>
    public Task<double> MeasureAsync() => _measure();

    /// <summary>A probe that runs <paramref name="measure"/> on the thread pool, off the caller's path, at each <see cref="MeasureAsync"/>.</summary>
    public static CoreScalingProbe Of(Func<double> measure) => new(() => Task.Run(measure));

    /// <summary>The real measurement (<see cref="Measure(int, int)"/>), run on the thread pool at each <see cref="MeasureAsync"/>.</summary>
    public static CoreScalingProbe Real() => Of(() => Measure());

    /// <summary>A probe that answers <paramref name="scaling"/> at once: tests, and hosts that know their machine.</summary>
    public static CoreScalingProbe Fixed(double scaling) => new(() => Task.FromResult(scaling));

    /// <summary>
    /// Measures the scaling: the best hashing rate of one thread over <see cref="DefaultWindow"/> against the best rate of
    /// two threads hashing the same bytes over the same window at once, each kept over <paramref name="repeats"/>
    /// tries. The pair's window runs from the first thread's start to the last one's end, so a partner that starts late
    /// (no second core free) counts against the pair. Blocks for a few ms.
    /// </summary>
    public static double Measure(int bufferBytes = DefaultBufferBytes, int repeats = DefaultRepeats) => Measure(bufferBytes, repeats, DefaultWindow);

    /// <summary>As <see cref="Measure(int, int)"/>, over a window of <paramref name="window"/> per measurement.</summary>
    public static double Measure(int bufferBytes, int repeats, TimeSpan window) =>
        Measure(bufferBytes, repeats, window, static (key, data, mac) => HMACSHA256.HashData(key, data, mac));

    /// <summary>As <see cref="Measure(int, int, TimeSpan)"/>, timing <paramref name="step"/> (tests give work whose scaling is known).</summary>
    internal static double Measure(int bufferBytes, int repeats, TimeSpan window, HashStep step)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(bufferBytes, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(repeats, 1);
        var ticks = (long)(window.TotalSeconds * Stopwatch.Frequency);
        var key = new byte[32];
        var data = new byte[bufferBytes];
        RandomNumberGenerator.Fill(data);
        var mine = new Run();
        var partners = new Run();
        HashFor(step, key, data, ticks / 4, mine); // warm up: the first calls load the provider and tier the code up.

        double one = 0, two = 0;
        using var go = new Barrier(2);
        var partner = new Thread(() =>
        {
            for (var i = 0; i < repeats; i++)
            {
                go.SignalAndWait();
                HashFor(step, key, data, ticks, partners);
                go.SignalAndWait();
            }
        })
        { IsBackground = true, Name = "core-scaling-probe" };
        partner.Start();
        for (var i = 0; i < repeats; i++)
        {
            HashFor(step, key, data, ticks, mine);
            one = Math.Max(one, (double)mine.Hashes / (mine.End - mine.Start));

            go.SignalAndWait();
            HashFor(step, key, data, ticks, mine);
            go.SignalAndWait();
            var wall = Math.Max(mine.End, partners.End) - Math.Min(mine.Start, partners.Start);
            two = Math.Max(two, (double)(mine.Hashes + partners.Hashes) / wall);
        }

        partner.Join();
        return one <= 0 ? 1.0 : two / one;
    }

    private static void HashFor(HashStep step, byte[] key, byte[] data, long ticks, Run run)
    {
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        var hashes = 0L;
        var start = Stopwatch.GetTimestamp();
        var now = start;
        while (now - start < ticks)
        {
            step(key, data, mac);
            hashes++;
            now = Stopwatch.GetTimestamp();
        }

        run.Start = start;
        run.End = now;
        run.Hashes = hashes;
    }

    /// <summary>One thread's hashes over one window (written by that thread, read after the barrier).</summary>
    private sealed class Run
    {
        public long Start { get; set; }

        public long End { get; set; }

        public long Hashes { get; set; }
    }
}
