using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Tooling;

/// <summary>
/// Azurite with the options <c>npm start</c> gives it (--skipApiVersionCheck --loose), for the repository's Node scripts:
/// their JavaScript storage SDK may speak a newer API version than Azurite serves.
/// </summary>
public sealed class NpmStartAzuriteFixture : AzuriteFixture
{
    protected override IEnumerable<string> ExtraArguments(string workspace) => ["--skipApiVersionCheck", "--loose"];
}
