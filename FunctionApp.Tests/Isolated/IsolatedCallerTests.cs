using System.Diagnostics;
using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using WidgetSigning.Audit;
using WidgetSigning.Callers;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Callers end to end, over a socket, through the published isolated app with authentication on: tokens of a local
/// OpenID issuer, grants in Azurite, and the audit record (event 7001) each call leaves in the host's output.
/// </summary>
public sealed class IsolatedCallerTests(IsolatedCallerFixture fixture) : IClassFixture<IsolatedCallerFixture>
{
    private const string Unauthenticated = "urn:widget-signing:problem:unauthenticated";
    private const string RoleRequired = "urn:widget-signing:problem:role-required";
    private const string ReceiverNotGranted = "urn:widget-signing:problem:receiver-not-granted";
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task Sign_NoToken_Is401UnauthenticatedWithABearerChallenge()
    {
        // Act
        using var response = await SignAsync(token: null);
        var problem = await ProblemAsync(response);

        // Assert
        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        Assert.Equal(Unauthenticated, (string?)problem["type"]);
        var challenge = Assert.Single(response.Headers.WwwAuthenticate);
        Assert.Equal("Bearer", challenge.Scheme);
        Assert.DoesNotContain("error=", challenge.Parameter ?? string.Empty, StringComparison.Ordinal);
        Assert.False(response.Headers.Contains("X-Signature"));
    }

    [Fact]
    public async Task Sign_ExpiredToken_Is401Unauthenticated()
    {
        // Arrange
        var now = DateTime.UtcNow;
        var token = fixture.Issuer.Mint(new TokenSpec { NotBefore = now.AddMinutes(-70), Expires = now.AddMinutes(-10) });

        // Act
        using var response = await SignAsync(token);
        var problem = await ProblemAsync(response);

        // Assert
        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        Assert.Equal(Unauthenticated, (string?)problem["type"]);
        Assert.Contains("invalid_token", Assert.Single(response.Headers.WwwAuthenticate).Parameter, StringComparison.Ordinal);
        Assert.DoesNotContain(token.Split('.')[1], problem.ToString() + response.Headers.WwwAuthenticate, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("alg-none", 401)]
    [InlineData("other-issuer-key", 401)]
    [InlineData("twenty-kilobytes", 401)]
    [InlineData("forty-kilobytes", 431)]
    public async Task Sign_ForgedOrOversizedToken_Is4xxAndNothingSigned(string attack, int status)
    {
        // Arrange: a token over the app's 16 KiB bound but under the host's 32 KB header block reaches the app (401);
        // one over the host's limit is refused by the host's Kestrel (431) before the app sees it.
        await using var other = await TestIssuer.StartAsync();
        var token = attack switch
        {
            "alg-none" => fixture.Issuer.MintUnsigned(),
            "twenty-kilobytes" => fixture.Issuer.Mint(new TokenSpec { Claims = { ["padding"] = new string('p', 20 * 1024) } }),
            "forty-kilobytes" => fixture.Issuer.Mint(new TokenSpec { Claims = { ["padding"] = new string('p', 40 * 1024) } }),
            _ => other.Mint(new TokenSpec { Claims = { ["iss"] = fixture.Issuer.Authority } }),
        };

        // Act
        using var response = await SignAsync(token, "?receiver=" + IsolatedCallerFixture.GrantedReceiver);

        // Assert
        Assert.Equal(status, (int)response.StatusCode);
        Assert.False(response.Headers.Contains("X-Signature"));
        if (status == 401)
        {
            Assert.Equal(Unauthenticated, (string?)(await ProblemAsync(response))["type"]);
        }
    }

    [Theory]
    [InlineData("X-MS-CLIENT-PRINCIPAL", "eyJhdXRoX3R5cCI6ImFhZCIsImNsYWltcyI6W3sidHlwIjoicm9sZXMiLCJ2YWwiOiJXaWRnZXRzLlNpZ24ifV19")]
    [InlineData("X-MS-CLIENT-PRINCIPAL-ID", "7a1e0000-0000-4000-8000-00000000000c")]
    public async Task Sign_ForgedPlatformPrincipalHeaderWithoutToken_Is401NamingTheHeader(string header, string value)
    {
        // Act: the isolated app with no App Service Authentication in front (WEBSITE_AUTH_ENABLED unset).
        using var response = await SignAsync(token: null, configure: r => r.Headers.TryAddWithoutValidation(header, value));
        var problem = await ProblemAsync(response);

        // Assert
        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        Assert.Equal(Unauthenticated, (string?)problem["type"]);
        Assert.Contains("X-MS-CLIENT-PRINCIPAL", (string?)problem["detail"], StringComparison.Ordinal);
        Assert.DoesNotContain(value, problem.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Sign_ForgedPlatformPrincipalBesideAValidToken_Is401AndNothingSigned()
    {
        // Act: a valid token, and a principal a client made up riding along with it.
        using var response = await SignAsync(fixture.Issuer.Mint(), "?receiver=" + IsolatedCallerFixture.GrantedReceiver, configure: r => r.Headers.TryAddWithoutValidation("X-MS-CLIENT-PRINCIPAL", "e30="));

        // Assert
        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        Assert.False(response.Headers.Contains("X-Signature"));
    }

    [Fact]
    public async Task Sign_TwoAuthorizationHeadersOverASocket_Is401()
    {
        // Arrange: two header lines, each a valid token allowed to sign for the receiver, written on a raw socket (an
        // HttpClient joins a header's values into one line); the host may pass them on as two values or as one joined
        // line, and either must be refused by name.
        var vector = Vector.All().First(v => !v.Reject);
        var head = $"POST /api/sign?receiver={IsolatedCallerFixture.GrantedReceiver} HTTP/1.1\r\n" +
            $"Host: {fixture.Host.BaseAddress.Authority}\r\n" +
            $"Authorization: Bearer {fixture.Issuer.Mint()}\r\n" +
            $"Authorization: Bearer {fixture.Issuer.Mint()}\r\n" +
            $"Content-Type: application/json\r\nContent-Length: {vector.Input.Length}\r\nConnection: close\r\n\r\n";

        // Act
        using var socket = new System.Net.Sockets.TcpClient();
        await socket.ConnectAsync(fixture.Host.BaseAddress.Host, fixture.Host.BaseAddress.Port);
        var stream = socket.GetStream();
        await stream.WriteAsync(System.Text.Encoding.ASCII.GetBytes(head));
        await stream.WriteAsync(vector.Input);
        using var reader = new StreamReader(stream, System.Text.Encoding.UTF8);
        var response = await reader.ReadToEndAsync().WaitAsync(Patience);

        // Assert
        Assert.StartsWith("HTTP/1.1 401 ", response, StringComparison.Ordinal);
        Assert.Contains(Unauthenticated, response, StringComparison.Ordinal);
        Assert.True(response.Contains("more than one Authorization header", StringComparison.Ordinal), response);
        Assert.DoesNotContain("X-Signature:", response, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task Sign_VerifyOnlyToken_Is403RoleRequiredNamingWidgetsSign()
    {
        // Arrange
        var token = fixture.Issuer.Mint(null, AppRoles.Verify);

        // Act
        using var response = await SignAsync(token);
        var problem = await ProblemAsync(response);

        // Assert
        Assert.Equal(HttpStatusCode.Forbidden, response.StatusCode);
        Assert.Equal(RoleRequired, (string?)problem["type"]);
        Assert.Contains(AppRoles.Sign, (string?)problem["detail"], StringComparison.Ordinal);
        Assert.False(response.Headers.Contains("X-Signature"));
    }

    [Fact]
    public async Task Sign_GrantedReceiver_200AndTheSignatureVerifiesAndTheAuditRecordCarriesTheCanonicalSha256()
    {
        // Arrange
        var vector = Vector.All().First(v => !v.Reject);
        var mark = fixture.Host.Output.Length;

        // Act
        using var response = await SignAsync(fixture.Issuer.Mint(), "?output=canonical&receiver=" + IsolatedCallerFixture.GrantedReceiver, vector.Input);
        var canonical = await response.Content.ReadAsByteArrayAsync();

        // Assert: the signature is HMAC-SHA256 of the canonical bytes under the receiver's key.
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(vector.Canonical, canonical);
        Assert.Equal(Convert.ToHexString(HMACSHA256.HashData(Vector.Key, canonical)), Header(response, "X-Signature"), ignoreCase: true);
        var webhookId = Header(response, "webhook-id");
        var record = await AuditLineAsync(mark, webhookId);
        Assert.Contains("Audit sign signed 200", record, StringComparison.Ordinal);
        Assert.Contains($"SHA-256 {Convert.ToHexString(SHA256.HashData(canonical)).ToLowerInvariant()}", record, StringComparison.Ordinal);
        Assert.Contains($"caller {TestIssuer.CallerObjectId}", record, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Sign_ReceiverNotGrantedAndReceiverThatDoesNotExist_Are403AlikeSayingNothingOfExistence()
    {
        // Arrange: partner-a exists (it has a key) but is not granted; no-such-receiver does not exist at all.
        var token = fixture.Issuer.Mint();

        // Act
        using var existing = await SignAsync(token, "?receiver=partner-a");
        using var missing = await SignAsync(token, "?receiver=no-such-receiver");
        var existingProblem = await ProblemAsync(existing);
        var missingProblem = await ProblemAsync(missing);

        // Assert: the same status, type and words, but for the name the caller sent.
        Assert.Equal(HttpStatusCode.Forbidden, existing.StatusCode);
        Assert.Equal(HttpStatusCode.Forbidden, missing.StatusCode);
        Assert.Equal(ReceiverNotGranted, (string?)existingProblem["type"]);
        Assert.Equal(ReceiverNotGranted, (string?)missingProblem["type"]);
        Assert.Contains("'partner-a'", (string?)existingProblem["detail"], StringComparison.Ordinal);
        Assert.Equal(
            ((string?)existingProblem["detail"])!.Replace("partner-a", "X", StringComparison.Ordinal),
            ((string?)missingProblem["detail"])!.Replace("no-such-receiver", "X", StringComparison.Ordinal));
        Assert.Equal((string?)existingProblem["title"], (string?)missingProblem["title"]);
        Assert.False(existing.Headers.Contains("X-Signature"));
    }

    [Fact]
    public async Task Sign_RefusedCall_LeavesAnAuditRecordWithOutcomeRefused()
    {
        // Arrange: a caller with a valid token and no grants at all (an object id of its own, so the record is its).
        var oid = Guid.NewGuid().ToString("D");
        var token = fixture.Issuer.Mint(new TokenSpec { Claims = { ["oid"] = oid } });
        var mark = fixture.Host.Output.Length;

        // Act
        using var response = await SignAsync(token, "?receiver=partner-b");
        var record = await AuditLineAsync(mark, $"caller {oid}");

        // Assert
        Assert.Equal(HttpStatusCode.Forbidden, response.StatusCode);
        Assert.Contains($"Audit sign refused 403 {ReceiverNotGranted}", record, StringComparison.Ordinal);
        Assert.Contains("receivers partner-b", record, StringComparison.Ordinal);
        Assert.DoesNotContain(token.Split('.')[1], fixture.Host.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Sign_UnauthenticatedCall_LeavesAnAuditRecordWithOutcomeRefusedAndTheProblemsTraceId()
    {
        // Arrange
        var mark = fixture.Host.Output.Length;

        // Act: the client sees a traceId in the problem; the operator finds the call's record by it.
        using var response = await SignAsync(token: null);
        var traceId = (string?)(await ProblemAsync(response))["traceId"];
        Assert.False(string.IsNullOrEmpty(traceId));
        var record = await AuditLineAsync(mark, $"trace {traceId}");

        // Assert
        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        Assert.Contains($"Audit sign refused 401 {Unauthenticated}", record, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("sign", "POST", "/api/sign?receiver=default", AppRoles.Verify)]
    [InlineData("verify", "POST", "/api/verify?receiver=default", AppRoles.Sign)]
    [InlineData("keys", "GET", "/api/keys", AppRoles.Sign)]
    public async Task RoleRequired_ValidTokenWithoutTheEndpointsRole_AuditRecordNamesTheCaller(string operation, string method, string path, string role)
    {
        // Arrange: a caller of its own, so the record found is this call's.
        var oid = Guid.NewGuid().ToString("D");
        var token = fixture.Issuer.Mint(new TokenSpec { Claims = { ["oid"] = oid } }, role);
        var mark = fixture.Host.Output.Length;

        // Act
        using var response = await SendAsync(method, path, token, configure: r => r.Headers.Add("X-Signature", new string('0', 64)));
        var record = await AuditLineAsync(mark, $"caller {oid}", operation);

        // Assert: the caller probing for a right it lacks is named, with its app and tenant.
        Assert.Equal(HttpStatusCode.Forbidden, response.StatusCode);
        Assert.Contains($"Audit {operation} refused 403 {RoleRequired}", record, StringComparison.Ordinal);
        Assert.Contains($"app {TestIssuer.CallerAppId} tenant {TestIssuer.TenantId}", record, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("POST", "/api/verify?receiver=")]
    [InlineData("GET", "/api/keys?receiver=")]
    public async Task VerifyAndKeys_ReceiverNotGrantedAndReceiverThatDoesNotExist_Are403AlikeSayingNothingOfExistence(string method, string path)
    {
        // Arrange: partner-a exists (it has a key) but is not granted; no-such-receiver does not exist at all.
        var token = fixture.Issuer.Mint(null, AppRoles.Verify, AppRoles.KeysRead);

        // Act
        using var existing = await SendAsync(method, path + "partner-a", token, configure: r => r.Headers.Add("X-Signature", new string('0', 64)));
        using var missing = await SendAsync(method, path + "no-such-receiver", token, configure: r => r.Headers.Add("X-Signature", new string('0', 64)));
        var existingProblem = await ProblemAsync(existing);
        var missingProblem = await ProblemAsync(missing);

        // Assert: the same status, type and words as sign gives, but for the name the caller sent.
        Assert.Equal(HttpStatusCode.Forbidden, existing.StatusCode);
        Assert.Equal(HttpStatusCode.Forbidden, missing.StatusCode);
        Assert.Equal(ReceiverNotGranted, (string?)existingProblem["type"]);
        Assert.Equal(ReceiverNotGranted, (string?)missingProblem["type"]);
        Assert.Equal(
            ((string?)existingProblem["detail"])!.Replace("partner-a", "X", StringComparison.Ordinal),
            ((string?)missingProblem["detail"])!.Replace("no-such-receiver", "X", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Keys_ListWithoutReadAll_ShowsOnlyTheCallersGrantedReceivers()
    {
        // Arrange: the default caller is granted "default" only; partner-a and partner-b have keys too.
        var token = fixture.Issuer.Mint(null, AppRoles.KeysRead);

        // Act
        using var response = await SendAsync("GET", "/api/keys", token);
        var list = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal([IsolatedCallerFixture.GrantedReceiver], list["receivers"]!.Select(r => (string?)r["receiver"]));
        Assert.Equal(JTokenType.Null, list["nextPageToken"]!.Type);
    }

    [Fact]
    public async Task Keys_ListOfGrantedReceiversByPages_WalksEachOnceAndRefusesATokenNotHandedOut()
    {
        // Arrange: a caller granted three receivers, one of which has no key.
        var oid = Guid.NewGuid().ToString("D");
        await fixture.GrantAsync(oid, "partner-b", "no-key-yet", "partner-a");
        var token = fixture.Issuer.Mint(new TokenSpec { Claims = { ["oid"] = oid } }, AppRoles.KeysRead);
        var seen = new List<string?>();
        string? next = null;

        // Act
        do
        {
            using var page = await SendAsync("GET", "/api/keys?pageSize=2" + (next is null ? string.Empty : "&pageToken=" + next), token);
            Assert.Equal(HttpStatusCode.OK, page.StatusCode);
            var list = JObject.Parse(await page.Content.ReadAsStringAsync());
            seen.AddRange(list["receivers"]!.Select(r => (string?)r["receiver"]));
            next = (string?)list["nextPageToken"];
        }
        while (next is not null && seen.Count < 10);
        using var forged = await SendAsync("GET", "/api/keys?pageToken=default", token);

        // Assert: in ordinal order, each once; a token naming a receiver not granted is not one this service handed out.
        Assert.Equal(["no-key-yet", "partner-a", "partner-b"], seen);
        Assert.Equal(HttpStatusCode.BadRequest, forged.StatusCode);
    }

    [Fact]
    public async Task Keys_ListWithReadAll_ShowsEveryReceiver()
    {
        // Arrange: the operator role of its own widens the list to every receiver with a key.
        var token = fixture.Issuer.Mint(null, AppRoles.KeysRead, AppRoles.KeysReadAll);

        // Act
        using var response = await SendAsync("GET", "/api/keys", token);
        var list = JObject.Parse(await response.Content.ReadAsStringAsync());

        // Assert
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Superset(new HashSet<string?> { "default", "partner-a", "partner-b" }, list["receivers"]!.Select(r => (string?)r["receiver"]).ToHashSet());
    }

    private async Task<HttpResponseMessage> SendAsync(string method, string path, string? token, Action<HttpRequestMessage>? configure = null)
    {
        var request = new HttpRequestMessage(new HttpMethod(method), path);
        if (method == "POST")
        {
            request.Content = new ByteArrayContent("{\"widgets\":[]}"u8.ToArray()) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } };
        }

        if (token is not null)
        {
            request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        }

        configure?.Invoke(request);
        return await fixture.Client.SendAsync(request);
    }

    private async Task<HttpResponseMessage> SignAsync(string? token, string query = "", byte[]? body = null, Action<HttpRequestMessage>? configure = null)
    {
        var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign" + query)
        {
            Content = new ByteArrayContent(body ?? "{\"widgets\":[]}"u8.ToArray()) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } },
        };
        if (token is not null)
        {
            request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        }

        configure?.Invoke(request);
        return await fixture.Client.SendAsync(request);
    }

    private static async Task<JObject> ProblemAsync(HttpResponseMessage response)
    {
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        return JObject.Parse(await response.Content.ReadAsStringAsync());
    }

    private static string Header(HttpResponseMessage response, string name) =>
        string.Join(",", response.Headers.GetValues(name));

    /// <summary>The audit record (event 7001) logged after <paramref name="mark"/> that contains <paramref name="text"/>.</summary>
    private async Task<string> AuditLineAsync(int mark, string text, string operation = "sign")
    {
        var waited = Stopwatch.StartNew();
        while (true)
        {
            var line = fixture.Host.Output[mark..].Split('\n').FirstOrDefault(l => l.Contains(AuditLog.Category + ": Audit " + operation, StringComparison.Ordinal) && l.Contains(text, StringComparison.Ordinal));
            if (line is not null)
            {
                return line;
            }

            if (waited.Elapsed > Patience)
            {
                throw new Xunit.Sdk.XunitException($"no audit record with '{text}' in the host's output:\n{fixture.Host.Output[mark..]}");
            }

            await Task.Delay(50);
        }
    }
}
