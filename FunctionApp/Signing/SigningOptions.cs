namespace FunctionApp.Signing;

/// <summary>Settings of the signing service (configuration section <c>Signing</c>).</summary>
public sealed class SigningOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Signing";

    /// <summary>
    /// Base64 of at least 32 bytes: the development key, used only when no Key Vault is configured.
    /// Setting: <c>Signing:LocalKey</c> (<c>Signing__LocalKey</c> as an environment variable). No default.
    /// </summary>
    public string? LocalKey { get; set; }

    /// <summary>
    /// The largest request body <c>/api/sign</c> accepts, in bytes; larger bodies get 413.
    /// Setting: <c>Signing:MaxRequestBodyBytes</c>. Default 16 MiB (about 45,000 widgets).
    /// </summary>
    public long MaxRequestBodyBytes { get; set; } = 16 * 1024 * 1024;
}
