using Microsoft.Extensions.Configuration;
using System.Globalization;
using System.Security.Cryptography;
using FunctionApp.Benchmarks.Seed;
using WidgetSigning.Envelopes;
using WidgetSigning.Keys;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// One logical envelope in both shapes: the seed's POCO and ours, with the same values
/// (widget i has <c>PropertyN = "PropertyN" + i</c>, a random GUID and UTC now, as the seed built it).
/// </summary>
internal sealed class BenchmarkData
{
    /// <summary>The seed's envelope size: 3,000 widgets, about 1 MB of JSON.</summary>
    public const int SeedWidgetCount = 3000;

    private BenchmarkData(SeedWidgetEnvelope seed, WidgetEnvelope ours)
    {
        Seed = seed;
        Ours = ours;
    }

    /// <summary>The envelope as the seed's helper serializes it.</summary>
    public SeedWidgetEnvelope Seed { get; }

    /// <summary>The same envelope as our signer takes it.</summary>
    public WidgetEnvelope Ours { get; }

    /// <summary>A random 32-byte key, shared by the seed's helper and our signer in one process.</summary>
    public static byte[] KeyBytes { get; } = RandomNumberGenerator.GetBytes(32);

    /// <summary>Our signing key over <see cref="KeyBytes"/>.</summary>
    public static SigningKey Key { get; } = new("bench", KeyBytes);

    /// <summary>
    /// The app's settings for a benchmark that wires the service: <see cref="KeyBytes"/> as the local key in Development,
    /// the audit store off, and <paramref name="auth"/> (default: caller checks off).
    /// </summary>
    public static IConfiguration LocalConfiguration(IReadOnlyDictionary<string, string?>? auth = null)
    {
        var settings = new Dictionary<string, string?>(auth ?? new Dictionary<string, string?> { ["Auth:Disabled"] = "true" })
        {
            ["Signing:LocalKey"] = Convert.ToBase64String(KeyBytes),
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development",

            // The handlers in process, without the audit store's network write: the store's cost is measured over a
            // socket (npm run load), and these rows stay comparable with the seed's methods.
            ["Audit:Disabled"] = "true",
        };
        return new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
    }

    /// <summary>The seed's envelope as the seed serializes it (its camel-case contract), UTF-8: the request body the benchmarks send.</summary>
    public byte[] SeedBody() => System.Text.Encoding.UTF8.GetBytes(Newtonsoft.Json.JsonConvert.SerializeObject(Seed, new Newtonsoft.Json.JsonSerializerSettings
    {
        ContractResolver = new Newtonsoft.Json.Serialization.CamelCasePropertyNamesContractResolver(),
    }));

    /// <summary>Builds an envelope of <paramref name="widgetCount"/> widgets in both shapes.</summary>
    public static BenchmarkData Create(int widgetCount)
    {
        SeedSerializeAndSign.UseKey(KeyBytes);
        var seed = new SeedWidgetEnvelope();
        var ours = new List<Widget>(widgetCount);
        for (var i = 1; i <= widgetCount; i++)
        {
            var index = i.ToString(CultureInfo.InvariantCulture);
            var widget = new SeedWidget
            {
                Id = Guid.NewGuid(),
                Property0 = "Property0" + index,
                Property1 = "Property1" + index,
                Property2 = "Property2" + index,
                Property3 = "Property3" + index,
                Property4 = "Property4" + index,
                Property5 = "Property5" + index,
                Property6 = "Property6" + index,
                Property7 = "Property7" + index,
                Property8 = "Property8" + index,
                Property9 = "Property9" + index,
                CreatedUtc = DateTime.UtcNow,
            };
            seed.Widgets.Add(widget);
            ours.Add(new Widget
            {
                Id = widget.Id,
                Property0 = widget.Property0,
                Property1 = widget.Property1,
                Property2 = widget.Property2,
                Property3 = widget.Property3,
                Property4 = widget.Property4,
                Property5 = widget.Property5,
                Property6 = widget.Property6,
                Property7 = widget.Property7,
                Property8 = widget.Property8,
                Property9 = widget.Property9,
                CreatedUtc = widget.CreatedUtc,
            });
        }

        return new BenchmarkData(seed, new WidgetEnvelope(ours));
    }
}
