using System.Security.Cryptography;

namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>infra/scripts/smoke-test.sh against a loopback fake of /api/sign and a fake az: it passes only for an app that signs with the vault's key.</summary>
public sealed class SmokeTestScriptTests : IDisposable
{
    private readonly FakeAzureCli _az = new();
    private readonly byte[] _vaultKey = RandomNumberGenerator.GetBytes(32);

    [Fact]
    public async Task Run_AppSignsWithTheVaultKey_Passes()
    {
        using var app = new FakeSignService(_vaultKey, "0123456789abcdef");

        var run = await RunAsync(app);

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("Smoke test passed", run.Output, StringComparison.Ordinal);
        Assert.Equal(3, app.Requests);
        Assert.DoesNotContain(Convert.ToBase64String(_vaultKey), run.Output + run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_AppSignsWithAnotherKey_Fails()
    {
        using var app = new FakeSignService(RandomNumberGenerator.GetBytes(32), "0123456789abcdef");

        var run = await RunAsync(app);

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("does not verify", run.Error, StringComparison.Ordinal);
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
    public async Task Run_AppNeverAnswers200_FailsAfterItsRetries()
    {
        using var app = new FakeSignService(_vaultKey, "0123456789abcdef", status: 503);

        var run = await RunAsync(app);

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("answered 503", run.Error, StringComparison.Ordinal);
        Assert.Equal(2, app.Requests);
    }

    public void Dispose() => _az.Dispose();

    private Task<ScriptRun> RunAsync(FakeSignService app) =>
        ScriptRun.RunAsync(
            "smoke-test.sh",
            _az.Environment(
                ("FAKE_AZ_FUNCTION_KEY", FakeSignService.FunctionKey),
                ("FAKE_AZ_SECRET_VALUE", Convert.ToBase64String(_vaultKey)),
                ("SMOKE_RETRIES", "2"),
                ("SMOKE_RETRY_SECONDS", "0")),
            app.BaseUrl,
            "rg-test",
            "func-test",
            "kv-test",
            "widget-signing-key",
            "FunctionApp.Tests/TestData/vectors");
}
