using Microsoft.Azure.Functions.Worker.Builder;
using Microsoft.Extensions.Hosting;
using WidgetSigning.Http;
using WidgetSigning.Queues;
using WidgetSigning.Signing;

// The isolated worker's entry point: ASP.NET Core integration (the request body is read as a stream, never bound to a
// string) and the same registrations as the in-process app's Startup. Only this file and Functions/ know the worker.
var builder = FunctionsApplication.CreateBuilder(args);
builder.ConfigureFunctionsWebApplication();
builder.Services
    .AddWidgetSigning(builder.Configuration)
    .AddWidgetHttp(builder.Configuration)
    .AddWidgetQueueSigning(builder.Configuration);
await builder.Build().RunAsync().ConfigureAwait(false);
