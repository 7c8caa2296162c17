using System.Security.Cryptography;
using FunctionApp.Tests.Infrastructure;

namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// infra/scripts/smoke-test.sh against a loopback fake of /api/sign and /api/verify and a fake az: it passes only for an
/// app that signs with a Key Vault key version and verifies honestly, and it never touches the vault.
/// </summary>
public sealed class SmokeTestScriptTests : IDisposable
{
    private const string VaultVersion = "0123456789abcdef0123456789abcdef";

    private readonly FakeAzureCli _az = new();
    private readonly byte[] _vaultKey = RandomNumberGenerator.GetBytes(32);

    [Fact]
    public async Task Run_AppSignsAndVerifiesWithAVaultKey_PassesWithoutReadingTheVault()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app);

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("Smoke test passed", run.Output, StringComparison.Ordinal);
        // sign, verify, tampered envelope, tampered signature, bad JSON, no key.
        Assert.Equal(6, app.Requests);
        Assert.Empty(_az.Violations);
        Assert.DoesNotContain(_az.Calls, c => c.Contains("keyvault", StringComparison.Ordinal));
        Assert.DoesNotContain(FakeSignService.FunctionKey, run.Output + run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_VerifierAcceptsATamperedEnvelope_Fails()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion, verifierAcceptsAnything: true);

        var run = await RunAsync(app);

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("tampered envelope", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_AppSignsWithTheLocalDevelopmentKey_Fails()
    {
        using var app = new FakeSignService(_vaultKey, "local");

        var run = await RunAsync(app);

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("not signing with the Key Vault key", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_AppSignsWithThePublicTestKey_Fails()
    {
        using var app = new FakeSignService(Vector.Key, VaultVersion);

        var run = await RunAsync(app);

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("public test key", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_AppNeverAnswers200_FailsAfterItsRetries()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion, status: 503);

        var run = await RunAsync(app);

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("answered 503", run.Error, StringComparison.Ordinal);
        Assert.Equal(2, app.Requests);
    }

    [Fact]
    public async Task Run_FunctionKey_NeverOnACommandLine()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        // The fake az and the curl in front of the real one record any argument holding the function key.
        var run = await RunAsync(app, ("FAKE_AZ_FORBIDDEN_TEXT", FakeSignService.FunctionKey));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Empty(_az.Violations);
        Assert.Contains(_az.Calls, c => c.StartsWith("functionapp keys list", StringComparison.Ordinal));
    }

    public void Dispose() => _az.Dispose();

    private Task<ScriptRun> RunAsync(FakeSignService app, params (string Name, string Value)[] extra) =>
        ScriptRun.RunAsync(
            "smoke-test.sh",
            _az.Environment(
                [
                    ("FAKE_AZ_FUNCTION_KEY", FakeSignService.FunctionKey),
                    ("SMOKE_RETRIES", "2"),
                    ("SMOKE_RETRY_SECONDS", "0"),
                    .. extra,
                ]),
            app.BaseUrl,
            "rg-test",
            "func-test",
            "FunctionApp.Tests/TestData/vectors");
}
