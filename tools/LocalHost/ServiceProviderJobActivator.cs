using Microsoft.Azure.WebJobs.Host;
using Microsoft.Azure.WebJobs.Host.Executors;
using Microsoft.Extensions.DependencyInjection;

namespace LocalHost;

/// <summary>
/// Creates function class instances from the invocation's scoped services, as the Functions runtime does for
/// in-process apps (the SDK's default activator ignores DI).
/// </summary>
internal sealed class ServiceProviderJobActivator(IServiceProvider services) : IJobActivatorEx
{
    public T CreateInstance<T>() => ActivatorUtilities.CreateInstance<T>(services);

    public T CreateInstance<T>(IFunctionInstanceEx functionInstance) =>
        ActivatorUtilities.CreateInstance<T>(functionInstance.InstanceServices ?? services);
}
