namespace WidgetSigning.Telemetry;

/// <summary>One cached key's time left until its <c>exp</c>, as the <c>widgetsigning.key.seconds_to_expiry</c> gauge reports it.</summary>
/// <param name="Receiver">The receiver whose key it is.</param>
/// <param name="State">The key's state: <c>current</c>, <c>staged</c> or <c>retiring</c>.</param>
/// <param name="SecondsToExpiry">Seconds from now until its <c>exp</c> (negative once past).</param>
internal readonly record struct KeyExpiryReading(string Receiver, string State, double SecondsToExpiry);
