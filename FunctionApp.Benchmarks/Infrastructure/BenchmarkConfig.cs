using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// The one configuration every benchmark runs with: the in-process toolchain (this machine may have only a
/// newer runtime than net8.0; the benchmark process rolls forward and measures in itself instead of building
/// a net8.0 child process), the memory diagnoser (allocated bytes, Gen0/1/2 per 1,000 operations) and the
/// large-object-heap diagnoser.
/// </summary>
public static class BenchmarkConfig
{
    /// <summary>
    /// The configuration with <paramref name="job"/> run in process; with no job, the jobs come from the
    /// command line (whose <c>--inProcess</c> flag the program always sets).
    /// </summary>
    public static ManualConfig Create(Job? job) => Configure(ManualConfig.Create(DefaultConfig.Instance), job);

    /// <summary>
    /// The same diagnosers and job, but logging only to <paramref name="logger"/> and exporting nothing: for the
    /// smoke test, which runs every benchmark once inside the test process.
    /// </summary>
    public static ManualConfig CreateQuiet(Job job, ILogger logger)
    {
        var defaults = DefaultConfig.Instance;
        var config = ManualConfig.CreateEmpty()
            .AddLogger(logger)
            .AddColumnProvider(defaults.GetColumnProviders().ToArray())
            .AddAnalyser(defaults.GetAnalysers().ToArray())
            .AddValidator(defaults.GetValidators().ToArray());
        return Configure(config, job);
    }

    private static ManualConfig Configure(ManualConfig config, Job? job)
    {
        if (job is not null)
        {
            config.AddJob(job.WithToolchain(InProcessEmitToolchain.Instance));
        }

        config
            .AddDiagnoser(MemoryDiagnoser.Default)
            .AddDiagnoser(new LargeObjectHeapDiagnoser())
            .HideColumns("Job", "Toolchain");
        config.SummaryStyle = (config.SummaryStyle ?? SummaryStyle.Default).WithMaxParameterColumnWidth(40);
        return config;
    }
}
