namespace WidgetSigning.Keys;

/// <summary>
/// The development key (configuration section <c>Signing</c>, so the setting keeps its name <c>Signing:LocalKey</c> that
/// local.settings.json files already carry). Used only when no Key Vault is configured and the app runs with
/// <c>AZURE_FUNCTIONS_ENVIRONMENT=Development</c> (which <c>func start</c> sets); refused everywhere else.
/// </summary>
internal sealed class LocalKeyOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Signing";

    /// <summary>The full name of the <see cref="LocalKey"/> setting.</summary>
    public const string LocalKeySetting = SectionName + ":" + nameof(LocalKey);

    /// <summary>
    /// Base64 of at least 32 bytes. Setting: <c>Signing:LocalKey</c> (<c>Signing__LocalKey</c> as an environment variable).
    /// No default.
    /// </summary>
    public string? LocalKey { get; set; }

    /// <summary>The full name of the <see cref="LocalKeys"/> section.</summary>
    public const string LocalKeysSetting = SectionName + ":" + nameof(LocalKeys);

    /// <summary>
    /// Each receiver's development key, by receiver id: <c>Signing:LocalKeys:partner-a</c> (<c>Signing__LocalKeys__partner-a</c>
    /// as an environment variable), base64 of at least 32 bytes. <see cref="LocalKey"/> is the default receiver's. No default.
    /// </summary>
    public Dictionary<string, string> LocalKeys { get; } = new(StringComparer.Ordinal);
}
