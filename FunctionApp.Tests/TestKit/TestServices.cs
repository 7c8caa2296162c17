using System.Diagnostics.Metrics;
using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using WidgetSigning.SpareCores;
using WidgetSigning.Telemetry;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// The signing core wired by hand with the vectors' key, for tests below the host: every part built with the
/// dependencies production gives it (no part falls back to a default of its own).
/// </summary>
internal sealed class TestServices
{
    public TestServices(StreamPoolOptions? poolOptions = null)
    {
        Streams = StreamPoolFactory.Create(poolOptions ?? new StreamPoolOptions(), NullLogger.Instance);
        Key = new SigningKey(ConfigurationReceiverKeySource.LocalKeyId, Vector.Key);
        KeySource = new ConfigurationReceiverKeySource(Options.Create(new LocalKeyOptions { LocalKey = Vector.KeyBase64 }), Options.Create(new ReceiverOptions()));
        Signer = CreateSigner();
    }

    /// <summary>A meter factory as DI's <c>AddMetrics</c> gives one.</summary>
    public static IMeterFactory Meters { get; } = new ServiceCollection().AddMetrics().BuildServiceProvider().GetRequiredService<IMeterFactory>();

    /// <summary><c>SpareCores:Mode</c> <c>Never</c>: one thread reads, writes and hashes.</summary>
    public static SpareCoreOptions OneCore => new() { Mode = SpareCoreMode.Never };

    /// <summary>
    /// A second core for any size while at most one signature per core is in flight, whatever the machine's two-core
    /// scaling (<c>MinimumScaling</c> 1.0): the two-core paths on an idle machine.
    /// </summary>
    public static SpareCoreOptions Eager => new() { MinimumBytes = 0, CoresPerSignature = 1, MinimumScaling = 1.0 };

    public RecyclableMemoryStreamManager Streams { get; }

    public SigningKey Key { get; }

    public ConfigurationReceiverKeySource KeySource { get; }

    public EnvelopeSigner Signer { get; }

    public WidgetEnvelopeReader Reader { get; } = new();

    /// <summary>Instruments on <see cref="Meters"/>, as DI builds them.</summary>
    public static SigningMetrics Metrics() => new(Meters);

    /// <summary>
    /// A spare-core policy from <paramref name="options"/> (production's defaults without) on a machine whose two cores
    /// hash <paramref name="scaling"/> times as fast as one (2.0, two real cores, without: no test depends on the probe's timing).
    /// </summary>
    public static SpareCorePolicy SpareCores(SpareCoreOptions? options = null, double scaling = 2.0) =>
        new(Options.Create(options ?? new SpareCoreOptions()), Metrics(), NullLogger.Instance, CoreScalingProbe.Fixed(scaling));

    /// <summary>
    /// A signer over this pool as production builds one, with <paramref name="keys"/> (this key source without), the
    /// spare-core options (production's defaults without) or <paramref name="policy"/>, the envelope options and the clock given.
    /// </summary>
    public EnvelopeSigner CreateSigner(IReceiverKeySource? keys = null, SpareCoreOptions? spareCores = null, EnvelopeOptions? envelopes = null, TimeProvider? time = null, SpareCorePolicy? policy = null)
    {
        envelopes ??= new EnvelopeOptions();
        return new EnvelopeSigner(
            Streams,
            keys ?? KeySource,
            new WidgetEnvelopeReader(envelopes),
            new CanonicalPass(policy ?? SpareCores(spareCores)),
            Options.Create(envelopes),
            time ?? TimeProvider.System,
            NullLogger<EnvelopeSigner>.Instance);
    }

    /// <summary>A memory budget no test envelope reaches, for tests of something else.</summary>
    public static EnvelopeMemoryBudget NoBudget { get; } = new(long.MaxValue / 2, TimeSpan.Zero);

    public WidgetEnvelope Read(byte[] json)
    {
        using var stream = new MemoryStream(json, 0, json.Length, writable: false, publiclyVisible: true);
        return Reader.Read(stream);
    }
}
