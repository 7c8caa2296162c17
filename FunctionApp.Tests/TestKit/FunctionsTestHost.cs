using LocalHost;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Azure.WebJobs;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Hosts the app's function classes in the real WebJobs SDK host – the engine the in-process Functions
/// runtime is built on – through the local host's <see cref="FunctionsHostFactory"/> (tools/LocalHost): the app's
/// <see cref="Startup"/> applied through the same <c>IWebJobsStartup2</c> path the runtime uses, DI-activated function
/// classes, and the HTTP extension.
/// </summary>
public sealed class FunctionsTestHost : IAsyncDisposable
{
    private readonly IHost _host;

    private FunctionsTestHost(IHost host, CapturedLogs logs)
    {
        _host = host;
        Logs = logs;
    }

    public CapturedLogs Logs { get; }

    public IServiceProvider Services => _host.Services;

    public static Task<FunctionsTestHost> StartAsync(IDictionary<string, string?> settings, params Type[] functionTypes) =>
        StartAsync(settings, overrides: null, functionTypes);

    public static async Task<FunctionsTestHost> StartAsync(
        IDictionary<string, string?> settings, Action<IServiceCollection>? overrides, params Type[] functionTypes)
    {
        var logs = new CapturedLogs();
        using var startupLoggerFactory = LoggerFactory.Create(b => b.AddProvider(logs));

        // The local host's own host-building code (tools/LocalHost), with the app's Startup and the test's function types
        // instead of those it reads from the build output's extensions.json and function.json files.
        // The in-process app cannot validate Entra tokens (its host pins Microsoft.IdentityModel 7.1; docs/api.md): tests
        // that do not configure Auth themselves get settings that pass start-up validation in any environment, and
        // handlers whose caller checks are off, so they exercise everything else.
        var appSettings = new Dictionary<string, string?>(settings);
        var callerChecksOff = !appSettings.Keys.Any(k => k.StartsWith("Auth:", StringComparison.Ordinal));
        if (callerChecksOff)
        {
            appSettings["Auth:TenantId"] = "7a1e0000-0000-4000-8000-0000000000f1";
            appSettings["Auth:Audience"] = "7a1e0000-0000-4000-8000-0000000000f2";
        }

        // Tests that do not configure the audit store run without one (none of them has storage); event 7001 is still logged.
        var auditStoreOff = !appSettings.ContainsKey("Audit:Container") && !appSettings.ContainsKey("Audit:Disabled");

        var setup = new FunctionsHostSetup
        {
            ApplicationRootPath = AppContext.BaseDirectory,
            Settings = appSettings,
            StartupTypes = [typeof(Startup)],
            FunctionTypes = functionTypes,
        };
        var host = FunctionsHostFactory.Create(setup, startupLoggerFactory)
            .ConfigureLogging(b => b.AddProvider(logs).SetMinimumLevel(LogLevel.Debug))
            .ConfigureServices(services =>
            {
                if (auditStoreOff)
                {
                    services.AddSingleton(TestAudit.Off());
                }

                overrides?.Invoke(services);
                if (callerChecksOff)
                {
                    services.AddSingleton(TestAuthorizers.Open());
                }
            })
            .Build();

        await host.StartAsync();
        return new FunctionsTestHost(host, logs);
    }

    /// <summary>Invokes an HTTP-triggered function with <paramref name="request"/> and executes its result.</summary>
    public async Task<HttpResponseSnapshot> InvokeHttpAsync(string functionName, HttpRequest request)
    {
        var jobHost = _host.Services.GetRequiredService<IJobHost>();
        await jobHost.CallAsync(functionName, new Dictionary<string, object?> { ["request"] = request });

        var context = request.HttpContext;
        var result = FunctionsHostFactory.TakeResponse(context) as IActionResult
            ?? throw new Xunit.Sdk.XunitException($"{functionName} returned no IActionResult");
        await result.ExecuteResultAsync(new ActionContext(context, new RouteData(), new ActionDescriptor()));

        var body = (MemoryStream)context.Response.Body;
        return new HttpResponseSnapshot(context.Response.StatusCode, context.Response.Headers, context.Response.ContentType, body.ToArray());
    }

    /// <summary>
    /// Calls an HTTP function's method directly (class activated from a DI scope, as the runtime does), bypassing
    /// the trigger binding, and executes its result.
    /// </summary>
    public async Task<HttpResponseSnapshot> InvokeDirectAsync<TFunction>(Func<TFunction, Task<IActionResult>> call, HttpRequest request)
    {
        using var scope = _host.Services.CreateScope();
        var function = ActivatorUtilities.CreateInstance<TFunction>(scope.ServiceProvider);
        var result = await call(function);
        var context = request.HttpContext;
        await result.ExecuteResultAsync(new ActionContext(context, new RouteData(), new ActionDescriptor()));
        var body = (MemoryStream)context.Response.Body;
        return new HttpResponseSnapshot(context.Response.StatusCode, context.Response.Headers, context.Response.ContentType, body.ToArray());
    }

    public T GetService<T>()
        where T : notnull => _host.Services.GetRequiredService<T>();

    public async ValueTask DisposeAsync()
    {
        await _host.StopAsync();
        _host.Dispose();
    }
}
