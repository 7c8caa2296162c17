using System.Globalization;
using Azure.Core;
using Azure.Core.Pipeline;

namespace WidgetSigning.Keys;

/// <summary>
/// Notes the <c>Retry-After</c> of throttled (429) or unavailable (503) Key Vault responses on the message's
/// <see cref="Signal"/>, so the key source can wait at least that long after a refresh that failed. (The SDK's own
/// retries already honour the header; the exception this SDK version throws does not carry the response.)
/// </summary>
internal sealed class KeyVaultThrottlePolicy : HttpPipelineSynchronousPolicy
{
    /// <summary>The message property that carries the <see cref="Signal"/>.</summary>
    public const string PropertyName = "WidgetSigning.Keys.ThrottleSignal";

    /// <inheritdoc />
    public override void OnReceivedResponse(HttpMessage message)
    {
        ArgumentNullException.ThrowIfNull(message);
        if (message.Response.Status is not (429 or 503) ||
            !message.TryGetProperty(PropertyName, out var property) || property is not Signal signal ||
            !message.Response.Headers.TryGetValue("Retry-After", out var value) || value is null)
        {
            return;
        }

        if (int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var seconds))
        {
            signal.RetryAfter = TimeSpan.FromSeconds(seconds);
        }
        else if (DateTimeOffset.TryParse(value, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out var at))
        {
            signal.RetryAfter = at - DateTimeOffset.UtcNow;
        }
    }

    /// <summary>What the last throttled response of one refresh asked for.</summary>
    public sealed class Signal
    {
        /// <summary>The last <c>Retry-After</c> seen, if any.</summary>
        public TimeSpan? RetryAfter { get; set; }
    }
}
