namespace WidgetSigning.Keys;

/// <summary>An earlier version that still verifies, and when its successor took over from it.</summary>
internal readonly record struct RetiringVersion(KeyVersion Version, DateTimeOffset ReplacedOn);
