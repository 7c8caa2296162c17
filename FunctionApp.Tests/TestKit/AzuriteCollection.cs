namespace FunctionApp.Tests.TestKit;

/// <summary>Tests in this collection share one Azurite (and so do not run in parallel with each other).</summary>
[CollectionDefinition(Name)]
public sealed class AzuriteCollection : ICollectionFixture<AzuriteFixture>
{
    public const string Name = "Azurite";
}
