using Microsoft.Azure.WebJobs;

namespace LocalHost;

/// <summary>Limits function discovery to the given types (the host's function.json entry points, or a test's list).</summary>
internal sealed class FixedTypeLocator(IReadOnlyList<Type> types) : ITypeLocator
{
    public IReadOnlyList<Type> GetTypes() => types;
}
