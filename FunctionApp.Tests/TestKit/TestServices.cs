using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace FunctionApp.Tests.TestKit;

/// <summary>The signing core wired by hand with the vectors' key, for tests below the host.</summary>
public sealed class TestServices
{
    public TestServices(StreamPoolOptions? poolOptions = null)
    {
        Streams = StreamPoolFactory.Create(poolOptions ?? new StreamPoolOptions(), NullLogger.Instance);
        Key = new SigningKey(LocalKeyOptions.LocalKeyId, Vector.Key);
        KeySource = new ConfigurationReceiverKeySource(Options.Create(new LocalKeyOptions { LocalKey = Vector.KeyBase64 }), Options.Create(new ReceiverOptions()));
        Signer = new EnvelopeSigner(Streams, KeySource, NullLogger<EnvelopeSigner>.Instance);
    }

    public RecyclableMemoryStreamManager Streams { get; }

    public SigningKey Key { get; }

    public ConfigurationReceiverKeySource KeySource { get; }

    public EnvelopeSigner Signer { get; }

    public WidgetEnvelopeReader Reader { get; } = new();

    public WidgetEnvelope Read(byte[] json)
    {
        using var stream = new MemoryStream(json, 0, json.Length, writable: false, publiclyVisible: true);
        return Reader.Read(stream);
    }
}
