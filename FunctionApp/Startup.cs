using FunctionApp.Signing;
using Microsoft.Azure.Functions.Extensions.DependencyInjection;

[assembly: FunctionsStartup(typeof(FunctionApp.Startup))]

namespace FunctionApp;

/// <summary>
/// The in-process host's entry point for DI. Everything it registers lives in the host-independent
/// <see cref="SigningServiceCollectionExtensions"/>; only this class knows about Functions.
/// </summary>
public sealed class Startup : FunctionsStartup
{
    /// <inheritdoc />
    public override void Configure(IFunctionsHostBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Services.AddWidgetSigning(builder.GetContext().Configuration);
    }
}
