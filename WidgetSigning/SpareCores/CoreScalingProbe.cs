using System.Diagnostics;
using System.Security.Cryptography;

namespace WidgetSigning.SpareCores;

/// <summary>
/// How much faster two cores hash than one on the running machine: scaling = 2·t1 / t2, where t1 is one thread's time to
/// HMAC a buffer and t2 the time for two threads each hashing the same buffer at once (1.0 … 2.0; 2.0 is two real
/// cores). SMT siblings and CPU quotas give 1.1 … 1.6, where a second core does not pay for the hand-over. Measured once,
/// on the thread pool, in a few ms (see docs/decisions/two-core-hashing.md).
/// </summary>
internal sealed class CoreScalingProbe
{
    /// <summary>Bytes hashed per measurement: large enough that thread start-up is small beside it, small enough to cost ~0.1 ms per hash with SHA extensions.</summary>
    internal const int DefaultBufferBytes = 256 * 1024;

    /// <summary>Measurements of each kind; the best of them is kept, as the least disturbed by other work.</summary>
    internal const int DefaultRepeats = 5;

    private CoreScalingProbe(Task<double> scaling) => Scaling = scaling;

    /// <summary>The measured scaling, once the measurement is done.</summary>
    public Task<double> Scaling { get; }

    /// <summary>Starts <paramref name="measure"/> on the thread pool, off the caller's path.</summary>
    public static CoreScalingProbe Start(Func<double> measure) => new(Task.Run(measure));

    /// <summary>Starts the real measurement (<see cref="Measure"/>) on the thread pool.</summary>
    public static CoreScalingProbe Start() => Start(() => Measure());

    /// <summary>A probe that answers <paramref name="scaling"/> at once: tests, and hosts that know their machine.</summary>
    public static CoreScalingProbe Fixed(double scaling) => new(Task.FromResult(scaling));

    /// <summary>
    /// Measures the scaling: the best of <paramref name="repeats"/> one-thread hashes of <paramref name="bufferBytes"/>
    /// against the best of as many runs of two threads hashing the same bytes at once. Blocks for a few ms.
    /// </summary>
    public static double Measure(int bufferBytes = DefaultBufferBytes, int repeats = DefaultRepeats)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(bufferBytes, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(repeats, 1);
        var key = new byte[32];
        var data = new byte[bufferBytes];
        RandomNumberGenerator.Fill(data);
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        HMACSHA256.HashData(key, data, mac); // warm up: the first call loads the provider.

        var one = long.MaxValue;
        for (var i = 0; i < repeats; i++)
        {
            var start = Stopwatch.GetTimestamp();
            HMACSHA256.HashData(key, data, mac);
            one = Math.Min(one, Stopwatch.GetTimestamp() - start);
        }

        var two = long.MaxValue;
        using (var go = new Barrier(2))
        {
            var partner = new Thread(() => HashOnCue(key, data, go, repeats)) { IsBackground = true, Name = "core-scaling-probe" };
            partner.Start();
            for (var i = 0; i < repeats; i++)
            {
                // Both threads start together; the pair's time is this thread's hash plus the wait for the partner's.
                go.SignalAndWait();
                var start = Stopwatch.GetTimestamp();
                HMACSHA256.HashData(key, data, mac);
                go.SignalAndWait();
                two = Math.Min(two, Stopwatch.GetTimestamp() - start);
            }

            partner.Join();
        }

        return two <= 0 ? 2.0 : 2.0 * one / two;
    }

    private static void HashOnCue(byte[] key, byte[] data, Barrier go, int repeats)
    {
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        for (var i = 0; i < repeats; i++)
        {
            go.SignalAndWait();
            HMACSHA256.HashData(key, data, mac);
            go.SignalAndWait();
        }
    }
}
