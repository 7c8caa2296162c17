using WidgetSigning.Http;
using WidgetSigning.Queues;
using WidgetSigning.Signing;
using Microsoft.Azure.Functions.Extensions.DependencyInjection;

[assembly: FunctionsStartup(typeof(FunctionApp.Startup))]

namespace FunctionApp;

/// <summary>
/// The in-process host's entry point for DI. Everything it registers lives in the host-independent
/// <see cref="SigningServiceCollectionExtensions"/>, <see cref="HttpServiceCollectionExtensions"/> and
/// <see cref="QueueSigningServiceCollectionExtensions"/>. The queue trigger is our own WebJobs extension, registered by its
/// own <c>[assembly: WebJobsStartup]</c> (Functions/QueueTrigger), which the host loads from extensions.json like any
/// extension; only this class and Functions/ know about Functions.
/// </summary>
public sealed class Startup : FunctionsStartup
{
    /// <inheritdoc />
    public override void Configure(IFunctionsHostBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var configuration = builder.GetContext().Configuration;
        builder.Services.AddWidgetSigning(configuration).AddWidgetHttp(configuration).AddWidgetQueueSigning(configuration);
    }
}
