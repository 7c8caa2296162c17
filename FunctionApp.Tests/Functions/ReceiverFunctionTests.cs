using System.Security.Cryptography;
using System.Text;
using FunctionApp.Functions;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using WidgetSigning.Http;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// One key per receiver at the in-process app's HTTP functions, in the WebJobs host: each receiver's signature is the
/// HMAC of the canonical bytes under that receiver's key alone, a signature made for one receiver is invalid for
/// another, and every hostile <c>?receiver=</c> is a 4xx naming the parameter with nothing signed.
/// </summary>
public sealed class ReceiverFunctionTests : IAsyncLifetime
{
    private static readonly byte[] KeyA = RandomNumberGenerator.GetBytes(32);
    private static readonly byte[] KeyB = RandomNumberGenerator.GetBytes(32);
    private FunctionsTestHost _host = null!;

    public static TheoryData<string> PositiveVectors() => Vector.Names(reject: false);

    public static TheoryData<string> MalformedIds() => new()
    {
        "receiver=A",
        "receiver=a%20b",
        "receiver=..%2Fx",
        "receiver=a%2Fversions%2Fb",
        "receiver=a%252Fb",
        "receiver=" + new string('a', 64),
        "receiver=",
        "receiver=receiver-x%3Fapi-version%3D1",
        "receiver=%E2%80%AEa",
        "receiver=partner-a,partner-b",
    };

    public async Task InitializeAsync()
    {
        var settings = SignHostFixture.Settings();
        settings["Signing:LocalKeys:partner-a"] = Convert.ToBase64String(KeyA);
        settings["Signing:LocalKeys:partner-b"] = Convert.ToBase64String(KeyB);
        _host = await FunctionsTestHost.StartAsync(settings, overrides: null, typeof(SignFunction), typeof(VerifyFunction), typeof(KeysFunction));
    }

    public async Task DisposeAsync() => await _host.DisposeAsync();

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public async Task RunAsync_VectorForTwoReceivers_EachSignatureIsTheHmacUnderThatReceiversKey(string name)
    {
        // Arrange
        var vector = Vector.Load(name);

        // Act
        var response = await SignAsync(vector.Input, "receiver=partner-a&receiver=partner-b");

        // Assert: one read, one write, two receivers' chains; no unnamed signature anywhere.
        Assert.Equal(200, response.Status);
        var receivers = (JArray)response.Json["receivers"]!;
        Assert.Equal(["partner-a", "partner-b"], receivers.Select(r => (string)r["receiver"]!));
        var id = (string)response.Json["webhook"]!["id"]!;
        var timestamp = (long)response.Json["webhook"]!["timestamp"]!;
        foreach (var (receiver, key) in new[] { (receivers[0], KeyA), (receivers[1], KeyB) })
        {
            Assert.Equal(Convert.ToHexString(HMACSHA256.HashData(key, vector.Canonical)).ToLowerInvariant(), (string)receiver["signature"]!);
            var prefixed = Encoding.ASCII.GetBytes($"{id}.{timestamp}.").Concat(vector.Canonical).ToArray();
            Assert.Equal("v1," + Convert.ToBase64String(HMACSHA256.HashData(key, prefixed)), (string)receiver["webhookSignature"]!);
        }

        Assert.Null(response.Json["signature"]);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.False(response.Headers.ContainsKey("webhook-signature"));
        Assert.Equal("partner-a, partner-b", response.Header(SignatureHeaders.Receivers));
    }

    [Fact]
    public async Task RunAsync_TwoReceiversCanonicalOutput_EachReceiversHeaderIsNamedForItAndNoStandardHeaderIsSent()
    {
        // Arrange
        var vector = Vector.Load("one-widget");

        // Act
        var response = await SignAsync(vector.Input, "receiver=partner-a&receiver=partner-b&output=canonical");

        // Assert
        Assert.Equal(200, response.Status);
        Assert.Equal(vector.Canonical, response.Body);
        var id = response.Header("webhook-id");
        var timestamp = response.Header("webhook-timestamp");
        var prefixed = Encoding.ASCII.GetBytes($"{id}.{timestamp}.").Concat(vector.Canonical).ToArray();
        Assert.Equal("v1," + Convert.ToBase64String(HMACSHA256.HashData(KeyA, prefixed)), response.Header(SignatureHeaders.WebhookSignatureForPrefix + "partner-a"));
        Assert.Equal("v1," + Convert.ToBase64String(HMACSHA256.HashData(KeyB, prefixed)), response.Header(SignatureHeaders.WebhookSignatureForPrefix + "partner-b"));
        Assert.StartsWith("current:local:" + Convert.ToHexString(HMACSHA256.HashData(KeyB, vector.Canonical)).ToLowerInvariant(), response.Header(SignatureHeaders.SignaturesForPrefix + "partner-b"), StringComparison.Ordinal);
        Assert.False(response.Headers.ContainsKey("webhook-signature"));
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signatures));
    }

    [Fact]
    public async Task RunAsync_OneReceiver_StandardHeadersAreThatReceiversAndNameIt()
    {
        // Arrange
        var vector = Vector.Load("one-widget");

        // Act
        var response = await SignAsync(vector.Input, "receiver=partner-b&output=canonical");

        // Assert
        Assert.Equal(200, response.Status);
        Assert.Equal("partner-b", response.Header(SignatureHeaders.Receiver));
        Assert.Equal(Convert.ToHexString(HMACSHA256.HashData(KeyB, vector.Canonical)).ToLowerInvariant(), response.Header(SignatureHeaders.Signature));
    }

    [Fact]
    public async Task VerifyAsync_SignatureMadeForAnotherReceiverAttack_InvalidWithReasonNamingTheReceiver()
    {
        // Arrange: partner-a's genuine signature, presented as partner-b's.
        var vector = Vector.Load("one-widget");
        var signed = await SignAsync(vector.Input, "receiver=partner-a");
        var signature = (string)signed.Json["signature"]!;

        // Act
        var own = await VerifyAsync(vector.Input, "receiver=partner-a", signature);
        var other = await VerifyAsync(vector.Input, "receiver=partner-b", signature);

        // Assert
        Assert.True((bool)own.Json["valid"]!);
        Assert.False((bool)other.Json["valid"]!);
        Assert.Equal("partner-b", (string)other.Json["receiver"]!);
        Assert.Equal("signature-mismatch", (string)other.Json["reason"]!);
        Assert.Contains("partner-b", (string)other.Json["detail"]!, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_UnknownReceiverAttack_404NamingItAndNothingSigned()
    {
        // Arrange
        var vector = Vector.Load("one-widget");

        // Act
        var response = await SignAsync(vector.Input, "receiver=partner-a&receiver=nobody");

        // Assert: nothing for partner-a either.
        Assert.Equal(404, response.Status);
        Assert.Equal(ProblemTypes.UnknownReceiver, (string?)response.Json["type"]);
        Assert.Contains("'nobody'", (string?)response.Json["detail"], StringComparison.Ordinal);
        Assert.DoesNotContain("signature", response.Text, StringComparison.OrdinalIgnoreCase);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
    }

    [Theory]
    [MemberData(nameof(MalformedIds))]
    public async Task RunAsync_MalformedOrPathTrickReceiverIdAttack_400NamingTheParameterAndNothingSigned(string query)
    {
        // Arrange
        var vector = Vector.Load("one-widget");

        // Act
        var response = await SignAsync(vector.Input, query);

        // Assert: the value is echoed escaped and bounded, never as a raw control or bidi character.
        Assert.Equal(400, response.Status);
        Assert.Equal(ProblemTypes.InvalidRequest, (string?)response.Json["type"]);
        var detail = (string)response.Json["detail"]!;
        Assert.Contains("'receiver'", detail, StringComparison.Ordinal);
        Assert.DoesNotContain('\u202e', detail);
        Assert.True(detail.Length < 400, detail);
        Assert.False(response.Headers.ContainsKey(SignatureHeaders.Signature));
    }

    [Fact]
    public async Task RunAsync_TooManyReceiversAttack_400NamingTheSetting()
    {
        // Arrange: one past the default bound of 8.
        var query = string.Join('&', Enumerable.Range(0, 9).Select(i => $"receiver=r{i}"));

        // Act
        var response = await SignAsync(Vector.Load("one-widget").Input, query);

        // Assert
        Assert.Equal(400, response.Status);
        Assert.Contains("Receivers:MaxPerRequest", (string?)response.Json["detail"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_ReceiverNamedTwice_400NamingIt()
    {
        // Act
        var response = await SignAsync(Vector.Load("one-widget").Input, "receiver=partner-a&receiver=partner-a");

        // Assert
        Assert.Equal(400, response.Status);
        Assert.Contains("'partner-a' twice", (string?)response.Json["detail"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_NoReceiver_SignsForTheDefaultReceiverWithTheOriginalKey()
    {
        // Arrange
        var vector = Vector.Load("one-widget");

        // Act
        var response = await SignAsync(vector.Input, query: null);

        // Assert: the deployment's original key (Signing:LocalKey, the vectors' key) and the vector's own answer.
        Assert.Equal(200, response.Status);
        Assert.Equal("default", (string?)response.Json["receiver"]);
        Assert.Equal(vector.SignatureHex, (string?)response.Json["signature"]);
    }

    [Fact]
    public async Task KeysAsync_ListAndOneReceiver_NamesReceiversAndNeverMaterial()
    {
        // Act
        var list = await _host.InvokeHttpAsync(KeysFunction.Name, Get("/api/keys", "pageSize=2"));
        var next = await _host.InvokeHttpAsync(KeysFunction.Name, Get("/api/keys", "pageSize=2&pageToken=" + (string)list.Json["nextPageToken"]!));
        var one = await _host.InvokeHttpAsync(KeysFunction.Name, Get("/api/keys", "receiver=partner-b"));
        var unknown = await _host.InvokeHttpAsync(KeysFunction.Name, Get("/api/keys", "receiver=nobody"));

        // Assert
        Assert.Equal(["default", "partner-a"], ((JArray)list.Json["receivers"]!).Select(r => (string)r["receiver"]!));
        Assert.Equal(["partner-b"], ((JArray)next.Json["receivers"]!).Select(r => (string)r["receiver"]!));
        Assert.Equal(JTokenType.Null, next.Json["nextPageToken"]!.Type);
        Assert.Equal("partner-b", (string?)one.Json["receiver"]);
        Assert.Equal("current", (string?)one.Json["keys"]![0]!["state"]);
        Assert.Equal(404, unknown.Status);
        foreach (var text in new[] { list.Text, next.Text, one.Text })
        {
            Assert.DoesNotContain(Convert.ToBase64String(KeyA), text, StringComparison.Ordinal);
            Assert.DoesNotContain(Convert.ToBase64String(KeyB), text, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("pageSize=0")]
    [InlineData("pageSize=26")]
    [InlineData("pageSize=1&pageSize=2")]
    [InlineData("pageToken=https%3A%2F%2Fevil.example%2Fsecrets")]
    public async Task KeysAsync_HostilePagingAttack_400NamingTheParameter(string query)
    {
        // Act
        var response = await _host.InvokeHttpAsync(KeysFunction.Name, Get("/api/keys", query));

        // Assert
        Assert.Equal(400, response.Status);
        Assert.Contains(query.Split('=')[0], (string?)response.Json["detail"], StringComparison.Ordinal);
    }

    private static Microsoft.AspNetCore.Http.HttpRequest Get(string path, string query)
    {
        var request = TestRequests.Post(path, [], contentType: null, query: "?" + query);
        request.Method = "GET";
        return request;
    }

    private Task<HttpResponseSnapshot> SignAsync(byte[] body, string? query) =>
        _host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", body, query: query is null ? null : "?" + query));

    private Task<HttpResponseSnapshot> VerifyAsync(byte[] body, string query, string signature)
    {
        var request = TestRequests.Post("/api/verify", body, query: "?" + query);
        request.Headers["X-Signature"] = signature;
        return _host.InvokeHttpAsync(VerifyFunction.Name, request);
    }
}
