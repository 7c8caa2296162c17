using Microsoft.Extensions.Configuration;

namespace WidgetSigning.Keys;

/// <summary>
/// Detects Azure by <c>WEBSITE_INSTANCE_ID</c>, which App Service and Azure Functions set on every instance (and which the
/// local Functions tools do not), and development by <c>AZURE_FUNCTIONS_ENVIRONMENT=Development</c> in the app's
/// configuration, which <c>func start</c> sets and which is unset (Production) in Azure.
/// </summary>
internal sealed class AzureEnvironment : IAzureEnvironment
{
    /// <summary>The environment variable that marks an App Service / Functions instance.</summary>
    public const string InstanceIdVariable = "WEBSITE_INSTANCE_ID";

    /// <summary>The setting that names the Functions environment (<c>Development</c>, <c>Staging</c>, <c>Production</c>).</summary>
    public const string EnvironmentSetting = "AZURE_FUNCTIONS_ENVIRONMENT";

    /// <summary>The only <see cref="EnvironmentSetting"/> value that means development.</summary>
    public const string Development = "Development";

    private readonly IConfiguration _configuration;

    /// <summary>Creates the detector over the app's configuration (which, in the Functions host, holds the environment variables).</summary>
    public AzureEnvironment(IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        _configuration = configuration;
    }

    /// <inheritdoc />
    public bool IsRunningInAzure => !string.IsNullOrEmpty(Environment.GetEnvironmentVariable(InstanceIdVariable));

    /// <inheritdoc />
    public bool IsDevelopment => string.Equals(_configuration[EnvironmentSetting], Development, StringComparison.OrdinalIgnoreCase);
}
