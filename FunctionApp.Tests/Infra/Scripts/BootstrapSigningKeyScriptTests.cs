namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>infra/scripts/bootstrap-signing-key.sh against a fake az: it creates the key once and only once.</summary>
public sealed class BootstrapSigningKeyScriptTests : IDisposable
{
    private readonly FakeAzureCli _az = new();

    [Fact]
    public async Task Run_SecretMissing_CreatesOneRandom32ByteKeyWithoutPrintingIt()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "missing"), ("FAKE_AZ_DELETED", "no"));

        Assert.Equal(0, run.ExitCode);
        Assert.Single(_az.Calls, c => c.StartsWith("keyvault secret set --vault-name kv-test --name widget-signing-key", StringComparison.Ordinal));
        var stored = Assert.IsType<string>(_az.StoredSecret);
        Assert.Equal(32, Convert.FromBase64String(stored).Length);
        Assert.DoesNotContain(stored, run.Output + run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(stored, string.Join('\n', _az.Calls), StringComparison.Ordinal);
        Assert.False(_az.SawSecretOnCommandLine);
    }

    [Fact]
    public async Task Run_TwiceWithMissingSecrets_CreatesDifferentKeys()
    {
        await RunAsync(("FAKE_AZ_SHOW", "missing"), ("FAKE_AZ_DELETED", "no"));
        var first = _az.StoredSecret;
        await RunAsync(("FAKE_AZ_SHOW", "missing"), ("FAKE_AZ_DELETED", "no"));

        Assert.NotNull(first);
        Assert.NotEqual(first, _az.StoredSecret);
    }

    [Fact]
    public async Task Run_SecretExists_LeavesItUnchanged()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "exists"));

        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("keyvault secret set", StringComparison.Ordinal));
        Assert.Contains("already exists", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_SecretSoftDeleted_FailsWithoutCreating()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "missing"), ("FAKE_AZ_DELETED", "yes"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("soft-deleted", run.Error, StringComparison.Ordinal);
        Assert.Null(_az.StoredSecret);
    }

    [Fact]
    public async Task Run_StillForbiddenAfterRetries_FailsWithoutCreating()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "forbidden"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Equal(3, _az.Calls.Count(c => c.StartsWith("keyvault secret show ", StringComparison.Ordinal)));
        Assert.Null(_az.StoredSecret);
    }

    [Fact]
    public async Task Run_OtherErrorReadingTheVault_FailsWithoutCreating()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "error"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("ServiceUnavailable", run.Error, StringComparison.Ordinal);
        Assert.Null(_az.StoredSecret);
    }

    public void Dispose() => _az.Dispose();

    private Task<ScriptRun> RunAsync(params (string Name, string Value)[] settings) =>
        ScriptRun.RunAsync(
            "bootstrap-signing-key.sh",
            _az.Environment([.. settings, ("BOOTSTRAP_RETRIES", "3"), ("BOOTSTRAP_RETRY_SECONDS", "0")]),
            "kv-test",
            "widget-signing-key");
}
