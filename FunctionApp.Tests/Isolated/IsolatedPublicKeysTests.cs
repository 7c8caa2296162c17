using System.Text;
using System.Text.RegularExpressions;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// <c>GET /api/receivers/{receiver}/jwks</c> through the published isolated app in tools/WorkerHost over a socket, with
/// the sample's receivers (partner-a and default HMAC, partner-c Ed25519): the names that are not Ed25519 receivers
/// cannot be told apart, however the key set's lookup bucket stands when each arrives.
/// </summary>
public sealed partial class IsolatedPublicKeysTests(IsolatedHostFixture fixture) : IClassFixture<IsolatedHostFixture>
{
    [Fact]
    public async Task Jwks_HmacReceiversAndUnknownNamesInterleavedAttack_EveryAnswerOfAStatusByteForByteAlike()
    {
        // Arrange: configured HMAC receivers and names nobody has, in turn, as fast as the socket takes them; the real
        // clock decides which find a token (a 404) and which an empty bucket (a 429).
        string[] names = ["partner-a", "zz-nobody-1", "default", "zz-nobody-2", "partner-b", "zz-nobody-3"];

        // Act
        var answers = new List<(string Name, int Status, string Answer)>();
        for (var round = 0; round < 3; round++)
        {
            foreach (var name in names)
            {
                var (status, answer) = await GetAsync(name);
                answers.Add((name, status, answer));
            }
        }

        // Assert: 404 or 429 only, and one answer per status whatever the name: status line, headers, body.
        Assert.All(answers, a => Assert.Contains(a.Status, new[] { 404, 429 }));
        foreach (var status in answers.GroupBy(a => a.Status))
        {
            var first = status.First();
            Assert.All(status, a => Assert.Equal(first.Answer, a.Answer));
        }

        Assert.All(answers, a => Assert.DoesNotContain(a.Name, a.Answer, StringComparison.Ordinal));
    }

    [Fact]
    public async Task Jwks_Ed25519Receiver_TheSetOverTheSocket()
    {
        // Arrange / Act
        var (status, answer) = await GetAsync("partner-c");

        // Assert
        Assert.Equal(200, status);
        Assert.Contains("\"kty\":\"OKP\"", answer, StringComparison.Ordinal);
        Assert.DoesNotContain("\"d\"", answer, StringComparison.Ordinal);
    }

    // The answer as bytes on the wire would show it, but for Date (the server's clock) and the problem's traceId (one
    // per request by design): every header the client received, in order of name, then the body.
    private async Task<(int Status, string Answer)> GetAsync(string receiver)
    {
        using var response = await fixture.Client.GetAsync(new Uri("/api/receivers/" + receiver + "/jwks", UriKind.Relative));
        var body = await response.Content.ReadAsByteArrayAsync();
        var headers = response.Headers.Concat(response.Content.Headers)
            .Where(h => !h.Key.Equals("Date", StringComparison.OrdinalIgnoreCase))
            .OrderBy(h => h.Key, StringComparer.OrdinalIgnoreCase)
            .Select(h => h.Key.ToLowerInvariant() + ": " + string.Join(", ", h.Value));
        var text = TraceId().Replace(Encoding.UTF8.GetString(body), "\"traceId\":\"<trace>\"");
        return ((int)response.StatusCode, (int)response.StatusCode + "\n" + string.Join("\n", headers) + "\n\n" + text);
    }

    [GeneratedRegex("\"traceId\":\"[^\"]*\"")]
    private static partial Regex TraceId();
}
