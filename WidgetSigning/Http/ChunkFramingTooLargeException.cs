using System.Globalization;

namespace WidgetSigning.Http;

/// <summary>
/// The host refused a chunked body at its own limit (<c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>), which counts chunk-size
/// lines, their line ends and chunk extensions with the data, while the envelope bytes read so far were well within
/// <c>Http:MaxRequestBodyBytes</c>: the framing was too large (a long chunk extension, or chunks of a few bytes each).
/// </summary>
internal sealed class ChunkFramingTooLargeException : Exception
{
    /// <summary>Creates the exception.</summary>
    public ChunkFramingTooLargeException()
        : this("The chunked framing of the request body is too large.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public ChunkFramingTooLargeException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public ChunkFramingTooLargeException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>
    /// Creates the exception for a refusal after <paramref name="envelopeBytes"/> bytes of envelope, by a host whose limit
    /// is <paramref name="hostLimit"/> bytes (null when the host does not say).
    /// </summary>
    public ChunkFramingTooLargeException(long envelopeBytes, long? hostLimit, Exception? innerException)
        : base(Describe(envelopeBytes, hostLimit), innerException)
    {
        EnvelopeBytes = envelopeBytes;
        HostLimit = hostLimit;
    }

    /// <summary>The envelope bytes that had been read when the host refused the body.</summary>
    public long EnvelopeBytes { get; }

    /// <summary>The host's body limit in bytes, if the host says.</summary>
    public long? HostLimit { get; }

    private static string Describe(long envelopeBytes, long? hostLimit)
    {
        var limit = hostLimit is { } bytes ? string.Create(CultureInfo.InvariantCulture, $" of {bytes} bytes") : string.Empty;
        return string.Create(
            CultureInfo.InvariantCulture,
            $"The chunked framing is too large: the host stopped the body at its limit{limit} (setting {ProblemMapper.HostBodyLimitSetting}), which counts chunk-size lines and chunk extensions with the data, when only {envelopeBytes} bytes of envelope had arrived. Send the envelope without chunk extensions, in chunks of at least 1 KiB, or with Content-Length. Nothing was signed.");
    }
}
