using FunctionApp.Queues;
using FunctionApp.Signing;
using Microsoft.Azure.Functions.Extensions.DependencyInjection;

[assembly: FunctionsStartup(typeof(FunctionApp.Startup))]

namespace FunctionApp;

/// <summary>
/// The in-process host's entry point for DI. Everything it registers lives in the host-independent
/// <see cref="SigningServiceCollectionExtensions"/> and <see cref="QueueSigningServiceCollectionExtensions"/>. The queue
/// trigger and bindings are the official storage extension, which the host loads itself (extensions.json lists its
/// startup); only this class and the adapters in Functions/ know about Functions.
/// </summary>
public sealed class Startup : FunctionsStartup
{
    /// <inheritdoc />
    public override void Configure(IFunctionsHostBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var configuration = builder.GetContext().Configuration;
        builder.Services.AddWidgetSigning(configuration).AddWidgetQueueSigning(configuration);
    }
}
