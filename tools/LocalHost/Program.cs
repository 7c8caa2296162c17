using System.Net;
using HostCompatibility;
using HostTools;
using LocalHost;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Routing.Constraints;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

// The first line says what runs and how it differs from func start (docs/local-development.md has the detail).
Console.WriteLine(
    "LocalHost: the app's build output on the WebJobs SDK host (tools/LocalHost), NOT the Azure Functions host/func start: "
    + $"function keys not enforced (func start does not either); no admin API, no extension bundles, no portal/AppInsights; runs on .NET {Environment.Version}; HTTP on 127.0.0.1 only; "
    + "the host's start-up checks (extension minimums, unified assemblies, function.json) run first.");

HostCommandLine options;
// --platform-auth: this host plays App Service Authentication in front of the app (PlatformAuthentication).
var platformAuth = args.Contains("--platform-auth", StringComparer.Ordinal);
try
{
    options = HostCommandLine.Parse([.. args.Where(a => a != "--platform-auth")], "usage: LocalHost --app <FunctionApp build output> [--settings <local.settings.json>] [--port <port, default 7071>] [--platform-auth]", settingsInAppByDefault: false);
}
catch (ArgumentException e)
{
    Console.Error.WriteLine($"LocalHost: {e.Message}");
    return 2;
}

if (!File.Exists(Path.Combine(options.AppRoot, "host.json")))
{
    Console.Error.WriteLine($"LocalHost: {options.AppRoot} holds no host.json; build the app first (dotnet build FunctionApp -c Release).");
    return 2;
}

// Refuse where the real host would refuse.
var problems = HostCompatibilityChecker.Check(options.AppRoot, HostFacts.Default);
if (problems.Count > 0)
{
    Console.Error.WriteLine($"LocalHost: the Azure Functions host (facts from azure-functions-host {HostFacts.Default.HostCommit[..12]}) would refuse this app; not starting:");
    foreach (var problem in problems)
    {
        Console.Error.WriteLine($"  {problem}");
    }

    return 3;
}

foreach (var unverifiable in HostCompatibilityChecker.UnverifiableUnifiedAssemblies(options.AppRoot, HostFacts.Default))
{
    Console.WriteLine($"LocalHost: warning: {unverifiable}");
}

var application = FunctionApplication.Load(options.AppRoot, HostFacts.Default, Console.WriteLine);
var settings = AppSettings.Read(options.AppRoot, options.LocalSettings);
PlatformAuthentication? platform = null;
if (platformAuth)
{
    try
    {
        platform = PlatformAuthentication.Create(settings);
    }
    catch (ArgumentException e)
    {
        Console.Error.WriteLine($"LocalHost: {e.Message}");
        return 2;
    }

    Console.WriteLine("LocalHost: --platform-auth: playing App Service Authentication: a valid bearer token from Auth:Authority or 401, client X-MS-CLIENT-PRINCIPAL* headers removed, the platform's principal passed on; WEBSITE_AUTH_ENABLED=True.");
}

using var startupLoggerFactory = LoggerFactory.Create(b => b.AddSimpleConsole(o => o.SingleLine = true));
var setup = new FunctionsHostSetup
{
    ApplicationRootPath = options.AppRoot,
    Settings = settings,
    StartupTypes = application.StartupTypes,
    FunctionTypes = application.FunctionTypes,
};

var httpTriggers = application.Functions
    .Select(f => (Function: f, Trigger: f.Triggers.FirstOrDefault(t => string.Equals(FunctionDefinition.Text(t, "type"), "httpTrigger", StringComparison.OrdinalIgnoreCase))))
    .Where(x => x.Trigger.ValueKind != System.Text.Json.JsonValueKind.Undefined)
    .ToList();
var routeLines = new List<string>();
var maxBody = HostHttpLimits.MaxRequestBodyBytes(settings.GetValueOrDefault("FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"));

using var host = FunctionsHostFactory.Create(setup, startupLoggerFactory)
    .ConfigureLogging(b => b.AddSimpleConsole(o => o.SingleLine = true).AddFilter("Microsoft.AspNetCore", LogLevel.Warning))
    .ConfigureWebHost(web => web
        .UseKestrel(k =>
        {
            k.Listen(IPAddress.Loopback, options.Port);
            // The host's FUNCTIONS_REQUEST_BODY_SIZE_LIMIT (100 MB unless set).
            k.Limits.MaxRequestBodySize = maxBody;
        })
        .ConfigureServices(services =>
        {
            services.AddRouting();
            services.AddHttpBindingRouting();
            services.AddHostThrottle(context =>
            {
                var http = context.RequestServices.GetRequiredService<IOptions<HttpOptions>>().Value;
                return (http.MaxConcurrentRequests, http.MaxOutstandingRequests);
            });
        })
        .Configure(app =>
        {
            // Local-only diagnostics for the load script: stream pool bytes in use and process memory. Not part of the app.
            app.Map("/local/stream-pool", diagnostics => diagnostics.Run(context => StreamPoolProbe.WriteAsync(context)));
            if (platform is not null)
            {
                app.Use(platform.InvokeAsync);
            }

            app.UseRateLimiter();
            var router = app.ApplicationServices.GetRequiredService<IWebJobsRouter>();
            var http = app.ApplicationServices.GetRequiredService<IOptions<HttpOptions>>().Value;
            var handler = new FunctionRouteHandler(
                app.ApplicationServices.GetRequiredService<IJobHost>(),
                httpTriggers.ToDictionary(x => x.Function.Name, x => FunctionDefinition.Text(x.Trigger, "name") ?? "req", StringComparer.OrdinalIgnoreCase));
            var routes = router.CreateBuilder(handler, http.RoutePrefix);
            var methodRoutes = new List<(Microsoft.AspNetCore.Routing.Template.TemplateMatcher Matcher, string[] Methods)>();
            foreach (var (function, trigger) in httpTriggers)
            {
                var methods = trigger.TryGetProperty("methods", out var m) ? m.EnumerateArray().Select(x => x.GetString()!.ToUpperInvariant()).ToArray() : [];
                var constraints = new RouteValueDictionary();
                if (methods.Length > 0)
                {
                    constraints.Add("httpMethod", new HttpMethodRouteConstraint(methods));
                }

                routes.MapFunctionRoute(function.Name, FunctionDefinition.Text(trigger, "route") ?? function.Name, constraints, function.Name);
                if (methods.Length > 0)
                {
                    var template = Microsoft.AspNetCore.Routing.Template.TemplateParser.Parse(
                        string.Join('/', new[] { http.RoutePrefix, (FunctionDefinition.Text(trigger, "route") ?? function.Name).Trim('/') }.Where(p => p.Length > 0)));
                    methodRoutes.Add((new Microsoft.AspNetCore.Routing.Template.TemplateMatcher(template, new RouteValueDictionary()), methods));
                }

                routeLines.Add($"  {function.Name}: [{string.Join(",", methods)}] {{0}}/{http.RoutePrefix}/{FunctionDefinition.Text(trigger, "route") ?? function.Name}");
            }

            router.AddFunctionRoutes(routes.Build(), null);
            app.UseRouter(router);

            // The WebJobs router's method constraint makes a wrong method fall through as if the route did not exist
            // (404). A function's route asked with another method is a 405 with Allow naming its methods (RFC 9110
            // §15.5.6), as endpoint routing answers in the isolated app's host (tools/WorkerHost); anything else stays 404.
            app.Run(context =>
            {
                var allowed = methodRoutes
                    .Where(r => r.Matcher.TryMatch(context.Request.Path, new RouteValueDictionary()))
                    .SelectMany(r => r.Methods)
                    .Distinct(StringComparer.Ordinal)
                    .ToArray();
                context.Response.StatusCode = allowed.Length > 0 ? StatusCodes.Status405MethodNotAllowed : StatusCodes.Status404NotFound;
                if (allowed.Length > 0)
                {
                    context.Response.Headers.Allow = string.Join(", ", allowed);
                }

                return Task.CompletedTask;
            });
        }))
    .Build();

try
{
    await host.StartAsync().ConfigureAwait(false);
}
catch (Exception e) when (e is not OutOfMemoryException)
{
    Console.Error.WriteLine($"LocalHost: the host failed to start: {e}");
    return 1;
}

var address = host.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
foreach (var line in routeLines)
{
    Console.WriteLine(line.Replace("{0}", address, StringComparison.Ordinal));
}

Console.WriteLine($"LocalHost ready: {address}/api/ (pid {Environment.ProcessId}; Ctrl-C stops)");
await host.WaitForShutdownAsync().ConfigureAwait(false);
return 0;
