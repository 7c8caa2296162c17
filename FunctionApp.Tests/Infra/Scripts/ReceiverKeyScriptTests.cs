using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// infra/scripts/receiver-key.sh against a fake az: a receiver's key is made once, handed over once as whsec_, never
/// on a command line or in a log; staging, revocation and listing touch only the named receiver's secret; every
/// malformed argument stops the script before az runs.
/// </summary>
public sealed partial class ReceiverKeyScriptTests : IDisposable
{
    private const string Vault = "kv-test";
    private const string Receiver = "partner-a";
    private const string Version = "0123456789abcdef0123456789abcdef";
    private readonly FakeAzureCli _az = new();

    [Fact]
    public async Task Add_SecretMissing_PrintsOnceAsWhsecTheRandom32ByteKeyItStored()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, Receiver);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var stored = Assert.IsType<string>(_az.KeyVaultStoredSecret);
        var whsec = Assert.Single(WhsecLine().Matches(run.Output)).Groups["key"].Value;
        Assert.Equal(stored, whsec);
        Assert.Equal(32, Convert.FromBase64String(whsec).Length);
        Assert.Equal(1, Occurrences(run.Output, stored));
        Assert.DoesNotContain(stored, run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(stored, string.Join('\n', _az.Calls), StringComparison.Ordinal);
        Assert.Contains("secure channel", run.Output, StringComparison.Ordinal);
        Assert.Contains("not shown again", run.Output, StringComparison.Ordinal);
        Assert.Empty(_az.Violations);
    }

    [Fact]
    public async Task Add_SecretMissing_SetsTheReceiversSecretFromAPrivateFileItDeletes()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, Receiver);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var set = Assert.Single(_az.Calls, c => c.StartsWith("keyvault secret set ", StringComparison.Ordinal));
        Assert.StartsWith("keyvault secret set --vault-name kv-test --name receiver-partner-a --file ", set, StringComparison.Ordinal);
        Assert.Contains("--encoding utf-8 --content-type application/x-hmac-sha256-key; encoding=base64", set, StringComparison.Ordinal);
        Assert.Contains("--output none", set, StringComparison.Ordinal);
        Assert.Equal("600", _az.KeyVaultValueFileMode);
        Assert.False(File.Exists(Argument(set, "--file")), "the key's temporary file is left behind");
    }

    [Fact]
    public async Task Add_PrefixGiven_NamesTheSecretWithIt()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, Receiver, "--prefix", "rk-");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.All(_az.Calls, c => Assert.Contains("--name rk-partner-a ", c, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData(null, 365)]
    [InlineData("30", 30)]
    public async Task Add_SecretMissing_SetsAnExpiry_SoAnExpirationDatePolicyAdmitsTheKey(string? lifetime, int days)
    {
        // Arrange
        var before = DateTimeOffset.UtcNow.AddSeconds(-1);
        (string, string)[] settings = lifetime is null
            ? [("FAKE_AZ_KV_SHOW", "missing")]
            : [("FAKE_AZ_KV_SHOW", "missing"), ("SIGNING_KEY_LIFETIME_DAYS", lifetime)];

        // Act
        var run = await RunAsync(settings, "add", Vault, Receiver);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var set = Assert.Single(_az.Calls, c => c.StartsWith("keyvault secret set ", StringComparison.Ordinal));
        var expires = DateTimeOffset.Parse(Argument(set, "--expires"), CultureInfo.InvariantCulture);
        Assert.InRange(expires, before.AddDays(days), DateTimeOffset.UtcNow.AddDays(days).AddSeconds(1));
    }

    [Fact]
    public async Task Add_TwoReceivers_GetDifferentKeys()
    {
        // Act
        await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, "partner-a");
        var first = _az.KeyVaultStoredSecret;
        await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, "partner-b");

        // Assert
        Assert.NotNull(first);
        Assert.NotEqual(first, _az.KeyVaultStoredSecret);
    }

    [Theory]
    [InlineData("exists")]
    [InlineData("disabled")]
    public async Task Add_SecretExists_RefusesAndLeavesItUnchanged(string show)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", show)], "add", Vault, Receiver);

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("already exists", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("keyvault secret set", StringComparison.Ordinal));
        Assert.DoesNotContain("whsec_", run.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("forbidden", "ForbiddenByRbac")]
    [InlineData("error", "ServiceUnavailable")]
    public async Task Add_CannotCheckTheSecret_FailsWithoutSetting(string show, string reason)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", show)], "add", Vault, Receiver);

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("could not check", run.Error, StringComparison.Ordinal);
        Assert.Contains(reason, run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("keyvault secret set", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Add_SecretSoftDeleted_FailsPointingAtRecoverAndPrintsNoKey()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing"), ("FAKE_AZ_KV_SET", "deleted")], "add", Vault, Receiver);

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("soft-deleted", run.Error, StringComparison.Ordinal);
        Assert.Contains("az keyvault secret recover", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("whsec_", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Add_SetFails_FailsNamingTheErrorAndPrintsNoKey()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing"), ("FAKE_AZ_KV_SET", "error")], "add", Vault, Receiver);

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("InternalServerError", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("whsec_", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Stage_FutureDate_AddsAVersionWithThatNotBeforeAndPrintsItsKeyOnce()
    {
        // Arrange
        var notBefore = DateTimeOffset.UtcNow.AddDays(7).ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture);

        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], "stage", Vault, Receiver, "--not-before", notBefore);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var set = Assert.Single(_az.Calls, c => c.StartsWith("keyvault secret set ", StringComparison.Ordinal));
        Assert.Equal(notBefore, Argument(set, "--not-before"));
        var expires = DateTimeOffset.Parse(Argument(set, "--expires"), CultureInfo.InvariantCulture);
        Assert.Equal(DateTimeOffset.Parse(notBefore, CultureInfo.InvariantCulture).AddDays(365), expires);
        var stored = Assert.IsType<string>(_az.KeyVaultStoredSecret);
        Assert.Equal(stored, Assert.Single(WhsecLine().Matches(run.Output)).Groups["key"].Value);
        Assert.DoesNotContain(stored, string.Join('\n', _az.Calls), StringComparison.Ordinal);
        Assert.Contains("must accept both", run.Output, StringComparison.Ordinal);
        Assert.Empty(_az.Violations);
    }

    [Fact]
    public async Task Stage_PastDate_RefusedWithoutCallingAz()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], "stage", Vault, Receiver, "--not-before", "2020-01-01T00:00:00Z");

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("--not-before must be in the future", run.Error, StringComparison.Ordinal);
        Assert.Empty(_az.Calls);
    }

    [Fact]
    public async Task Stage_SecretMissing_RefusesPointingAtAdd()
    {
        // Arrange
        var notBefore = DateTimeOffset.UtcNow.AddDays(7).ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture);

        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "stage", Vault, Receiver, "--not-before", notBefore);

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("use add", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("keyvault secret set", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Revoke_Version_DisablesThatVersionOfTheReceiversSecret()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], "revoke", Vault, Receiver, "--version", Version);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var call = Assert.Single(_az.Calls);
        Assert.Equal($"keyvault secret set-attributes --vault-name kv-test --name receiver-partner-a --version {Version} --enabled false --output none", call);
    }

    [Fact]
    public async Task List_Versions_PrintsEachVersionsStateAndNoValue()
    {
        // Arrange
        var versions = $"https://kv-test.vault.azure.net/secrets/receiver-partner-a/{Version}\tFalse\tNone\t2027-01-01T00:00:00+00:00\t2026-01-01T00:00:00+00:00";

        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists"), ("FAKE_AZ_KV_VERSIONS", versions)], "list", Vault, Receiver);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var call = Assert.Single(_az.Calls);
        Assert.StartsWith("keyvault secret list-versions --vault-name kv-test --name receiver-partner-a ", call, StringComparison.Ordinal);
        Assert.DoesNotContain("value", call, StringComparison.Ordinal);
        Assert.Matches($@"(?m)^{Version}\s+False\s+none\s+2027-01-01T00:00:00\+00:00\s+2026-01-01", run.Output);
    }

    [Theory]
    [InlineData("../x")]
    [InlineData("a/versions/b")]
    [InlineData("A")]
    [InlineData("-a")]
    [InlineData("a-")]
    [InlineData("")]
    [InlineData("a b")]
    [InlineData("a\nb")]
    [InlineData("partner-a --prefix x")]
    [InlineData("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")]
    public async Task Add_ReceiverIdWithPathTrick_Refused(string receiver)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, receiver);

        // Assert
        AssertRefusedNaming(run, "receiver-id");
    }

    [Theory]
    [InlineData("kv")]
    [InlineData("kv-aaaaaaaaaaaaaaaaaaaaaaa")]
    [InlineData("1kv")]
    [InlineData("kv-")]
    [InlineData("kv--test")]
    [InlineData("kv.evil.example")]
    [InlineData("kv/secrets")]
    [InlineData("-kv")]
    public async Task Add_VaultNameMalformed_Refused(string vault)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", vault, Receiver);

        // Assert
        AssertRefusedNaming(run, "vault-name");
    }

    [Theory]
    [InlineData("")]
    [InlineData("Receiver-")]
    [InlineData("receiver/")]
    [InlineData("receiver_")]
    [InlineData("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")]
    public async Task Add_PrefixMalformed_Refused(string prefix)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, Receiver, "--prefix", prefix);

        // Assert
        AssertRefusedNaming(run, "--prefix");
    }

    [Theory]
    [InlineData("latest")]
    [InlineData("0123456789abcdef0123456789abcde")]
    [InlineData("0123456789abcdef0123456789abcdef0")]
    [InlineData("0123456789abcdefg123456789abcdef")]
    [InlineData("../0123456789abcdef0123456789abcdef")]
    [InlineData("")]
    public async Task Revoke_VersionMalformed_Refused(string version)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], "revoke", Vault, Receiver, "--version", version);

        // Assert
        AssertRefusedNaming(run, "--version");
    }

    [Fact]
    public async Task Revoke_VersionMissing_Refused()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], "revoke", Vault, Receiver);

        // Assert
        AssertRefusedNaming(run, "--version");
    }

    [Theory]
    [InlineData("2030-13-01T00:00:00Z")]
    [InlineData("2030-02-30T00:00:00Z")]
    [InlineData("2030-01-01T24:00:00Z")]
    [InlineData("2030-01-01")]
    [InlineData("2030-01-01T00:00:00+01:00")]
    [InlineData("2030-01-01T00:00:00")]
    [InlineData("tomorrow")]
    [InlineData("$(id)")]
    [InlineData("")]
    [InlineData("9999-01-01T00:00:00Z")]
    public async Task Stage_NotBeforeMalformedOrTooFarAhead_Refused(string notBefore)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], "stage", Vault, Receiver, "--not-before", notBefore);

        // Assert
        AssertRefusedNaming(run, "--not-before");
    }

    [Fact]
    public async Task Stage_NotBeforeMissing_Refused()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], "stage", Vault, Receiver);

        // Assert
        AssertRefusedNaming(run, "--not-before");
    }

    [Theory]
    [InlineData("0")]
    [InlineData("-5")]
    [InlineData("ten")]
    public async Task Add_LifetimeNotADayCount_Refused(string lifetime)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing"), ("SIGNING_KEY_LIFETIME_DAYS", lifetime)], "add", Vault, Receiver);

        // Assert
        AssertRefusedNaming(run, "SIGNING_KEY_LIFETIME_DAYS");
    }

    [Theory]
    [InlineData("delete", "kv-test", "partner-a")]
    [InlineData("add", "kv-test")]
    [InlineData("add", "kv-test", "partner-a", "partner-b")]
    [InlineData("add", "kv-test", "partner-a", "--value", "x")]
    [InlineData("add", "kv-test", "partner-a", "--not-before", "2030-01-01T00:00:00Z")]
    [InlineData("list", "kv-test", "partner-a", "--version", "0123456789abcdef0123456789abcdef")]
    [InlineData("add", "kv-test", "partner-a", "--prefix")]
    public async Task Run_UnknownCommandOrOptionOrWrongArgumentCount_RefusedWithoutCallingAz(params string[] arguments)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], arguments);

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.NotEqual(string.Empty, run.Error.Trim());
        Assert.Empty(_az.Calls);
    }

    [Fact]
    public async Task Add_SchemeEd25519_StoresAWhskSeedAndPrintsOnlyItsPublicKey()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, Receiver, "--scheme", "ed25519");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var stored = Assert.IsType<string>(_az.KeyVaultStoredSecret);
        Assert.Matches("^whsk_[A-Za-z0-9+/]{43}=$", stored);
        var seed = Convert.FromBase64String(stored["whsk_".Length..]);
        Assert.Equal(32, seed.Length);
        var whpk = Assert.Single(WhpkLine().Matches(run.Output)).Groups["key"].Value;
        Assert.Equal(await PublicKeyOfAsync(seed), whpk);
        var seedText = stored["whsk_".Length..];
        Assert.DoesNotContain(seedText, run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(seedText, run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(seedText, string.Join('\n', _az.Calls), StringComparison.Ordinal);
        Assert.DoesNotContain("whsk_", run.Output + run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("whsec_", run.Output, StringComparison.Ordinal);
        Assert.Contains("not secret", run.Output, StringComparison.Ordinal);
        Assert.Contains("/api/receivers/partner-a/jwks", run.Output, StringComparison.Ordinal);
        Assert.Empty(_az.Violations);
    }

    [Fact]
    public async Task Add_SchemeEd25519_SetsTheEd25519ContentTypeFromAPrivateFileItDeletes()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, Receiver, "--scheme", "ed25519");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var set = Assert.Single(_az.Calls, c => c.StartsWith("keyvault secret set ", StringComparison.Ordinal));
        Assert.StartsWith("keyvault secret set --vault-name kv-test --name receiver-partner-a --file ", set, StringComparison.Ordinal);
        Assert.Contains("--encoding utf-8 --content-type application/x-ed25519-key; encoding=whsk --expires ", set, StringComparison.Ordinal);
        Assert.Equal("600", _az.KeyVaultValueFileMode);
        var file = Argument(set, "--file");
        Assert.False(File.Exists(file), "the key's temporary file is left behind");
        Assert.False(Directory.Exists(Path.GetDirectoryName(file)), "the key's temporary directory is left behind");
    }

    [Fact]
    public async Task Add_SchemeHmac_StoresAndPrintsAWhsecKeyAsWithoutTheOption()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, Receiver, "--scheme", "hmac");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var set = Assert.Single(_az.Calls, c => c.StartsWith("keyvault secret set ", StringComparison.Ordinal));
        Assert.Contains("--content-type application/x-hmac-sha256-key; encoding=base64 ", set, StringComparison.Ordinal);
        Assert.Equal(_az.KeyVaultStoredSecret, Assert.Single(WhsecLine().Matches(run.Output)).Groups["key"].Value);
        Assert.DoesNotContain("whpk_", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Stage_SchemeEd25519_AddsAVersionWithThatNotBeforeAndSaysItIsPublishedAtOnce()
    {
        // Arrange
        var notBefore = DateTimeOffset.UtcNow.AddDays(7).ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture);

        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], "stage", Vault, Receiver, "--not-before", notBefore, "--scheme", "ed25519");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var set = Assert.Single(_az.Calls, c => c.StartsWith("keyvault secret set ", StringComparison.Ordinal));
        Assert.Equal(notBefore, Argument(set, "--not-before"));
        Assert.Contains("--content-type application/x-ed25519-key; encoding=whsk ", set, StringComparison.Ordinal);
        var stored = Assert.IsType<string>(_az.KeyVaultStoredSecret);
        var whpk = Assert.Single(WhpkLine().Matches(run.Output)).Groups["key"].Value;
        Assert.Equal(await PublicKeyOfAsync(Convert.FromBase64String(stored["whsk_".Length..])), whpk);
        Assert.DoesNotContain("whsk_", run.Output + run.Error, StringComparison.Ordinal);
        Assert.Contains("published in the key set", run.Output, StringComparison.Ordinal);
        Assert.Contains("signs from its not-before", run.Output, StringComparison.Ordinal);
        Assert.Empty(_az.Violations);
    }

    [Theory]
    [InlineData(-5)]
    [InlineData(5)]
    [InlineData(19)]
    [InlineData(24)]
    [InlineData(29)]
    public async Task Stage_SchemeEd25519NotBeforeTooSoon_RefusedNamingNotBeforeWithoutCallingAz(int minutes)
    {
        // Arrange
        var notBefore = DateTimeOffset.UtcNow.AddMinutes(minutes).ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture);

        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], "stage", Vault, Receiver, "--scheme", "ed25519", "--not-before", notBefore);

        // Assert
        AssertRefusedNaming(run, "--not-before");
        Assert.DoesNotContain("whpk_", run.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("rsa")]
    [InlineData("HMAC")]
    [InlineData("Ed25519")]
    [InlineData("ed25519 ")]
    [InlineData("")]
    public async Task Add_SchemeUnknown_RefusedNamingScheme(string scheme)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "missing")], "add", Vault, Receiver, "--scheme", scheme);

        // Assert
        AssertRefusedNaming(run, "--scheme");
    }

    [Theory]
    [InlineData("revoke", "--version", Version)]
    [InlineData("list")]
    public async Task Run_SchemeOnRevokeOrList_RefusedNamingSchemeWithoutCallingAz(string command, params string[] options)
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_KV_SHOW", "exists")], [command, Vault, Receiver, .. options, "--scheme", "hmac"]);

        // Assert
        AssertRefusedNaming(run, "--scheme");
    }

    public void Dispose() => _az.Dispose();

    [GeneratedRegex(@"^whsec_(?<key>[A-Za-z0-9+/=]+)$", RegexOptions.Multiline)]
    private static partial Regex WhsecLine();

    [GeneratedRegex(@"^whpk_(?<key>[A-Za-z0-9+/=]+)$", RegexOptions.Multiline)]
    private static partial Regex WhpkLine();

    /// <summary>
    /// The base64 Ed25519 public key of <paramref name="seed"/>, derived by Node's crypto (not openssl, which made it),
    /// the seed passed in the environment rather than on node's command line.
    /// </summary>
    private static async Task<string> PublicKeyOfAsync(byte[] seed)
    {
        var start = new ProcessStartInfo("node")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add("-e");
        start.ArgumentList.Add("""
            const crypto = require('crypto');
            const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(process.env.SEED, 'base64')]);
            const key = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
            process.stdout.write(crypto.createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'));
            """);
        start.Environment["SEED"] = Convert.ToBase64String(seed);
        var run = await ExternalTool.RunAsync(start, "node");
        Assert.True(run.ExitCode == 0, run.Error);
        return run.Output;
    }

    private static int Occurrences(string text, string value) =>
        (text.Length - text.Replace(value, string.Empty, StringComparison.Ordinal).Length) / value.Length;

    /// <summary>The word after <paramref name="option"/> in a recorded az command line.</summary>
    private static string Argument(string call, string option)
    {
        var words = call.Split(' ');
        return words[Array.IndexOf(words, option) + 1];
    }

    private void AssertRefusedNaming(ScriptRun run, string argument)
    {
        Assert.Equal(1, run.ExitCode);
        Assert.Contains(argument, run.Error, StringComparison.Ordinal);
        Assert.Empty(_az.Calls);
        Assert.DoesNotContain("whsec_", run.Output, StringComparison.Ordinal);
    }

    private Task<ScriptRun> RunAsync((string Name, string Value)[] settings, params string[] arguments) =>
        ScriptRun.RunAsync("receiver-key.sh", _az.Environment(settings), arguments);
}
