using WidgetSigning.Keys;

namespace FunctionApp.Tests.TestKit;

/// <summary>An <see cref="IAzureEnvironment"/> that says what the test wants.</summary>
/// <remarks>By default a machine outside Azure is a developer's (as under <c>func start</c>), and Azure is not.</remarks>
public sealed class FixedAzureEnvironment(bool isRunningInAzure, bool? isDevelopment = null) : IAzureEnvironment
{
    public bool IsRunningInAzure { get; } = isRunningInAzure;

    public bool IsDevelopment { get; } = isDevelopment ?? !isRunningInAzure;
}
