using System.Diagnostics;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.SpareCores;

/// <summary>
/// The slow mode: when no core is spare (another process holds it), the pipeline's helper is scheduled on the
/// reader's own core, where its spinning and yielding between runs took the reader's time slices (a request cost up to
/// 1.9× reading, more than reading then signing on one core). Reproduced by pinning a process to one CPU while the
/// runtime is told there are two (<c>DOTNET_PROCESSOR_COUNT</c>), so the signer still hands work over: there every path
/// must still sign alike and the helper still take part. (Whether it sleeps there depends on the scheduler: on one CPU a
/// yield often lets the reader publish the next run first. <c>WidgetSigning.Tests/Pipeline/SigningPipelineTests</c> pins the sleep down.)
/// Runs the benchmarks' slow-mode probe (its measuring child: the end-to-end rows, round after round) as that process.
/// </summary>
public sealed class SigningPipelineSharedCoreTests
{
    [Fact]
    public async Task Execute_HelperOnTheReadersCoreAttack_EveryRowSignsAlikeAndTheHelperTakesPart()
    {
        // Arrange: one CPU for the whole process, two as far as the runtime knows.
        var benchmarks = Path.Combine(RepoRoot.Path, "FunctionApp.Benchmarks", "bin", "Release", "net8.0", "FunctionApp.Benchmarks.dll");
        Assert.True(File.Exists(benchmarks), $"{benchmarks} is missing: the test project builds it (ProjectReference)");
        var start = new ProcessStartInfo("taskset") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in new[] { "-c", "0", "dotnet", benchmarks, "probe-slow-mode", "--child", "--rounds", "8" })
        {
            start.ArgumentList.Add(arg);
        }

        start.Environment["DOTNET_PROCESSOR_COUNT"] = "2";
        start.Environment["DOTNET_ROLL_FORWARD"] = "Major";

        // Act
        using var child = Process.Start(start)!;
        var stdout = child.StandardOutput.ReadToEndAsync();
        var stderr = child.StandardError.ReadToEndAsync();
        Assert.True(child.WaitForExit(TimeSpan.FromMinutes(3)), "the probe did not finish within 3 minutes");
        var output = await stdout;
        var errors = await stderr;

        // Assert: the rows' setup checked that every path signs the seed alike (it throws otherwise); the helper, sharing
        // the reader's core, still wrote runs.
        Assert.True(child.ExitCode == 0, $"exit {child.ExitCode}: {output} {errors}");
        var line = output.Split('\n').Last(l => l.StartsWith('{'));
        var result = JObject.Parse(line);
        Assert.True((double)result["HelperShare"]! > 0, $"the helper never wrote a run: {line}");
    }
}
