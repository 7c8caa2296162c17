using System.Globalization;
using WidgetSigning.Envelopes;
using WidgetSigning.Http;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The isolated app in tools/WorkerHost with an envelope limit above the worker's own Kestrel default body limit
/// (30,000,000 bytes): <c>Http:MaxRequestBodyBytes</c> 32 MiB, the host's limit 1/128 above it, canonical forms up to
/// 40 MiB.
/// </summary>
public sealed class IsolatedLargeEnvelopeHostFixture : IsolatedHostFixture
{
    /// <summary>The app's body limit here.</summary>
    public const int BodyLimit = 32 * 1024 * 1024;

    protected override IReadOnlyDictionary<string, string> Overrides { get; } = new Dictionary<string, string>
    {
        [HttpOptions.MaxRequestBodyBytesSetting] = BodyLimit.ToString(CultureInfo.InvariantCulture),
        ["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"] = new HttpOptions { MaxRequestBodyBytes = BodyLimit }.HostBodyLimit.ToString(CultureInfo.InvariantCulture),
        [EnvelopeOptions.MaxCanonicalBytesSetting] = (40 * 1024 * 1024).ToString(CultureInfo.InvariantCulture),
    };
}
