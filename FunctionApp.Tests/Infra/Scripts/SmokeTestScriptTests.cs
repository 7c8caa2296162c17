using System.Security.Cryptography;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// infra/scripts/smoke-test.sh against a loopback fake of /api/sign and /api/verify and a fake az: it passes only for an
/// app that signs with a Key Vault key version and verifies honestly, over HTTP and through the queues, it fetches the
/// function key inside its retry loop, and it uses only what its identity is granted (function keys, message send on
/// the input queue, peek on the output queue), never the vault.
/// </summary>
public sealed class SmokeTestScriptTests : IDisposable
{
    private const string VaultVersion = "0123456789abcdef0123456789abcdef";

    private const string ClientId = "7a1e0000-0000-4000-8000-0000000000a1";

    private readonly FakeAzureCli _az = new();
    private readonly byte[] _vaultKey = RandomNumberGenerator.GetBytes(32);

    [Fact]
    public async Task Run_AppSignsAndVerifiesWithAVaultKey_PassesWithoutReadingTheVault()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app);

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("Smoke test passed", run.Output, StringComparison.Ordinal);
        // sign, verify, tampered envelope, tampered signature, bad JSON, no key, no token, verify of the queue's signature.
        Assert.Equal(8, app.Requests);
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

    [Fact]
    public async Task Run_FunctionKeyNotThereOnTheFirstAttempts_FetchesItAgainInsideTheRetryLoop()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app, ("FAKE_AZ_KEY_FROM_CALL", "3"), ("SMOKE_RETRIES", "3"));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(3, _az.Calls.Count(c => c.StartsWith("functionapp keys list", StringComparison.Ordinal)));
        Assert.Contains("no function key yet", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_FunctionKeyNeverThere_FailsAfterItsRetries()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app, ("FAKE_AZ_KEY_FROM_CALL", "99"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("no default function key on 'func-test' after 2 attempts", run.Error, StringComparison.Ordinal);
        Assert.Equal(0, app.Requests);
    }

    [Fact]
    public async Task Run_BearerToken_SentWithEveryKeyedCallButOne_NeverPrintedNorOnACommandLine()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app, ("FAKE_AZ_FORBIDDEN_TEXT", FakeSignService.AccessToken));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Empty(_az.Violations);
        // Every call with the key carries the token, except the one that checks the app refuses a call without it.
        Assert.Equal(app.KeyedRequests - 1, app.KeyedRequestsWithToken);
        Assert.Contains($"account get-access-token --resource api://{ClientId} --query accessToken --output tsv", _az.Calls);
        Assert.DoesNotContain(FakeSignService.AccessToken, run.Output + run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_AppSignsWithTheKeyButWithoutAToken_Fails()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion, checksCallers: false);

        var run = await RunAsync(app);

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("without a bearer token answered 200, expected 401", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_NoTokenForTheResource_FailsBeforeCallingTheApp()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app, ("FAKE_AZ_ACCESS_TOKEN", string.Empty));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains($"could not get an access token for api://{ClientId}", run.Error, StringComparison.Ordinal);
        Assert.Equal(0, app.Requests);
    }

    [Fact]
    public async Task Run_NoAppIdArgument_TakesTheAppIdUriFromTheAppSettings()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunWithAppIdAsync(app, null, ("FAKE_AZ_APPSETTINGS", $"Auth__Audience\t{ClientId}\nAuth__AppIdUri\tapi://widget-signing"));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains(_az.Calls, c => c.StartsWith("functionapp config appsettings list --resource-group rg-test --name func-test ", StringComparison.Ordinal));
        Assert.Contains("account get-access-token --resource api://widget-signing --query accessToken --output tsv", _az.Calls);
    }

    [Fact]
    public async Task Run_NoAppIdArgumentAndOnlyAnAudienceSetting_AsksForApiClientId()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunWithAppIdAsync(app, null, ("FAKE_AZ_APPSETTINGS", $"Auth__Audience\t{ClientId}\nAuth__AppIdUri\t"));

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains($"account get-access-token --resource api://{ClientId} --query accessToken --output tsv", _az.Calls);
    }

    [Fact]
    public async Task Run_NoAppIdArgumentAndNoAuthSettings_FailsNamingTheSettings()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunWithAppIdAsync(app, null, ("FAKE_AZ_APPSETTINGS", "FUNCTIONS_EXTENSION_VERSION\t~4"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("has neither Auth__AppIdUri nor Auth__Audience", run.Error, StringComparison.Ordinal);
        Assert.Equal(0, app.Requests);
    }

    [Fact]
    public async Task Run_AppIdArgumentNeitherAnApiUriNorAGuid_RefusedBeforeAnyAzCall()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunWithAppIdAsync(app, "api://x --subscription other");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("is neither an app id URI (api://...) nor a client id GUID", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("account get-access-token", StringComparison.Ordinal));
        Assert.Equal(0, app.Requests);
    }

    [Fact]
    public async Task Run_QueuePath_PutsTheEnvelopeAndVerifiesItsForwardedSignature_UsingOnlySendAndPeek()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app);

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(Vector.Load("one-widget").Input, Convert.FromBase64String(_az.PutContent!));
        Assert.Contains("queue message msg-1 came back signed", run.Output, StringComparison.Ordinal);
        // Only what the smoke identity is granted: a token for the app, list the function keys, send to the input
        // queue, peek the output.
        Assert.All(_az.Calls, c => Assert.True(
            c.StartsWith($"account get-access-token --resource api://{ClientId} ", StringComparison.Ordinal)
            || c.StartsWith("functionapp keys list ", StringComparison.Ordinal)
            || c.StartsWith("storage message put --auth-mode login --account-name stdtest --queue-name widget-envelopes ", StringComparison.Ordinal)
            || c.StartsWith("storage message peek --auth-mode login --account-name stdtest --queue-name widget-signatures ", StringComparison.Ordinal),
            $"the smoke test ran 'az {c}', which its identity is not granted"));
        Assert.DoesNotContain(_az.Calls, c => c.Contains("--account-key", StringComparison.Ordinal) || c.Contains("--connection-string", StringComparison.Ordinal) || c.Contains("--sas-token", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Run_QueueForwardsASignatureTheVerifierRefuses_Fails()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app, ("FAKE_AZ_PEEK", Output("msg-1", VaultVersion, new string('0', 64))));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("did not accept the signature forwarded on the queue", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_QueueOutputForAnotherMessageOnly_FailsAfterItsRetries()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app, ("FAKE_AZ_PEEK", Output("someone-else", VaultVersion, Signature(_vaultKey))));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("no output for message msg-1 on queue 'widget-signatures' after 2 attempts", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_QueueSignsWithTheDevelopmentKeyId_Fails()
    {
        using var app = new FakeSignService(_vaultKey, VaultVersion);

        var run = await RunAsync(app, ("FAKE_AZ_PEEK", Output("msg-1", "local", Signature(_vaultKey))));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("the queue output's keyId is 'local'", run.Error, StringComparison.Ordinal);
    }

    public void Dispose() => _az.Dispose();

    private static string Signature(byte[] key) =>
        Convert.ToHexString(HMACSHA256.HashData(key, Vector.Load("one-widget").Canonical)).ToLowerInvariant();

    /// <summary>One output-queue message as the trigger forwards it, base64 as az shows its content.</summary>
    private static string Output(string messageId, string keyId, string signature) =>
        Convert.ToBase64String(System.Text.Encoding.UTF8.GetBytes(
            $$"""{"messageId":"{{messageId}}","dequeueCount":1,"algorithm":"HMACSHA256","keyId":"{{keyId}}","signature":"{{signature}}","widgetCount":1}"""));

    private Task<ScriptRun> RunAsync(FakeSignService app, params (string Name, string Value)[] extra) =>
        RunWithAppIdAsync(app, ClientId, extra);

    /// <summary>The script with <paramref name="appId"/> as its 8th argument, or without one when null.</summary>
    private Task<ScriptRun> RunWithAppIdAsync(FakeSignService app, string? appId, params (string Name, string Value)[] extra) =>
        ScriptRun.RunAsync(
            "smoke-test.sh",
            _az.Environment(
                [
                    ("FAKE_AZ_FUNCTION_KEY", FakeSignService.FunctionKey),
                    ("FAKE_AZ_ACCESS_TOKEN", FakeSignService.AccessToken),
                    ("FAKE_AZ_PEEK", "bm90IGpzb24=\n" + Output("msg-1", VaultVersion, Signature(_vaultKey))),
                    ("SMOKE_RETRIES", "2"),
                    ("SMOKE_RETRY_SECONDS", "0"),
                    .. extra,
                ]),
            [
                app.BaseUrl,
                "rg-test",
                "func-test",
                "FunctionApp.Tests/TestData/vectors",
                "stdtest",
                "widget-envelopes",
                "widget-signatures",
                .. appId is null ? Array.Empty<string>() : [appId],
            ]);
}
