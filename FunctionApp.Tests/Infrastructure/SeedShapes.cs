using System.Text;
using Newtonsoft.Json;
using Newtonsoft.Json.Serialization;

namespace FunctionApp.Tests.Infrastructure;

/// <summary>
/// The seed benchmark's POCOs and serializer settings, as CANONICAL.md defines the bytes: an independent
/// oracle for our canonical writer (reflection-based Newtonsoft, nothing of ours).
/// </summary>
public static class SeedShapes
{
    public static readonly JsonSerializerSettings CanonicalSettings = new()
    {
        ContractResolver = new CamelCasePropertyNamesContractResolver(),
        Formatting = Formatting.None,
        DateTimeZoneHandling = DateTimeZoneHandling.Utc,
    };

    public static byte[] SerializeWithNewtonsoft(SeedEnvelope envelope) =>
        new UTF8Encoding(false).GetBytes(JsonConvert.SerializeObject(envelope, CanonicalSettings));

    public sealed class SeedEnvelope
    {
        public List<SeedWidget> Widgets { get; set; } = [];
    }

    public sealed class SeedWidget
    {
        public Guid Id { get; set; }

        public string Property0 { get; set; } = null!;

        public string Property1 { get; set; } = null!;

        public string Property2 { get; set; } = null!;

        public string Property3 { get; set; } = null!;

        public string Property4 { get; set; } = null!;

        public string Property5 { get; set; } = null!;

        public string Property6 { get; set; } = null!;

        public string Property7 { get; set; } = null!;

        public string Property8 { get; set; } = null!;

        public string Property9 { get; set; } = null!;

        public DateTime CreatedUtc { get; set; }
    }
}
