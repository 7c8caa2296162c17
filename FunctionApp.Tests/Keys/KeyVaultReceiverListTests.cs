using System.Text;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Keys;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// Listing receivers pages through Key Vault's own secret list (the real SecretClient against the HTTPS fake vault), and a
/// page token is only ever Key Vault's skip token, sent to this service's own vault: never a link a client chose.
/// </summary>
public sealed class KeyVaultReceiverListTests
{
    [Fact]
    public async Task ListReceiversAsync_SixtyReceiversAndOtherSecrets_EveryReceiverOnceInKeyVaultPages()
    {
        // Arrange: 60 receivers, the default receiver's secret, and secrets that are not receivers'.
        await using var harness = await ReceiverVaultHarness.StartAsync(captureLogs: false);
        var expected = Enumerable.Range(0, 60).Select(i => $"partner-{i:D2}").ToList();
        foreach (var id in expected)
        {
            harness.SetKey(id);
        }

        harness.SetDefaultKey();
        harness.Server.SetSecret("storage-connection", "not a key");
        harness.Server.SetSecret("receiver-Not_An_Id", "not a key");

        // Act
        var listed = new List<string>();
        string? token = null;
        var pages = 0;
        do
        {
            var page = await harness.Source.ListReceiversAsync(token, 25, CancellationToken.None);
            listed.AddRange(page.Receivers.Select(r => r.Value));
            token = page.NextPageToken;
            pages++;
        }
        while (token is not null && pages < 10);

        // Assert: 63 secrets in pages of 25 are three Key Vault calls.
        Assert.Equal(expected.Append(ReceiverOptions.DefaultReceiverId).Order(StringComparer.Ordinal), listed.Order(StringComparer.Ordinal));
        Assert.Equal(3, pages);
        Assert.Equal(3, harness.Server.SecretListReads);
    }

    [Fact]
    public async Task ListReceiversAsync_SmallPageSize_AsksKeyVaultForThatMany()
    {
        // Arrange
        await using var harness = await ReceiverVaultHarness.StartAsync(captureLogs: false);
        foreach (var id in new[] { "a", "b", "c" })
        {
            harness.SetKey(id);
        }

        // Act
        var first = await harness.Source.ListReceiversAsync(null, 2, CancellationToken.None);
        var second = await harness.Source.ListReceiversAsync(first.NextPageToken, 2, CancellationToken.None);

        // Assert
        Assert.Equal(["a", "b"], first.Receivers.Select(r => r.Value));
        Assert.NotNull(first.NextPageToken);
        Assert.Equal(["c"], second.Receivers.Select(r => r.Value));
        Assert.Null(second.NextPageToken);
    }

    [Fact]
    public async Task ListReceiversAsync_LongestReceiverIds_KeyVaultShapedTokensAcceptedBack()
    {
        // Arrange: receivers with 63-character ids, whose skip tokens (carrying the next secret's name) are the longest.
        await using var harness = await ReceiverVaultHarness.StartAsync(captureLogs: false);
        var expected = Enumerable.Range(0, 12).Select(i => $"{i:D2}-" + new string('z', ReceiverId.MaxLength - 3)).ToList();
        foreach (var id in expected)
        {
            harness.SetKey(id);
        }

        // Act
        var listed = new List<string>();
        var tokens = new List<string>();
        string? token = null;
        do
        {
            var page = await harness.Source.ListReceiversAsync(token, 5, CancellationToken.None);
            listed.AddRange(page.Receivers.Select(r => r.Value));
            token = page.NextPageToken;
            if (token is not null)
            {
                tokens.Add(token);
            }
        }
        while (token is not null && tokens.Count < 10);

        // Assert
        Assert.Equal(expected, listed);
        Assert.Equal(2, tokens.Count);
        Assert.All(tokens, t => Assert.InRange(t.Length, 200, SecretListLink.MaxTokenLength));
    }

    public static TheoryData<string> TokensOutsideTheRule()
    {
        var evil = "https://evil.example/secrets?api-version=7.2&$skiptoken=1";
        return new TheoryData<string>
        {
            evil,
            "//evil.example/secrets",
            Uri.EscapeDataString(evil),
            "1&maxresults=25",
            "1#https://evil.example/",
            "1?x=https://evil.example",
            "../../evil",
            "1 2",
            "1\r\nHost: evil.example",
            "user@evil.example",
            "%2F%2Fevil.example",
            new string('A', SecretListLink.MaxTokenLength + 1),
            string.Empty,
        };
    }

    [Theory]
    [MemberData(nameof(TokensOutsideTheRule))]
    public async Task ListReceivers_PageTokenNamingAnotherHost_Refused(string token)
    {
        // Arrange
        await using var harness = await ReceiverVaultHarness.StartAsync(captureLogs: false);
        harness.SetKey("a");

        // Act
        var refused = await Record.ExceptionAsync(() => harness.Source.ListReceiversAsync(token, 25, CancellationToken.None).AsTask());

        // Assert: refused before any request, to the vault or anywhere else.
        Assert.IsType<ArgumentException>(refused);
        Assert.Equal(0, harness.Server.Requests);
        Assert.Empty(harness.Server.HostsSeen);
    }

    [Fact]
    public async Task ListReceivers_WellFormedTokenKeyVaultDidNotHandOut_RefusedAfterAskingOnlyOurVault()
    {
        // Arrange: a token in the rule's characters that is not Key Vault's (here: base64 of another host's link).
        await using var harness = await ReceiverVaultHarness.StartAsync(captureLogs: false);
        harness.SetKey("a");
        var token = Convert.ToBase64String(Encoding.UTF8.GetBytes("https://evil.example/secrets?api-version=7.2"));

        // Act
        var refused = await Record.ExceptionAsync(() => harness.Source.ListReceiversAsync(token, 25, CancellationToken.None).AsTask());

        // Assert: a 400 for the client (never a 5xx), and the only host asked is the configured vault.
        Assert.IsType<ArgumentException>(refused);
        Assert.Equal([harness.Server.VaultUri.Authority], harness.Server.HostsSeen);
    }
}
