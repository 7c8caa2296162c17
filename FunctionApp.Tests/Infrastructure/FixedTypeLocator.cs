using Microsoft.Azure.WebJobs;

namespace FunctionApp.Tests.Infrastructure;

/// <summary>Limits function discovery to the types a test hosts.</summary>
internal sealed class FixedTypeLocator(IReadOnlyList<Type> types) : ITypeLocator
{
    public IReadOnlyList<Type> GetTypes() => types;
}
