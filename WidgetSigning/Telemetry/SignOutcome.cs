namespace WidgetSigning.Telemetry;

/// <summary>How one signing operation ended, as the <c>widgetsigning.outcome</c> tag says it.</summary>
internal enum SignOutcome
{
    /// <summary>Signed: every receiver asked for got its signatures.</summary>
    Signed,

    /// <summary>Refused for something the client can fix (a 4xx, or a rejected queue message).</summary>
    Refused,

    /// <summary>Not signed for a reason of the service's (a 5xx, or a queue attempt that will be retried).</summary>
    Failed,
}
