using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using WidgetSigning.Callers;
using WidgetSigning.Callers.Entra;
using WidgetSigning.Http;
using WidgetSigning.Signing;

namespace FunctionApp.Benchmarks;

/// <summary>
/// What the caller checks add to a ~1 MB request, the isolated app's sign function end to end: the same handler with
/// <c>Auth:Disabled</c> (the baseline), and with a bearer token validated by the Entra validator against an issuer on
/// loopback, the <c>Widgets.Sign</c> role and the caller's grant (from an in-memory store: the grant cache answers every
/// call but the first, as it does from the table). And the SHA-256 the audit record carries, alone over as many bytes:
/// the most the digest can add (it is one more chain in the pass that writes and signs, run beside the HMACs).
/// </summary>
[MemoryDiagnoser]
public class CallerCheckBenchmarks
{
    private BenchmarkIssuer _issuer = null!;
    private ServiceProvider _off = null!;
    private ServiceProvider _on = null!;
    private SignHandler _offHandler = null!;
    private SignHandler _onHandler = null!;
    private string _authorization = null!;
    private byte[] _body = null!;
    private MemoryStream _requestBody = null!;
    private CallerAuthenticator _authenticator = null!;
    private CallerGrants _grants = null!;
    private DefaultHttpContext _checksOnly = null!;
    private IReadOnlyList<WidgetSigning.Keys.ReceiverId> _defaultReceiver = null!;

    /// <summary>Starts the issuer, wires both apps and checks both sign alike.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _body = BenchmarkData.Create(BenchmarkData.SeedWidgetCount).SeedBody();
        _requestBody = new MemoryStream(_body, writable: false);
#pragma warning disable CA2000 // disposed in Cleanup
        _issuer = BenchmarkIssuer.StartAsync().GetAwaiter().GetResult();
#pragma warning restore CA2000
        _authorization = "Bearer " + _issuer.Token(AppRoles.All.ToArray());
        _off = Services(new() { ["Auth:Disabled"] = "true" }, entra: false);
        _on = Services(
            new()
            {
                ["Auth:TenantId"] = BenchmarkIssuer.Tenant,
                ["Auth:Audience"] = BenchmarkIssuer.Audience,
                ["Auth:Authority"] = _issuer.Authority,
            },
            entra: true);
        _offHandler = _off.GetRequiredService<SignHandler>();
        _onHandler = _on.GetRequiredService<SignHandler>();
        _authenticator = _on.GetRequiredService<CallerAuthenticator>();
        _grants = _on.GetRequiredService<CallerGrants>();
        _checksOnly = new DefaultHttpContext();
        _checksOnly.Request.Headers.Authorization = _authorization;
        _defaultReceiver = [WidgetSigning.Keys.ReceiverId.Parse("default")];

        var off = InvokeAsync(_offHandler, null).GetAwaiter().GetResult();
        var on = InvokeAsync(_onHandler, _authorization).GetAwaiter().GetResult();
        var refused = InvokeAsync(_onHandler, null).GetAwaiter().GetResult();
        if (off.Response.StatusCode != 200 || on.Response.StatusCode != 200 || refused.Response.StatusCode != 401
            || off.Response.Headers[SignatureHeaders.Signature] != on.Response.Headers[SignatureHeaders.Signature])
        {
            throw new InvalidOperationException($"Caller-check rows disagree: off {off.Response.StatusCode}, on {on.Response.StatusCode}, no token {refused.Response.StatusCode}.");
        }
    }

    /// <summary>Stops the issuer and disposes the services.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _off.Dispose();
        _on.Dispose();
        _requestBody.Dispose();
        _issuer.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }

    /// <summary>The isolated app's sign function with <c>Auth:Disabled</c>: no token, no role, no grant.</summary>
    [Benchmark(Baseline = true)]
    public Task SignHandler_CallerChecksOff() => InvokeAsync(_offHandler, null);

    /// <summary>The same with a bearer token, its role and the caller's grant checked on every call.</summary>
    [Benchmark]
    public Task SignHandler_TokenRoleAndGrant() => InvokeAsync(_onHandler, _authorization);

    /// <summary>
    /// The checks alone, as the sign function makes them before it reads the body: the bearer header, the token (a repeat
    /// caller's, remembered), the role, the grant of the receiver. What the row above adds, without the request's noise.
    /// </summary>
    [Benchmark]
    public async Task<CallerIdentity> CallerChecks_Alone()
    {
        var caller = CallerAuthenticator.RequireRole(await _authenticator.IdentifyAsync(_checksOnly.Request, CancellationToken.None).ConfigureAwait(false), AppRoles.Sign);
        await _grants.EnsureGrantedAsync(caller, _defaultReceiver, CancellationToken.None).ConfigureAwait(false);
        return caller;
    }

    /// <summary>The audit record's SHA-256 alone, over as many bytes as the envelope's.</summary>
    [Benchmark]
    public byte[] Sha256_AsManyBytes() => SHA256.HashData(_body);

    private static ServiceProvider Services(Dictionary<string, string?> auth, bool entra)
    {
        var configuration = BenchmarkData.LocalConfiguration(auth);
        var services = new ServiceCollection().AddLogging();
        services.AddSingleton<IGrantStore>(new DefaultReceiverGrants());
        if (entra)
        {
            services.AddEntraTokenValidation();
        }

        services.AddWidgetSigning(configuration).AddWidgetHttp(configuration);
        return services.BuildServiceProvider();
    }

    private async Task<HttpContext> InvokeAsync(SignHandler handler, string? authorization)
    {
        _requestBody.Position = 0;
        var context = new DefaultHttpContext();
        context.Request.Method = HttpMethods.Post;
        context.Request.ContentType = "application/json";
        context.Request.ContentLength = _body.Length;
        context.Request.Body = _requestBody;
        if (authorization is not null)
        {
            context.Request.Headers.Authorization = authorization;
        }

        context.Response.Body = Stream.Null;
        var result = await handler.HandleAsync(context.Request).ConfigureAwait(false);
        await result.ExecuteResultAsync(new ActionContext(context, new RouteData(), new ActionDescriptor())).ConfigureAwait(false);
        return context;
    }

    private sealed class DefaultReceiverGrants : IGrantStore
    {
        public Task<IReadOnlySet<string>> GetReceiversAsync(string objectId, int max, CancellationToken cancellationToken) =>
            Task.FromResult<IReadOnlySet<string>>(new HashSet<string> { "default" });
    }
}
