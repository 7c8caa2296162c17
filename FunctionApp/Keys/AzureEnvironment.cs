namespace FunctionApp.Keys;

/// <summary>
/// Detects Azure by <c>WEBSITE_INSTANCE_ID</c>, which App Service and Azure Functions set on every instance
/// (and which the local Functions tools do not).
/// </summary>
public sealed class AzureEnvironment : IAzureEnvironment
{
    /// <summary>The environment variable that marks an App Service / Functions instance.</summary>
    public const string InstanceIdVariable = "WEBSITE_INSTANCE_ID";

    /// <inheritdoc />
    public bool IsRunningInAzure => !string.IsNullOrEmpty(Environment.GetEnvironmentVariable(InstanceIdVariable));
}
