using WidgetSigning.Keys;
using WidgetSigning.Pipeline;
using WidgetSigning.Signing;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>Our signer as the service wires it: default <see cref="StreamPoolOptions"/>, one pool.</summary>
internal static class SignerFactory
{
    /// <summary>Creates a signer over a new pool built exactly as production builds it.</summary>
    public static EnvelopeSigner Create(out RecyclableMemoryStreamManager streams)
    {
        streams = StreamPoolFactory.Create(new StreamPoolOptions(), NullLogger.Instance);
        return Create(streams, SpareCoreMode.Adaptive);
    }

    /// <summary>Creates a signer over <paramref name="streams"/> that hands work to a second core as <paramref name="mode"/> says.</summary>
    internal static EnvelopeSigner Create(RecyclableMemoryStreamManager streams, SpareCoreMode mode) =>
        new(streams, Keys, NullLogger<EnvelopeSigner>.Instance, spareCores: SpareCorePolicy.For(mode));

    /// <summary>Reads <paramref name="body"/> and signs it as <c>/api/sign</c> does (<c>EnvelopeSigner.ReadAndSignAsync</c>); the hex signature.</summary>
    internal static string ReadAndSign(EnvelopeSigner signer, WidgetSigning.Envelopes.WidgetEnvelopeReader reader, byte[] body)
    {
        using var signed = signer.ReadAndSignAsync(new MemoryStream(body, writable: false), reader, SignRequest.For(BenchmarkSigning.Receiver), CancellationToken.None).AsTask().GetAwaiter().GetResult();
        return signed.Signature.ToHex();
    }

    private static ConfigurationReceiverKeySource Keys =>
        new(Options.Create(new LocalKeyOptions { LocalKey = Convert.ToBase64String(BenchmarkData.KeyBytes) }), Options.Create(new ReceiverOptions()));
}
