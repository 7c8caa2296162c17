using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Seed;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using WidgetSigning.Http;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace FunctionApp.Benchmarks;

/// <summary>
/// Ed25519 (<c>v1a</c>) against HMAC, in one run with the seed's best method: the floor (the library's Ed25519 over the
/// canonical bytes already in memory, once), and whole <c>/api/sign</c> requests (the isolated app's handler) for an
/// HMAC receiver, an Ed25519 one (both forms: two Ed25519 signatures; the Standard Webhooks form alone: one) and one
/// holding both keys. 2 widgets is a ~1 KB envelope, 3,000 the seed's ~1.1 MB.
/// </summary>
[MemoryDiagnoser]
public class Ed25519Benchmarks
{
    private static readonly string Ed25519Secret = "whsk_" + Convert.ToBase64String(RandomNumberGenerator.GetBytes(32));

    private ServiceProvider _services = null!;
    private SignHandler _handler = null!;
    private BenchmarkData _data = null!;
    private byte[] _body = null!;
    private byte[] _canonical = null!;
    private byte[] _signature = null!;
    private Ed25519Key _key = null!;
    private MemoryStream _requestBody = null!;
    private Microsoft.IO.RecyclableMemoryStream _pooledCanonical = null!;
    private ReceiverKeys[] _ed25519Keys = null!;
    private WidgetSigning.SpareCores.CanonicalPass _pass = null!;

    /// <summary>Widgets per envelope.</summary>
    [Params(2, 3000)]
    public int Widgets { get; set; }

    /// <summary>Wires the service with an HMAC, an Ed25519 and a two-scheme receiver, and checks every row answers 200.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _data = BenchmarkData.Create(Widgets);
        _body = _data.SeedBody();
        _requestBody = new MemoryStream(_body, writable: false);
        var configuration = new ConfigurationBuilder().AddConfiguration(BenchmarkData.LocalConfiguration()).AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Signing:LocalKeys:hmac"] = Convert.ToBase64String(BenchmarkData.KeyBytes),
            ["Signing:LocalKeys:ed25519"] = Ed25519Secret,
            ["Signing:LocalKeys:both"] = "whsec_" + Convert.ToBase64String(BenchmarkData.KeyBytes) + " " + Ed25519Secret,
        }).Build();
        _services = new ServiceCollection().AddLogging().AddWidgetSigning(configuration).AddWidgetHttp(configuration).BuildServiceProvider();
        _handler = _services.GetRequiredService<SignHandler>();
        var signingKey = KeyMaterial.TryDecode(Ed25519Secret, "bench", null, out _)!;
        _key = signingKey.Ed25519!;
        _ed25519Keys = [new ReceiverKeys(ReceiverId.Parse("ed25519"), new SigningKeys(signingKey, []))];
        _pass = _services.GetRequiredService<WidgetSigning.SpareCores.CanonicalPass>();
        _signature = new byte[Ed25519Key.SignatureBytes];
        using (var signed = _services.GetRequiredService<EnvelopeSigner>().SignAsync(_data.Ours, new SignRequest { Receivers = [ReceiverId.Parse("hmac")], Forms = SignatureForms.Plain }, CancellationToken.None).AsTask().GetAwaiter().GetResult())
        {
            _canonical = System.Buffers.BuffersExtensions.ToArray(signed.GetCanonicalBytes());
        }

        _pooledCanonical = _services.GetRequiredService<Microsoft.IO.RecyclableMemoryStreamManager>().GetStream("bench-canonical", _canonical);
        foreach (var query in new[] { "?receiver=hmac", "?receiver=hmac&forms=webhook", "?receiver=ed25519", "?receiver=ed25519&forms=webhook", "?receiver=both" })
        {
            var status = InvokeAsync(query).GetAwaiter().GetResult().Response.StatusCode;
            if (status != StatusCodes.Status200OK)
            {
                throw new InvalidOperationException($"{query} answered {status}.");
            }
        }
    }

    /// <summary>Disposes the services.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _pooledCanonical.Dispose();
        _services.Dispose();
        _requestBody.Dispose();
    }

    /// <summary>The seed's best method, serialize into a <c>RecyclableMemoryStream</c> and HMAC it.</summary>
    [Benchmark(Baseline = true)]
    public string Seed_RecyclableMemoryStream() => SeedSerializeAndSign.SerializeToRecyclableMemoryStreamAndSign(_data.Seed);

    /// <summary>The floor: one Ed25519 signature over the canonical bytes already in memory, contiguous.</summary>
    [Benchmark]
    public byte[] Floor_Ed25519_CanonicalInMemory()
    {
        _key.Sign(_canonical, _signature);
        return _signature;
    }

    /// <summary>Where time goes: the one copy of the pooled canonical blocks behind the <c>id.timestamp.</c> prefix that Ed25519 signs from.</summary>
    [Benchmark]
    public int Part_CopyCanonicalBehindPrefix()
    {
        var message = Ed25519Message.Rent("msg_0123456789abcdef0123456789abcdef.1795000259."u8, _pooledCanonical, out var length);
        Ed25519Message.Return(message);
        return length;
    }

    /// <summary>
    /// Production's Ed25519 stage for one <c>v1a</c> signature (<see cref="Ed25519Pass"/>: the copy behind the prefix and
    /// the signature), over the pooled canonical blocks: what a <c>v1a</c> adds to a request, against the floor.
    /// </summary>
    [Benchmark]
    public object Part_Ed25519Pass_V1a() =>
        Ed25519Pass.Sign(_pooledCanonical, _ed25519Keys, plain: false, "msg_0123456789abcdef0123456789abcdef.1795000259."u8, null, _pass);

    /// <summary>The same stage for both forms: the plain and the <c>v1a</c> signature, shared with a spare core when one is.</summary>
    [Benchmark]
    public object Part_Ed25519Pass_BothForms() =>
        Ed25519Pass.Sign(_pooledCanonical, _ed25519Keys, plain: true, "msg_0123456789abcdef0123456789abcdef.1795000259."u8, null, _pass);

    /// <summary>For scale: one HMAC-SHA256 over the same bytes.</summary>
    [Benchmark]
    public byte[] Floor_HmacSha256_CanonicalInMemory() => HMACSHA256.HashData(BenchmarkData.KeyBytes, _canonical);

    /// <summary>A request for an HMAC receiver, both forms (<c>X-Signature</c> and <c>v1,</c>).</summary>
    [Benchmark]
    public Task Request_Hmac() => InvokeAsync("?receiver=hmac");

    /// <summary>A request for an HMAC receiver, the Standard Webhooks form alone: one <c>v1</c> MAC (what <see cref="Request_Ed25519_V1aOnly"/> adds to).</summary>
    [Benchmark]
    public Task Request_Hmac_V1Only() => InvokeAsync("?receiver=hmac&forms=webhook");

    /// <summary>A request for an Ed25519 receiver, both forms: <c>X-Signature-Ed25519</c> and <c>v1a,</c>, two signatures.</summary>
    [Benchmark]
    public Task Request_Ed25519() => InvokeAsync("?receiver=ed25519");

    /// <summary>A request for an Ed25519 receiver, the Standard Webhooks form alone: one <c>v1a</c> signature.</summary>
    [Benchmark]
    public Task Request_Ed25519_V1aOnly() => InvokeAsync("?receiver=ed25519&forms=webhook");

    /// <summary>A request for a receiver holding both keys: HMAC's two MACs and Ed25519's two signatures.</summary>
    [Benchmark]
    public Task Request_HmacAndEd25519() => InvokeAsync("?receiver=both");

    private async Task<HttpContext> InvokeAsync(string query)
    {
        _requestBody.Position = 0;
        var context = new DefaultHttpContext { RequestServices = _services };
        context.Request.Method = HttpMethods.Post;
        context.Request.ContentType = "application/json";
        context.Request.ContentLength = _body.Length;
        context.Request.QueryString = new QueryString(query);
        context.Request.Body = _requestBody;
        context.Response.Body = Stream.Null;
        var result = await _handler.HandleAsync(context.Request).ConfigureAwait(false);
        await result.ExecuteResultAsync(new ActionContext(context, new RouteData(), new ActionDescriptor())).ConfigureAwait(false);
        return context;
    }
}
