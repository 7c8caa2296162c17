namespace WidgetSigning.Keys;

/// <summary>Hard limits no setting can raise.</summary>
internal static class SigningLimits
{
    /// <summary>The most receivers one signature is made for (<c>Receivers:MaxPerRequest</c> stays within it).</summary>
    public const int MaxReceiversPerRequest = 64;
}
