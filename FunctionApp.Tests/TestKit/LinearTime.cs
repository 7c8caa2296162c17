using System.Diagnostics;
using System.Runtime.InteropServices;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Compares the time an operation takes on a body with the time on one 4 times larger, within one run: the fastest of
/// several interleaved calls of each. The minimum is what the code costs when the machine leaves it alone (a shared CI
/// agent adds time, never removes it). On Linux the clock is the process's CPU time, so time spent waiting for a core on a
/// busy agent is not counted (it would otherwise penalize the longer call more); elsewhere, wall-clock time. Only the
/// ratio is asserted, never an absolute time.
/// </summary>
public static class LinearTime
{
    private const int ClockProcessCpuTimeId = 2;

    // Linear work on 4x the body measured 4.2x to 7.6x here (an 8 MB body leaves the caches, and its long tokens' LOH
    // buffers bring collections a 2 MB one does not); quadratic work is 16x. The bound sits between, clear of both.
    public const double MaxRatio = 10;

    public static async Task<(double Ratio, double SmallMs, double LargeMs)> MeasureAsync(Func<byte[], Task> operation, byte[] small, byte[] large, int runs = 15)
    {
        // Warm up both, so JIT and pool growth are not measured.
        await operation(small);
        await operation(large);

        var bestSmall = double.MaxValue;
        var bestLarge = double.MaxValue;
        for (var run = 0; run < runs; run++)
        {
            bestSmall = Math.Min(bestSmall, await TimeAsync(operation, small));
            bestLarge = Math.Min(bestLarge, await TimeAsync(operation, large));
        }

        return (bestLarge / bestSmall, bestSmall, bestLarge);
    }

    private static async Task<double> TimeAsync(Func<byte[], Task> operation, byte[] body)
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        var watch = Stopwatch.StartNew();
        var cpu = ProcessCpuMilliseconds();
        await operation(body);
        var cpuAfter = ProcessCpuMilliseconds();
        return cpu is { } before && cpuAfter is { } after ? after - before : watch.Elapsed.TotalMilliseconds;
    }

    private static double? ProcessCpuMilliseconds()
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        return clock_gettime(ClockProcessCpuTimeId, out var time) == 0 ? (time.Seconds * 1e3) + (time.Nanoseconds / 1e6) : null;
    }

    // A plain DllImport: LibraryImport would need unsafe code enabled for the whole test project.
    [DllImport("libc", ExactSpelling = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int clock_gettime(int clockId, out TimeSpec time);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }
}
