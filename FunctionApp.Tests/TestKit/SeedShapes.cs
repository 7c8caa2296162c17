using System.Text;
using FunctionApp.Benchmarks.Seed;
using Newtonsoft.Json;
using Newtonsoft.Json.Serialization;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Newtonsoft's reflection serializer with the settings docs/signing-contract.md defines the bytes by, over the seed
/// benchmark's POCOs (from FunctionApp.Benchmarks): an independent oracle for our canonical writer.
/// </summary>
public static class SeedShapes
{
    public static readonly JsonSerializerSettings CanonicalSettings = new()
    {
        ContractResolver = new CamelCasePropertyNamesContractResolver(),
        Formatting = Formatting.None,
        DateTimeZoneHandling = DateTimeZoneHandling.Utc,
    };

    public static byte[] SerializeWithNewtonsoft(SeedWidgetEnvelope envelope) =>
        new UTF8Encoding(false).GetBytes(JsonConvert.SerializeObject(envelope, CanonicalSettings));
}
