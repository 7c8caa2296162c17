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
        _key = KeyMaterial.TryDecode(Ed25519Secret, "bench", null, out _)!.Ed25519!;
        _signature = new byte[Ed25519Key.SignatureBytes];
        using (var signed = _services.GetRequiredService<EnvelopeSigner>().SignAsync(_data.Ours, new SignRequest { Receivers = [ReceiverId.Parse("hmac")], Forms = SignatureForms.Plain }, CancellationToken.None).AsTask().GetAwaiter().GetResult())
        {
            _canonical = System.Buffers.BuffersExtensions.ToArray(signed.GetCanonicalBytes());
        }

        foreach (var query in new[] { "?receiver=hmac", "?receiver=ed25519", "?receiver=ed25519&forms=webhook", "?receiver=both" })
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

    /// <summary>For scale: one HMAC-SHA256 over the same bytes.</summary>
    [Benchmark]
    public byte[] Floor_HmacSha256_CanonicalInMemory() => HMACSHA256.HashData(BenchmarkData.KeyBytes, _canonical);

    /// <summary>A request for an HMAC receiver, both forms (<c>X-Signature</c> and <c>v1,</c>).</summary>
    [Benchmark]
    public Task Request_Hmac() => InvokeAsync("?receiver=hmac");

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
