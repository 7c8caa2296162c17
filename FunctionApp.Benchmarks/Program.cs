using BenchmarkDotNet.Running;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Load;

namespace FunctionApp.Benchmarks;

/// <summary>
/// Entry point. <c>dotnet run -c Release --project FunctionApp.Benchmarks -- --filter '*'</c> runs every
/// BenchmarkDotNet benchmark; <c>-- load</c> runs the 16-signer load scenario instead, <c>-- interleaved</c> the quick A/B of the signing variants,
/// <c>-- interleaved-pipeline</c> that of reading and signing, <c>-- probe-slow-mode</c> the slow-mode probe (fresh processes, each
/// measuring the function against reading alone), <c>-- saturated</c> the end-to-end rows with every core busy (CPU and GC per call),
/// <c>-- core-scaling</c> the spare-core policy's two-core scaling probe, a few times. After a run that includes
/// <c>SerializeAndSignBenchmarks</c>, <see cref="TwoCoreFloors"/> prints the signer against its two-core floors.
/// A row against an earlier revision of the code: <c>scripts/bench-against.sh</c>.
/// </summary>
public static class Program
{
    /// <summary>Runs the benchmarks (BenchmarkSwitcher arguments) or, with <c>load</c>, the load scenario.</summary>
    public static int Main(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (args.Length > 0 && args[0] == "load")
        {
            return LoadRunner.Run(args[1..], Console.Out);
        }

        if (args.Length > 0 && args[0] == "interleaved-pipeline")
        {
            return PipelineInterleavedRunner.Run(args[1..], Console.Out);
        }

        if (args.Length > 0 && args[0] == "probe-slow-mode")
        {
            return SlowModeProbe.Run(args[1..], Console.Out);
        }

        if (args.Length > 0 && args[0] == "saturated")
        {
            return SaturatedRunner.Run(args[1..], Console.Out);
        }

        if (args.Length > 0 && args[0] == "core-scaling")
        {
            return CoreScalingCheck.Run(args[1..], Console.Out);
        }

        if (args.Length > 0 && args[0] == "interleaved")
        {
            return InterleavedRunner.Run(args[1..], Console.Out);
        }

        // In process always: a child process would target net8.0, which this machine may not have.
        var switcherArgs = args.Contains("--inProcess") || args.Contains("-i") ? args : [.. args, "--inProcess"];
        // The jobs come from the command line (BenchmarkDotNet's default job unless --job etc. says otherwise),
        // all in process because of --inProcess; a job in the config as well would run beside them.
        var config = BenchmarkConfig.Create(job: null);
        var summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(switcherArgs, config);
        foreach (var summary in summaries)
        {
            TwoCoreFloors.Write(summary, Console.Out);
        }

        return summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success)) ? 1 : 0;
    }
}
