using FunctionApp.Keys;

namespace FunctionApp.Tests.Infrastructure;

/// <summary>An <see cref="IAzureEnvironment"/> that says what the test wants.</summary>
public sealed class FixedAzureEnvironment(bool isRunningInAzure) : IAzureEnvironment
{
    public bool IsRunningInAzure { get; } = isRunningInAzure;
}
