using WidgetSigning.Envelopes;

namespace WidgetSigning.Signing;

/// <summary>
/// The envelope's canonical form would exceed <see cref="EnvelopeOptions.MaxCanonicalBytes"/>; writing stopped there and
/// nothing was signed. The client's doing (escapes multiply some characters' size): HTTP 413, a queue rejection.
/// </summary>
internal sealed class CanonicalTooLargeException : Exception
{
    /// <summary>Creates the exception.</summary>
    public CanonicalTooLargeException()
        : this(EnvelopeOptions.DefaultMaxCanonicalBytes)
    {
    }

    /// <summary>Creates the exception.</summary>
    public CanonicalTooLargeException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public CanonicalTooLargeException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for a limit of <paramref name="maxBytes"/>.</summary>
    public CanonicalTooLargeException(long maxBytes)
        : base($"The envelope's canonical form is larger than {maxBytes} bytes, the limit (setting {EnvelopeOptions.MaxCanonicalBytesSetting}); " +
               "characters written as escapes (U+0085, U+2028, U+2029) count six bytes each. Nothing was signed; sign it in parts.")
    {
        MaxBytes = maxBytes;
    }

    /// <summary>The limit that was hit.</summary>
    public long MaxBytes { get; }
}
