using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Signing;

/// <summary>Standard Webhooks verification (configuration section <c>Webhooks</c>).</summary>
internal sealed class WebhookOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Webhooks";

    /// <summary>
    /// How far <c>webhook-timestamp</c> may be from the verifier's clock, either way, for <c>/api/verify</c> to accept it:
    /// older is a replay (<c>timestamp-too-old</c>), newer is from the future (<c>timestamp-in-future</c>). Setting:
    /// <c>Webhooks:TimestampTolerance</c>. Default 5 minutes, the Standard Webhooks libraries' own default.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:01", "1.00:00:00", ParseLimitsInInvariantCulture = true, ErrorMessage = SectionName + ":{0} must be between {1} and {2}.")]
    public TimeSpan TimestampTolerance { get; set; } = TimeSpan.FromMinutes(5);
}
