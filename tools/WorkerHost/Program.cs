using System.Net;
using System.Runtime.InteropServices;
using HostTools;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using WorkerHost;

// The first line says what runs and how it differs from func start.
Console.WriteLine(
    "WorkerHost: the isolated app's build output on a local host made of the Functions host's parts (gRPC worker protocol, "
    + "YARP HTTP forwarding, WebJobs SDK + Storage Queues extension 5.3.10), NOT the Azure Functions host/func start: "
    + "function keys not enforced (func start does not either); no admin API, no extension bundles, no portal/AppInsights (OTLP only); HTTP on 127.0.0.1 only.");

AppDescription app;
HostCommandLine options;
try
{
    options = HostCommandLine.Parse(args, "usage: WorkerHost --app <isolated app build output> [--settings <local.settings.json>] [--port <port, default 7071, 0 = free>]", settingsInAppByDefault: true);
    app = AppDescription.Load(options);
}
catch (ArgumentException e)
{
    Console.Error.WriteLine($"WorkerHost: {e.Message}");
    return 2;
}
catch (StartRefusedException e)
{
    Console.Error.WriteLine($"WorkerHost: not starting: {e.Message}");
    return e.ExitCode;
}

// The host's invocation spans, so each invocation carries a real trace context (exported over OTLP when configured).
using var tracing = InvocationTrace.Start(app.Settings);
using var shutdown = new CancellationTokenSource();
using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop);
using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop);
await using var supervisor = new WorkerSupervisor(app);
// Last resort (an unhandled exception, or an exit elsewhere): the worker must not outlive the host.
AppDomain.CurrentDomain.ProcessExit += (_, _) => supervisor.KillNow();
AppDomain.CurrentDomain.UnhandledException += (_, _) => supervisor.KillNow();

// The gRPC server the worker connects to, as the host's AspNetCoreGrpcHostBuilder: loopback, free port, h2c only.
var grpcBuilder = WebApplication.CreateSlimBuilder(new WebApplicationOptions { ContentRootPath = AppContext.BaseDirectory });
grpcBuilder.Logging.ClearProviders().AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Warning);
grpcBuilder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0, listen => listen.Protocols = HttpProtocols.Http2));
grpcBuilder.Services.Configure<ConsoleLifetimeOptions>(o => o.SuppressStatusMessages = true);
grpcBuilder.Services.AddSingleton(supervisor);
grpcBuilder.Services.AddGrpc(o =>
{
    o.MaxReceiveMessageSize = int.MaxValue;
    o.MaxSendMessageSize = int.MaxValue;
});
await using var grpc = grpcBuilder.Build();
grpc.MapGrpcService<FunctionRpcService>();
await grpc.StartAsync().ConfigureAwait(false);
var grpcUri = new Uri(grpc.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First());

try
{
    await supervisor.StartAsync(grpcUri, shutdown.Token).ConfigureAwait(false);
}
catch (Exception e) when (e is WorkerUnavailableException or OperationCanceledException or System.ComponentModel.Win32Exception)
{
    Console.Error.WriteLine($"WorkerHost: the worker failed to start: {e.Message}");
    await supervisor.StopAsync().ConfigureAwait(false);
    return 1;
}

var functions = supervisor.Functions;
var http = app.Extension("http");
var routePrefix = (Json.Text(http, "routePrefix") ?? "api").Trim('/');
var maxConcurrent = Json.Int(http, "maxConcurrentRequests") ?? -1;
var maxOutstanding = Json.Int(http, "maxOutstandingRequests") ?? -1;
var maxBody = HostHttpLimits.MaxRequestBodyBytes(app.Settings.GetValueOrDefault("FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"));
var lines = new List<string>();

var webBuilder = WebApplication.CreateSlimBuilder(new WebApplicationOptions { ContentRootPath = AppContext.BaseDirectory });
webBuilder.Logging.ClearProviders().AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Warning);
webBuilder.WebHost.ConfigureKestrel(k =>
{
    k.Listen(IPAddress.Loopback, options.Port);
    // The host's FUNCTIONS_REQUEST_BODY_SIZE_LIMIT (100 MB unless set).
    k.Limits.MaxRequestBodySize = maxBody;
});
webBuilder.Services.Configure<ConsoleLifetimeOptions>(o => o.SuppressStatusMessages = true);
webBuilder.Services.AddHttpForwarder();
webBuilder.Services.AddSingleton(supervisor);
webBuilder.Services.AddSingleton<HttpInvocationHandler>();
webBuilder.Services.AddHostThrottle(_ => (maxConcurrent, maxOutstanding));
await using var web = webBuilder.Build();
web.UseRouting();
web.UseRateLimiter();
var handler = web.Services.GetRequiredService<HttpInvocationHandler>();
foreach (var function in functions.Where(f => f.IsTrigger("httpTrigger")).OrderBy(f => f.Name, StringComparer.Ordinal))
{
    var route = Json.Text(function.Trigger, "route") ?? function.Name;
    var pattern = "/" + string.Join('/', new[] { routePrefix, route.Trim('/') }.Where(p => p.Length > 0));
    var methods = Json.Get(function.Trigger, "methods") is { ValueKind: System.Text.Json.JsonValueKind.Array } m
        ? m.EnumerateArray().Select(x => x.GetString()!.ToUpperInvariant()).ToArray()
        : [];
    // Endpoint routing answers a path whose methods do not match with 405 and an Allow header, and no match with 404.
    var endpoint = methods.Length > 0
        ? web.MapMethods(pattern, methods, handler.For(function.Name, function.TriggerName))
        : web.Map(pattern, handler.For(function.Name, function.TriggerName));
    endpoint.WithDisplayName(function.Name);
    lines.Add($"  {function.Name}: [{string.Join(",", methods)}] {{0}}{pattern}");
}

var queueFunctions = functions.Where(f => f.IsTrigger("queueTrigger")).OrderBy(f => f.Name, StringComparer.Ordinal).ToList();
QueueInvoker.Supervisor = supervisor;
QueueInvoker.BindingNames = queueFunctions.ToDictionary(f => f.Name, f => f.TriggerName, StringComparer.OrdinalIgnoreCase);
var queueFunctionsType = queueFunctions.Count > 0 ? QueueFunctionEmitter.Emit(queueFunctions) : null;
await using var queuesHost = queueFunctionsType is not null ? new QueuesHostRunner(failures => QueuesHostFactory.Create(app, queueFunctionsType, failures)) : null;
foreach (var function in queueFunctions)
{
    lines.Add($"  {function.Name}: queueTrigger {Json.Text(function.Trigger, "queueName")} ({Json.Text(function.Trigger, "connection") ?? "AzureWebJobsStorage"})");
}

var exitCode = 0;
try
{
    await web.StartAsync(shutdown.Token).ConfigureAwait(false);
    if (queuesHost is not null)
    {
        await queuesHost.StartAsync(shutdown.Token).ConfigureAwait(false);
    }

    var address = web.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
    foreach (var line in lines)
    {
        Console.WriteLine(line.Replace("{0}", address, StringComparison.Ordinal));
    }

    Console.WriteLine($"WorkerHost ready: {address}/{routePrefix}/ (pid {Environment.ProcessId}; Ctrl-C stops)");
    await Task.Delay(Timeout.Infinite, shutdown.Token).ConfigureAwait(false);
}
catch (OperationCanceledException) when (shutdown.IsCancellationRequested)
{
    // Ctrl-C or SIGTERM.
}
catch (Exception e) when (e is IOException or InvalidOperationException)
{
    Console.Error.WriteLine($"WorkerHost: the host failed to start: {e.Message}");
    exitCode = 1;
}

// Stop taking work first (HTTP, then queue listeners), then the worker (WorkerTerminate, grace, kill), then gRPC.
Console.WriteLine("WorkerHost: stopping.");
await web.StopAsync(CancellationToken.None).ConfigureAwait(false);
if (queuesHost is not null)
{
    await queuesHost.StopAsync().ConfigureAwait(false);
}

await supervisor.StopAsync().ConfigureAwait(false);
await grpc.StopAsync(CancellationToken.None).ConfigureAwait(false);
return exitCode;

void Stop(PosixSignalContext context)
{
    // Cancel the default (immediate exit) so the shutdown above runs and the worker is not orphaned.
    context.Cancel = true;
    shutdown.Cancel();
}
