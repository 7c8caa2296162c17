namespace WidgetSigning.Keys;

/// <summary>Tells whether the app runs in Azure (App Service / Functions) or on a developer's machine.</summary>
internal interface IAzureEnvironment
{
    /// <summary>True in Azure: keys must come from Key Vault, through a managed identity.</summary>
    bool IsRunningInAzure { get; }

    /// <summary>
    /// True only when the app says it runs in development: <c>AZURE_FUNCTIONS_ENVIRONMENT=Development</c>, which
    /// <c>func start</c> sets. Only then is the development key (<c>Signing:LocalKey</c>) accepted.
    /// </summary>
    bool IsDevelopment { get; }
}
