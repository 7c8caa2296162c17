using System.Text;
using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Seed;
using FunctionApp.Functions;
using WidgetSigning.Http;
using WidgetSigning.SpareCores;
using WidgetSigning.Signing;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Newtonsoft.Json;

namespace FunctionApp.Benchmarks;

/// <summary>
/// One request end to end: a ~1 MB body stream in, deserialize, sign, response written. Our HTTP function
/// (resolved through the service's own DI registration) against what a user would write from the Functions
/// template: read the body into a string, <c>JsonConvert.DeserializeObject</c>, the seed's string signer.
/// </summary>
[MemoryDiagnoser]
public class EndToEndBenchmarks
{
    private ServiceProvider _services = null!;
    private SignFunction _function = null!;
    private SignFunction _signWhileReadingOneCoreFunction = null!;
    private SignHandler _handler = null!;
    private HttpEnvelopeReader _httpReader = null!;
    private byte[] _body = null!;
    private MemoryStream _requestBody = null!;

    /// <summary>Who did the spare core's work for the production-wired function (after <see cref="Setup"/>).</summary>
    internal SpareCoreCounters SpareCoreCounters => _services.GetRequiredService<SpareCorePolicy>().Counters;

    /// <summary>Builds the body (the seed's envelope as the seed serializes it), wires DI, and checks both sign alike.</summary>
    [GlobalSetup]
    public void Setup()
    {
        var data = BenchmarkData.Create(BenchmarkData.SeedWidgetCount);
        _body = data.SeedBody();
        _requestBody = new MemoryStream(_body, writable: false);

        var configuration = BenchmarkData.LocalConfiguration();
        var services = new ServiceCollection().AddLogging().AddWidgetSigning(configuration).AddWidgetHttp(configuration);

        // The naive version answers with OkObjectResult, which needs MVC's result executors, as in the host.
        services.AddMvcCore();
        _services = services.BuildServiceProvider(new ServiceProviderOptions { ValidateScopes = true });
        _function = ActivatorUtilities.CreateInstance<SignFunction>(_services);
        _handler = _services.GetRequiredService<SignHandler>();
        _httpReader = _services.GetRequiredService<HttpEnvelopeReader>();

        // The same function over a signer whose spare-core policy is SpareCores:Mode = Never: with no core to hand work
        // to, the reader's thread writes and hashes each run as soon as it is read, as production does under load.
        var oneCore = new EnvelopeSigner(
            _services.GetRequiredService<Microsoft.IO.RecyclableMemoryStreamManager>(),
            _services.GetRequiredService<WidgetSigning.Keys.IReceiverKeySource>(),
            _services.GetRequiredService<WidgetSigning.Envelopes.WidgetEnvelopeReader>(),
            new CanonicalPass(new SpareCorePolicy(
                Options.Create(SignerFactory.OneCore),
                _services.GetRequiredService<WidgetSigning.Telemetry.SigningMetrics>(),
                _services.GetRequiredService<Microsoft.Extensions.Logging.ILogger<SpareCorePolicy>>())),
            _services.GetRequiredService<IOptions<WidgetSigning.Envelopes.EnvelopeOptions>>(),
            TimeProvider.System,
            _services.GetRequiredService<Microsoft.Extensions.Logging.ILogger<EnvelopeSigner>>());
        _signWhileReadingOneCoreFunction = new(new SignHandler(
            _httpReader,
            oneCore,
            _services.GetRequiredService<Microsoft.Extensions.Options.IOptions<WidgetSigning.Keys.ReceiverOptions>>(),
            _services.GetRequiredService<HttpOperation>(),
            _services.GetRequiredService<Microsoft.Extensions.Logging.ILogger<SignHandler>>()));

        var ours = RunOnceAsync(OurFunctionAsync).GetAwaiter().GetResult();
        var oneCoreResult = RunOnceAsync(_signWhileReadingOneCoreFunction.RunAsync).GetAwaiter().GetResult();
        if (oneCoreResult.Signature != ours.Signature)
        {
            throw new InvalidOperationException("Signing on one core and signing behind the reader disagree.");
        }

        var naive = RunOnceAsync(NaiveFunctionAsync).GetAwaiter().GetResult();
        var expected = SeedSerializeAndSign.SerializeToStringAndSign(data.Seed);
        if (ours.Status != StatusCodes.Status200OK || ours.Signature != expected || naive.Status != StatusCodes.Status200OK || !naive.Body.Contains(expected, StringComparison.Ordinal))
        {
            throw new InvalidOperationException(
                $"End-to-end paths disagree: ours {ours.Status} {ours.Signature} {ours.Body}; naive {naive.Status} {naive.Body}; expected {expected}.");
        }
    }

    /// <summary>Disposes the services.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _services.Dispose();
        _requestBody.Dispose();
    }

    /// <summary>The template way: <c>ReadToEndAsync</c> + <c>JsonConvert.DeserializeObject</c> + the seed's string signer + <c>OkObjectResult</c>.</summary>
    [Benchmark(Baseline = true)]
    public Task Naive_ReadToEnd_DeserializeObject_SeedStringSigner() => InvokeAsync(NaiveFunctionAsync, Stream.Null);

    /// <summary>Ours: <see cref="SignFunction.RunAsync"/> and its <see cref="SignatureResult"/>.</summary>
    [Benchmark]
    public Task SignFunction_RunAsync() => InvokeAsync(OurFunctionAsync, Stream.Null);

    /// <summary>
    /// The isolated app's HTTP function: <c>FunctionApp.Isolated.Functions.HttpFunctions.SignAsync</c> is the one
    /// line <c>SignHandler.HandleAsync(request)</c>, on the worker's own ASP.NET Core request, whose body is the socket's
    /// stream: nothing reads it before the handler. (The benchmarks do not reference the Worker SDK app; they call the
    /// line it runs.)
    /// </summary>
    [Benchmark]
    public Task IsolatedApp_HttpFunctions_SignAsync() => InvokeAsync(_handler.HandleAsync, Stream.Null);

    /// <summary>
    /// The in-process app's HTTP function as its host runs it: the WebJobs HTTP binding first reads every body
    /// that has a <c>Content-Length</c> into a string for binding data (<c>HttpTriggerBinding.BindAsync</c> →
    /// <c>ReadAsStringAsync</c>, api.md), rewinds it, then the function runs.
    /// </summary>
    [Benchmark]
    public Task InProcessApp_BindingStringCopy_Then_SignFunction() => InvokeAsync(BindThenRunAsync, Stream.Null);

    /// <summary>
    /// Ours with nothing handed to another core, as production signs when no core is spare: the reader's thread writes
    /// and hashes each run of widgets as soon as it is read, and keeps none.
    /// </summary>
    [Benchmark]
    public Task SignFunction_RunAsync_SignWhileReadingOneCore() => InvokeAsync(_signWhileReadingOneCoreFunction.RunAsync, Stream.Null);

    /// <summary>Limit: what reading costs, the body into the pool and the strict reader, answered with a bare 200.</summary>
    [Benchmark]
    public Task Limit_ReadOnly_HttpEnvelopeReader() => InvokeAsync(ReadOnlyAsync, Stream.Null);

    private async Task<IActionResult> ReadOnlyAsync(HttpRequest request)
    {
        var envelope = await _httpReader.ReadAsync(request, CancellationToken.None).ConfigureAwait(false);
        return envelope.Widgets.Count > 0 ? new OkResult() : new NoContentResult();
    }

    private static async Task<IActionResult> NaiveFunctionAsync(HttpRequest req)
    {
        // Exactly what the Functions HTTP template does, plus the seed's signer.
        using var reader = new StreamReader(req.Body, Encoding.UTF8, detectEncodingFromByteOrderMarks: true, bufferSize: -1, leaveOpen: true);
        var requestBody = await reader.ReadToEndAsync().ConfigureAwait(false);
        var envelope = JsonConvert.DeserializeObject<SeedWidgetEnvelope>(requestBody)!;
        var signature = SeedSerializeAndSign.SerializeToStringAndSign(envelope);
        return new OkObjectResult(new { algorithm = "HMACSHA256", signature, widgetCount = envelope.Widgets.Count });
    }

    private Task<IActionResult> OurFunctionAsync(HttpRequest request) => _function.RunAsync(request);

    private async Task<IActionResult> BindThenRunAsync(HttpRequest request)
    {
        // What the in-process binding does with a Content-Length body before the function sees it.
        using (var reader = new StreamReader(request.Body, Encoding.UTF8, detectEncodingFromByteOrderMarks: true, bufferSize: -1, leaveOpen: true))
        {
            GC.KeepAlive(await reader.ReadToEndAsync().ConfigureAwait(false));
        }

        request.Body.Position = 0;
        return await _function.RunAsync(request).ConfigureAwait(false);
    }

    /// <summary>
    /// For <see cref="Load.SaturatedRunner"/>: a row's function over a body of its own per call (the rows share one), so
    /// calls may overlap. Rows: function, function-one-core, isolated, in-process, read.
    /// </summary>
    internal Func<Task> Concurrent(string row)
    {
        Func<HttpRequest, Task<IActionResult>> function = row switch
        {
            "function" => OurFunctionAsync,
            "function-one-core" => _signWhileReadingOneCoreFunction.RunAsync,
            "isolated" => _handler.HandleAsync,
            "in-process" => BindThenRunAsync,
            "read" => ReadOnlyAsync,
            _ => throw new ArgumentException($"Unknown row '{row}'.", nameof(row)),
        };
        return () => InvokeAsync(function, Stream.Null, new MemoryStream(_body, writable: false));
    }

    private Task<HttpContext> InvokeAsync(Func<HttpRequest, Task<IActionResult>> function, Stream responseBody)
    {
        _requestBody.Position = 0;
        return InvokeAsync(function, responseBody, _requestBody);
    }

    private async Task<HttpContext> InvokeAsync(Func<HttpRequest, Task<IActionResult>> function, Stream responseBody, Stream requestBody)
    {
        var context = new DefaultHttpContext { RequestServices = _services };
        context.Request.Method = HttpMethods.Post;
        context.Request.ContentType = "application/json";
        context.Request.ContentLength = _body.Length;
        context.Request.Body = requestBody;
        context.Response.Body = responseBody;
        var result = await function(context.Request).ConfigureAwait(false);
        await result.ExecuteResultAsync(new ActionContext(context, new RouteData(), new ActionDescriptor())).ConfigureAwait(false);
        return context;
    }

    private async Task<(int Status, string? Signature, string Body)> RunOnceAsync(Func<HttpRequest, Task<IActionResult>> function)
    {
        using var response = new MemoryStream();
        var context = await InvokeAsync(function, response).ConfigureAwait(false);
        return (context.Response.StatusCode, context.Response.Headers[SignatureHeaders.Signature].ToString(), Encoding.UTF8.GetString(response.ToArray()));
    }
}
