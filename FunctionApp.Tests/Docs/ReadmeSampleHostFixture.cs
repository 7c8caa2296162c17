using FunctionApp.Tests.Infra;
using FunctionApp.Tests.Isolated;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.Docs;

/// <summary>
/// The isolated app as <c>npm start</c> runs it for the README: in tools/WorkerHost with the settings of
/// FunctionApp.Isolated/local.settings.sample.json, its development key included (the other isolated fixtures sign with
/// the known-answer vectors' key instead).
/// </summary>
public sealed class ReadmeSampleHostFixture : IsolatedHostFixture
{
    /// <summary>The sample's <c>Signing:LocalKey</c>, which the README says gives its sample signature.</summary>
    public static string SampleKey { get; } =
        (string)JObject.Parse(RepoFiles.ReadAllText("FunctionApp.Isolated", "local.settings.sample.json"))["Values"]!["Signing:LocalKey"]!;

    protected override IReadOnlyDictionary<string, string> Overrides { get; } = new Dictionary<string, string>
    {
        ["Signing:LocalKey"] = SampleKey,
    };
}
