namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// infra/scripts/bootstrap-signing-key.sh against a fake az: it creates the key once and only once, through Resource
/// Manager, without any Key Vault data-plane call (so the pipeline identity needs no role that could read the key).
/// </summary>
public sealed class BootstrapSigningKeyScriptTests : IDisposable
{
    private readonly FakeAzureCli _az = new();

    [Fact]
    public async Task Run_SecretMissing_CreatesOneRandom32ByteKeyThroughResourceManagerWithoutPrintingIt()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "missing"));

        Assert.True(run.ExitCode == 0, run.Error);
        var create = Assert.Single(_az.Calls, c => c.StartsWith("resource create ", StringComparison.Ordinal));
        Assert.Contains("--resource-group rg-test --namespace Microsoft.KeyVault --parent vaults/kv-test --resource-type secrets --name widget-signing-key", create, StringComparison.Ordinal);
        var stored = Assert.IsType<string>(_az.StoredSecret);
        Assert.Equal(32, Convert.FromBase64String(stored).Length);
        Assert.Equal("application/x-hmac-sha256-key; encoding=base64", (string?)_az.StoredProperties!["contentType"]);
        Assert.DoesNotContain(stored, run.Output + run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(stored, string.Join('\n', _az.Calls), StringComparison.Ordinal);
        Assert.Empty(_az.Violations);
    }

    [Theory]
    [InlineData(null, 365)]
    [InlineData("30", 30)]
    public async Task Run_SecretMissing_SetsAnExpiry_SoAnExpirationDatePolicyAdmitsTheKey(string? lifetime, int days)
    {
        var before = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        var run = lifetime is null
            ? await RunAsync(("FAKE_AZ_SHOW", "missing"))
            : await RunAsync(("FAKE_AZ_SHOW", "missing"), ("SIGNING_KEY_LIFETIME_DAYS", lifetime));

        Assert.True(run.ExitCode == 0, run.Error);
        var attributes = _az.StoredProperties!["attributes"]!;
        Assert.True((bool)attributes["enabled"]!);
        var exp = (long)attributes["exp"]!;
        Assert.InRange(exp, before + (days * 86400L), DateTimeOffset.UtcNow.ToUnixTimeSeconds() + (days * 86400L));
    }

    [Theory]
    [InlineData("0")]
    [InlineData("-5")]
    [InlineData("ten")]
    public async Task Run_LifetimeNotADayCount_FailsBeforeLookingOrCreating(string lifetime)
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "missing"), ("SIGNING_KEY_LIFETIME_DAYS", lifetime));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("SIGNING_KEY_LIFETIME_DAYS", run.Error, StringComparison.Ordinal);
        Assert.Empty(_az.Calls);
    }

    [Fact]
    public async Task Run_KeyVaultApiVersion_IsTheOneInfraCompilesAgainst()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "missing"));

        var vaultApiVersion = (string)CompiledInfra.Instance.Resource("keyVault", "Microsoft.KeyVault/vaults")["apiVersion"]!;
        var resourceCalls = _az.Calls.Where(c => c.StartsWith("resource ", StringComparison.Ordinal)).ToList();
        Assert.Equal(0, run.ExitCode);
        Assert.NotEmpty(resourceCalls);
        Assert.All(resourceCalls, c => Assert.Contains($"--api-version {vaultApiVersion}", c, StringComparison.Ordinal));
    }

    [Fact]
    public async Task Run_TwiceWithMissingSecrets_CreatesDifferentKeys()
    {
        await RunAsync(("FAKE_AZ_SHOW", "missing"));
        var first = _az.StoredSecret;
        await RunAsync(("FAKE_AZ_SHOW", "missing"));

        Assert.NotNull(first);
        Assert.NotEqual(first, _az.StoredSecret);
    }

    [Fact]
    public async Task Run_SecretExists_LeavesItUnchanged()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "exists"));

        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("resource create", StringComparison.Ordinal));
        Assert.Contains("already exists", run.Output, StringComparison.Ordinal);
        Assert.Empty(_az.Violations);
    }

    [Fact]
    public async Task Run_SecretSoftDeleted_FailsAndLeavesTheChoiceToAPerson()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "missing"), ("FAKE_AZ_CREATE", "deleted"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("soft-deleted", run.Error, StringComparison.Ordinal);
        Assert.Contains("az keyvault secret recover", run.Error, StringComparison.Ordinal);
        Assert.Null(_az.StoredSecret);
    }

    [Theory]
    [InlineData("forbidden", "AuthorizationFailed")]
    [InlineData("error", "ServiceUnavailable")]
    public async Task Run_CannotCheckTheSecret_FailsWithoutCreating(string show, string reason)
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", show));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains(reason, run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("resource create", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Run_CreateFails_FailsNamingTheError()
    {
        var run = await RunAsync(("FAKE_AZ_SHOW", "missing"), ("FAKE_AZ_CREATE", "error"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("InternalServerError", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_Ed25519SeedMissing_CreatesAWhskPrefixed32ByteSeedWithItsContentType()
    {
        var run = await RunAsync("audit-signing-key", "ed25519-seed", ("FAKE_AZ_SHOW", "missing"));

        Assert.True(run.ExitCode == 0, run.Error);
        var create = Assert.Single(_az.Calls, c => c.StartsWith("resource create ", StringComparison.Ordinal));
        Assert.Contains("--parent vaults/kv-test --resource-type secrets --name audit-signing-key", create, StringComparison.Ordinal);
        var stored = Assert.IsType<string>(_az.StoredSecret);
        Assert.StartsWith("whsk_", stored, StringComparison.Ordinal);
        Assert.Equal(32, Convert.FromBase64String(stored["whsk_".Length..]).Length);
        Assert.Equal("application/x-ed25519-key", (string?)_az.StoredProperties!["contentType"]);
        Assert.True((bool)_az.StoredProperties!["attributes"]!["enabled"]!);
        Assert.DoesNotContain(stored["whsk_".Length..], run.Output + run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(stored["whsk_".Length..], string.Join('\n', _az.Calls), StringComparison.Ordinal);
        Assert.Empty(_az.Violations);
    }

    [Fact]
    public async Task Run_Ed25519SeedExists_LeavesItUnchanged()
    {
        var run = await RunAsync("audit-signing-key", "ed25519-seed", ("FAKE_AZ_SHOW", "exists"));

        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("resource create", StringComparison.Ordinal));
        Assert.Contains("already exists", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_UnknownKeyKind_FailsBeforeLookingOrCreating()
    {
        var run = await RunAsync("audit-signing-key", "rsa", ("FAKE_AZ_SHOW", "missing"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("Unknown key kind 'rsa'", run.Error, StringComparison.Ordinal);
        Assert.Empty(_az.Calls);
    }

    public void Dispose() => _az.Dispose();

    private Task<ScriptRun> RunAsync(string secret, string kind, params (string Name, string Value)[] settings) =>
        ScriptRun.RunAsync("bootstrap-signing-key.sh", _az.Environment(settings), "rg-test", "kv-test", secret, kind);

    private Task<ScriptRun> RunAsync(params (string Name, string Value)[] settings) =>
        ScriptRun.RunAsync("bootstrap-signing-key.sh", _az.Environment(settings), "rg-test", "kv-test", "widget-signing-key");
}
