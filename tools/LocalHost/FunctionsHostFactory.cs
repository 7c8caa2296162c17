using Microsoft.AspNetCore.Http;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Host;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace LocalHost;

/// <summary>
/// Builds a Functions host on the WebJobs SDK the way the in-process Functions host configures its job host: app
/// settings at the configuration root, host.json under <c>AzureFunctionsJobHost</c>, the HTTP extension with the
/// response captured per request, each startup run through <c>UseWebJobsStartup</c> (the <c>IWebJobsStartup2</c> path),
/// functions activated from DI scopes. The local host (<see cref="Program"/>) and the tests' HTTP host use this one code.
/// </summary>
public static class FunctionsHostFactory
{
    /// <summary>The <c>HttpContext.Items</c> key the HTTP extension's response is stored under.</summary>
    public const string ResponseKey = "LocalHost.Response";

    /// <summary>A host builder for <paramref name="setup"/>; the caller adds logging providers, a web server or overrides.</summary>
    public static IHostBuilder Create(FunctionsHostSetup setup, ILoggerFactory startupLoggerFactory)
    {
        ArgumentNullException.ThrowIfNull(setup);
        var settings = new Dictionary<string, string?>(setup.Settings)
        {
            // As the Functions host does: host.json is read from this section, app settings from the root.
            ["AzureWebJobsConfigurationSection"] = "AzureFunctionsJobHost",
        };

        // func start runs in Development unless told otherwise (a null setting unsets it).
        settings.TryAdd("AZURE_FUNCTIONS_ENVIRONMENT", "Development");
        return new HostBuilder()
            .UseEnvironment(Environments.Development)
            .UseContentRoot(setup.ApplicationRootPath)
            .ConfigureAppConfiguration(c => c.AddInMemoryCollection(settings))
            .ConfigureWebJobs((context, builder) =>
            {
                builder.AddHttp(o => o.SetResponse = (request, result) => request.HttpContext.Items[ResponseKey] = result);
                var startupContext = new WebJobsBuilderContext
                {
                    ApplicationRootPath = setup.ApplicationRootPath,
                    Configuration = context.Configuration,
                    EnvironmentName = context.HostingEnvironment.EnvironmentName,
                };
                foreach (var startup in setup.StartupTypes)
                {
                    builder.UseWebJobsStartup(startup, startupContext, startupLoggerFactory);
                }
            })
            .ConfigureServices(services =>
            {
                services.AddSingleton<ITypeLocator>(new FixedTypeLocator(setup.FunctionTypes));
                services.AddSingleton<IJobActivator, ServiceProviderJobActivator>();
            });
    }

    /// <summary>The result the HTTP extension stored for <paramref name="context"/>'s request, if any.</summary>
    public static object? TakeResponse(HttpContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return context.Items.Remove(ResponseKey, out var result) ? result : null;
    }
}
