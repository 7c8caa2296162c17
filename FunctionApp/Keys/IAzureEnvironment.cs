namespace FunctionApp.Keys;

/// <summary>Tells whether the app runs in Azure (App Service / Functions) or on a developer's machine.</summary>
public interface IAzureEnvironment
{
    /// <summary>True in Azure: keys must come from Key Vault, through a managed identity.</summary>
    bool IsRunningInAzure { get; }
}
