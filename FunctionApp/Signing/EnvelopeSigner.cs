using FunctionApp.Envelopes;
using FunctionApp.Keys;
using Microsoft.Extensions.Logging;
using Microsoft.IO;

namespace FunctionApp.Signing;

/// <summary>
/// Signs envelopes: writes the canonical JSON into a pooled stream and computes HMAC-SHA256 over the
/// stream's blocks. Host-independent: nothing here knows about Functions, HTTP or queues.
/// </summary>
public sealed class EnvelopeSigner
{
    private const string StreamTag = "canonical-envelope";

    // {"widgets":[]}, and one widget with empty strings and a whole-second date (a lower bound).
    private const int MinimumEnvelopeBytes = 14;
    private const int MinimumWidgetBytes = 231;

    private readonly RecyclableMemoryStreamManager _streams;
    private readonly ISigningKeySource _keys;
    private readonly ILogger<EnvelopeSigner> _logger;

    /// <summary>Creates the signer.</summary>
    public EnvelopeSigner(RecyclableMemoryStreamManager streams, ISigningKeySource keys, ILogger<EnvelopeSigner> logger)
    {
        _streams = streams;
        _keys = keys;
        _logger = logger;
    }

    /// <summary>Signs <paramref name="envelope"/> with the current key.</summary>
    /// <exception cref="SigningKeyUnavailableException">No key is available yet.</exception>
    public async ValueTask<SignedEnvelope> SignAsync(WidgetEnvelope envelope, CancellationToken cancellationToken)
    {
        var key = await _keys.GetCurrentKeyAsync(cancellationToken).ConfigureAwait(false);
        return Sign(envelope, key);
    }

    /// <summary>Signs <paramref name="envelope"/> with <paramref name="key"/>. Dispose the result.</summary>
    public SignedEnvelope Sign(WidgetEnvelope envelope, SigningKey key)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        ArgumentNullException.ThrowIfNull(key);
        // Sized up front from a lower bound (each widget's fixed members), so the stream doesn't grow its block
        // list one block at a time on large envelopes.
        var canonical = _streams.GetStream(StreamTag, EstimateCanonicalLength(envelope));
        try
        {
            // Written straight into the stream's blocks, each block hashed as soon as it is full.
            var signature = key.SignWhileWriting(canonical, envelope, static (blocks, e) => CanonicalUtf8Writer.Write(e, blocks));
            SigningLog.Signed(_logger, envelope.Widgets.Count, canonical.Length, key.KeyId);
            return new SignedEnvelope(canonical, signature, key.KeyId, envelope.Widgets.Count);
        }
        catch
        {
            canonical.Dispose();
            throw;
        }
    }

    internal static long EstimateCanonicalLength(WidgetEnvelope envelope) =>
        MinimumEnvelopeBytes + ((long)envelope.Widgets.Count * MinimumWidgetBytes);

    /// <summary>Writes the canonical bytes of <paramref name="envelope"/> to <paramref name="destination"/> (through a 16 KB staging buffer).</summary>
    public static void WriteCanonical(WidgetEnvelope envelope, Stream destination)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        ArgumentNullException.ThrowIfNull(destination);

        CanonicalUtf8Writer.Write(envelope, destination);
    }
}
