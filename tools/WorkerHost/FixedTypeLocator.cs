using Microsoft.Azure.WebJobs;

namespace WorkerHost;

/// <summary>Limits WebJobs function discovery to the emitted queue-function type (nothing else in this process is a function).</summary>
internal sealed class FixedTypeLocator(IReadOnlyList<Type> types) : ITypeLocator
{
    public IReadOnlyList<Type> GetTypes() => types;
}
