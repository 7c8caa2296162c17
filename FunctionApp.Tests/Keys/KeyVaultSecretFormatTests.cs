using System.Text;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Keys;

/// <summary>Secrets that are not base64 of at least 32 bytes are refused, and their values never reach a log line.</summary>
public sealed class KeyVaultSecretFormatTests
{
    public static TheoryData<string, string> BadSecrets => new()
    {
        { "not base64", "do-not-log-me: this is not base64 at all!" },
        { "too short", Convert.ToBase64String(Encoding.ASCII.GetBytes("short-secret-16b")) },
        { "31 bytes", Convert.ToBase64String(Encoding.ASCII.GetBytes("thirty-one-bytes-of-key-material"[..31])) },
    };

    [Theory]
    [MemberData(nameof(BadSecrets))]
    public async Task GetCurrentKeyAsync_OnlyVersionIsBad_RefusedAndUnavailableWithoutLoggingValue(string because, string value)
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var version = harness.Server.SetSecret(KeyVaultHarness.SecretName, value);

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await harness.Source.GetCurrentKeyAsync(CancellationToken.None));

        // Assert
        var refused = Assert.Single(harness.LogsWithEvent(3005));
        Assert.Contains(KeyVaultHarness.SecretName, refused.Message, StringComparison.Ordinal);
        Assert.Contains(version, refused.Message, StringComparison.Ordinal);
        Assert.Single(harness.LogsWithEvent(3004));
        AssertValueAbsent(harness, value, because);
        Assert.DoesNotContain(value, error.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(BadSecrets))]
    public async Task Refresh_NewVersionIsBad_KeepsSigningWithLastGoodKey(string because, string value)
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        var good = harness.Rotate();
        await harness.Source.GetCurrentKeyAsync(CancellationToken.None);
        var bad = harness.Server.SetSecret(KeyVaultHarness.SecretName, value);

        // Act
        await harness.AdvanceToNextRefreshAsync();
        var key = await harness.Source.GetCurrentKeyAsync(CancellationToken.None);

        // Assert
        Assert.Equal(good, key.KeyId);
        Assert.Contains(harness.LogsWithEvent(3005), e => e.Message.Contains(bad, StringComparison.Ordinal));
        Assert.Single(harness.LogsWithEvent(3003));
        AssertValueAbsent(harness, value, because);
    }

    [Fact]
    public async Task Refresh_EarlierVersionIsBad_IsSkippedForVerification()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        const string Value = "also-not-base64-but-secret!";
        var bad = harness.Server.SetSecret(KeyVaultHarness.SecretName, Value);
        var good = harness.Rotate();

        // Act
        var keys = await harness.Source.GetVerificationKeysAsync(CancellationToken.None);

        // Assert
        Assert.Equal([good], keys.Select(k => k.KeyId));
        Assert.Contains(harness.LogsWithEvent(3005), e => e.Message.Contains(bad, StringComparison.Ordinal));
        AssertValueAbsent(harness, Value, "an earlier version");
    }

    [Fact]
    public async Task Logs_GoodKey_NeverContainItsValue()
    {
        // Arrange
        await using var harness = await KeyVaultHarness.StartAsync();
        harness.Server.SetSecret(KeyVaultHarness.SecretName, Vector.KeyBase64);

        // Act
        await harness.Source.GetCurrentKeyAsync(CancellationToken.None);
        harness.Server.Fault = FakeKeyVaultFault.ServerError;
        await harness.AdvanceToNextRefreshAsync();

        // Assert
        Assert.NotEmpty(harness.Logs.Entries);
        AssertValueAbsent(harness, Vector.KeyBase64, "a good key");
    }

    private static void AssertValueAbsent(KeyVaultHarness harness, string value, string because)
    {
        Assert.NotEmpty(harness.Logs.Entries);
        foreach (var text in harness.AllLogText())
        {
            Assert.False(text.Contains(value, StringComparison.Ordinal), $"a log line contains the secret's value ({because}): {text}");
        }
    }
}
