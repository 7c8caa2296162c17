using System.Globalization;
using WidgetSigning.SpareCores;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// <c>-- core-scaling [--runs N]</c>: runs the spare-core policy's probe N times (default 5) and prints each scaling, so a
/// machine's figure (or one under <c>taskset -c 0</c> with <c>DOTNET_PROCESSOR_COUNT=2</c>) can be read without a service.
/// </summary>
internal static class CoreScalingCheck
{
    /// <summary>Prints the processor count, each measurement and the default threshold; 0.</summary>
    public static int Run(string[] args, TextWriter output)
    {
        var runs = args.Length == 2 && args[0] == "--runs" ? int.Parse(args[1], CultureInfo.InvariantCulture) : 5;
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"processors {Environment.ProcessorCount}; SpareCores:MinimumScaling default {SpareCoreOptions.DefaultMinimumScaling}"));
        for (var i = 0; i < runs; i++)
        {
            var started = System.Diagnostics.Stopwatch.GetTimestamp();
            var scaling = CoreScalingProbe.Measure();
            var elapsed = System.Diagnostics.Stopwatch.GetElapsedTime(started);
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"two-core scaling {scaling:F2} ({elapsed.TotalMilliseconds:F1} ms)"));
        }

        return 0;
    }
}
