using System.Reflection;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Load;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Benchmarks;

/// <summary>
/// CI's smoke run of the benchmarks: every benchmark executes once (BenchmarkDotNet's Dry job, in process),
/// including each GlobalSetup's check that our signer and the seed's methods sign the same bytes, so none of
/// them can break unnoticed. Timings are never asserted.
/// </summary>
public sealed class BenchmarkSmokeTests(ITestOutputHelper output)
{
    [Fact]
    public void EveryBenchmark_DryRun_RunsWithoutError()
    {
        // Arrange
        var artifacts = Directory.CreateTempSubdirectory("bench-smoke-");
        var config = BenchmarkConfig.CreateQuiet(Job.Dry, new TestOutputLogger(output))
            .WithArtifactsPath(artifacts.FullName)
            // A Debug test run builds the benchmarks unoptimized; the smoke run only checks that they work.
            .WithOptions(ConfigOptions.DisableOptimizationsValidator);
        var expected = typeof(FunctionApp.Benchmarks.Program).Assembly.GetTypes()
            .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly)
                .Where(m => m.GetCustomAttribute<BenchmarkAttribute>() is not null)
                .Select(m => $"{t.Name}.{m.Name}"))
            .ToHashSet();

        try
        {
            // Act
            var summaries = BenchmarkRunner.Run(typeof(FunctionApp.Benchmarks.Program).Assembly, config);

            // Assert
            Assert.NotEmpty(expected);
            foreach (var summary in summaries)
            {
                Assert.False(summary.HasCriticalValidationErrors, string.Join(Environment.NewLine, summary.ValidationErrors.Select(e => e.Message)));
            }

            var reports = summaries.SelectMany(s => s.Reports).ToList();
            var failed = reports.Where(r => !r.Success).Select(r => r.BenchmarkCase.DisplayInfo).ToList();
            Assert.True(failed.Count == 0, "Benchmarks failed (see the test output): " + string.Join(", ", failed));
            var ran = reports.Select(r => $"{r.BenchmarkCase.Descriptor.Type.Name}.{r.BenchmarkCase.Descriptor.WorkloadMethod.Name}").ToHashSet();
            Assert.Empty(expected.Except(ran));
        }
        finally
        {
            artifacts.Delete(recursive: true);
        }
    }

    [Fact]
    public void LoadRunner_SmallRun_ReportsEveryMethod()
    {
        // Arrange
        using var table = new StringWriter();

        // Act
        var exitCode = LoadRunner.Run(["--workers", "4", "--operations", "8"], table);

        // Assert
        output.WriteLine(table.ToString());
        Assert.Equal(0, exitCode);
        Assert.Contains("EnvelopeSigner.Sign (ours)", table.ToString(), StringComparison.Ordinal);
        Assert.Contains("SerializeToRecyclableMemoryStreamAndSign (seed)", table.ToString(), StringComparison.Ordinal);
        Assert.Contains("Variant 3b: overlapped in 16 KB chunks (always)", table.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void LoadScenario_FixedOperations_CompletesEveryOperation()
    {
        // Act
        var results = LoadRunner.Measure(workers: 3, operations: 10, widgetCount: 30);

        // Assert
        Assert.Equal(9, results.Count);
        Assert.All(results, r => Assert.Equal(10, r.Operations));
        Assert.Equal(4, results.Count(r => r.Method.StartsWith("ReadAndSignAsync", StringComparison.Ordinal)));
        Assert.Equal(2, results.Count(r => r.Method.EndsWith("(A/A control)", StringComparison.Ordinal)));
    }
}
