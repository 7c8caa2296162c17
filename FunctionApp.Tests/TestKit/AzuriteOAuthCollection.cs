namespace FunctionApp.Tests.TestKit;

/// <summary>Tests in this collection share one Azurite in OAuth mode over HTTPS.</summary>
[CollectionDefinition(Name)]
public sealed class AzuriteOAuthCollection : ICollectionFixture<AzuriteOAuthFixture>
{
    public const string Name = "AzuriteOAuth";
}
