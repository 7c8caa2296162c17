using FunctionApp.Isolated.Functions;
using FunctionApp.Isolated.Hosting;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Azure.Functions.Worker.Builder;
using Microsoft.Azure.Functions.Worker.OpenTelemetry;
using Microsoft.Extensions.Configuration.Memory;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using WidgetSigning.Callers.Entra;
using WidgetSigning.Http;
using WidgetSigning.Queues;
using WidgetSigning.Signing;
using WidgetSigning.Telemetry;

// The isolated worker's entry point: ASP.NET Core integration (the request body is read as a stream, never bound to a
// string) and the same registrations as the in-process app's Startup. Only this file and Functions/ know the worker.
var builder = FunctionsApplication.CreateBuilder(args);

// Defaults under every other source (an app setting such as Logging__LogLevel__Microsoft.AspNetCore=Information still
// wins): ASP.NET Core logs four Information lines per request (request start and finish, endpoint executing and
// executed), and in the isolated model each one is a gRPC message to the host and a log record there. Warnings and
// errors still go; the service's own events keep their level.
builder.Configuration.Sources.Insert(0, new MemoryConfigurationSource
{
    InitialData = new Dictionary<string, string?> { ["Logging:LogLevel:Microsoft.AspNetCore"] = "Warning" },
});
// Before ConfigureFunctionsWebApplication, which adds the integration's middleware: the worker pipeline runs middleware in
// the order added, and this one must see what the integration throws when a request never arrives.
builder.UseMiddleware<UnforwardedRequestMiddleware>();
builder.ConfigureFunctionsWebApplication();

// The worker's Kestrel answers only the host: a request without the host's invocation id is refused before the
// integration's middleware throws for it (HostOnlyRequestFilter).
builder.Services.AddSingleton<IStartupFilter, HostOnlyRequestFilter>();

// The worker's own Kestrel (the integration sets no limit of its own) would keep its default body limit, 30,000,000
// bytes, counted with the chunk framing the host's forwarder adds: envelopes that Http:MaxRequestBodyBytes allows (up to
// 100 MiB) were refused there, a chunked one as "the host's limit" and one with Content-Length as the host's 502. The
// worker listens only to the host, which applies FUNCTIONS_REQUEST_BODY_SIZE_LIMIT to the client's body, and the core
// counts envelope bytes against Http:MaxRequestBodyBytes as it reads (PooledRequestBody), so this hop adds no limit.
builder.Services.Configure<KestrelServerOptions>(kestrel => kestrel.Limits.MaxRequestBodySize = null);

// Kestrel's pools from 64 KiB blocks: a 1 MB body from the host then arrives in tens of receives, not hundreds
// (docs/decisions/receive-blocks-64k.md). Registered after ConfigureFunctionsWebApplication, so this one is resolved.
builder.Services.AddSingleton<IMemoryPoolFactory<byte>, ReceiveBlockMemoryPoolFactory>();
// OpenTelemetry: the worker's invocation span continues the host's trace (UseFunctionsWorkerDefaults also tells the host
// not to emit the worker's telemetry a second time); docs/operations.md lists what is exported where. No ASP.NET Core or
// HTTP client instrumentation: the host's span is the request, and the Azure SDKs' own spans are the dependencies.
builder.Services.AddOpenTelemetry()
    .UseFunctionsWorkerDefaults()
    .AddWidgetSigningTelemetry(builder.Configuration);

builder.Services
    .AddEntraTokenValidation()
    .AddWidgetSigning(builder.Configuration)
    .AddWidgetHttp(builder.Configuration)
    .AddWidgetQueueSigning(builder.Configuration);
await builder.Build().RunAsync().ConfigureAwait(false);
