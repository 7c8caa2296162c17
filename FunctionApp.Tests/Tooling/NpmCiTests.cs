using System.Diagnostics;
using System.Text.Json;
using FunctionApp.Tests.Infra;

namespace FunctionApp.Tests.Tooling;

/// <summary>
/// Core Tools are an optional npm dependency: <c>npm ci</c> installs them where their download works and still exits 0
/// where it does not (as on CI, which cannot reach the download).
/// </summary>
public sealed class NpmCiTests
{
    [Fact]
    public void PackageJson_CoreTools_AreAnOptionalDependencyOnMajor4()
    {
        // Arrange
        using var package = JsonDocument.Parse(RepoFiles.ReadAllText("package.json"));

        // Act
        var version = package.RootElement.GetProperty("optionalDependencies").GetProperty("azure-functions-core-tools").GetString();

        // Assert
        Assert.StartsWith("4.", version, StringComparison.Ordinal);
        Assert.False(package.RootElement.GetProperty("devDependencies").TryGetProperty("azure-functions-core-tools", out _));
    }

    [Fact]
    public async Task NpmCi_CoreToolsWhereverTheirDownloadFails_StillExitsZero()
    {
        // Arrange: a scratch copy of the manifest and lock file; only the optional dependency is installed (dev
        // dependencies omitted), so this runs Core Tools' own install script and nothing else.
        var scratch = Directory.CreateTempSubdirectory("npm-ci-");
        try
        {
            File.Copy(RepoFiles.File("package.json"), Path.Combine(scratch.FullName, "package.json"));
            File.Copy(RepoFiles.File("package-lock.json"), Path.Combine(scratch.FullName, "package-lock.json"));
            var start = new ProcessStartInfo("npm", "ci --omit=dev --no-audit --no-fund")
            {
                WorkingDirectory = scratch.FullName,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };

            // Act
            using var npm = Process.Start(start)!;
            var output = npm.StandardOutput.ReadToEndAsync();
            var error = npm.StandardError.ReadToEndAsync();
            using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(5));
            await npm.WaitForExitAsync(timeout.Token);

            // Assert: exit 0 either way; where the download worked, func is linked and runs.
            Assert.True(npm.ExitCode == 0, $"npm ci exited {npm.ExitCode}:\n{await output}\n{await error}");
            var func = Path.Combine(scratch.FullName, "node_modules", ".bin", "func");
            if (File.Exists(func))
            {
                using var version = Process.Start(new ProcessStartInfo(func, "--version") { RedirectStandardOutput = true, UseShellExecute = false })!;
                var printed = await version.StandardOutput.ReadToEndAsync();
                await version.WaitForExitAsync(timeout.Token);
                Assert.StartsWith("4.", printed.Trim(), StringComparison.Ordinal);
            }
            else
            {
                Assert.False(Directory.Exists(Path.Combine(scratch.FullName, "node_modules", "azure-functions-core-tools", "bin", "func")), "a half-installed Core Tools was left behind");
            }
        }
        finally
        {
            scratch.Delete(recursive: true);
        }
    }
}
