using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using WidgetSigning.SpareCores;
using WidgetSigning.Telemetry;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// Our signer built from the same parts, with the same options, as the service builds it: default
/// <see cref="StreamPoolOptions"/>, one pool, the local key plus <see cref="BenchmarkSigning.ReceiverCount"/> receivers
/// of their own (<c>r0</c>, <c>r1</c>, …).
/// </summary>
internal static class SignerFactory
{
    private static readonly IMeterFactory Meters = new ServiceCollection().AddMetrics().BuildServiceProvider().GetRequiredService<IMeterFactory>();
    private static readonly ConfigurationReceiverKeySource Keys = CreateKeys();

    /// <summary>The spare-core options of production (<c>SpareCores</c> defaults: adaptive).</summary>
    public static SpareCoreOptions Adaptive => new();

    /// <summary><c>SpareCores:Mode</c> <c>Never</c>: one thread reads, writes and hashes.</summary>
    public static SpareCoreOptions OneCore => new() { Mode = SpareCoreMode.Never };

    /// <summary>
    /// A second core for any size while at most one signature per core is in flight, whatever the machine's two-core
    /// scaling (<c>MinimumScaling</c> 1.0): the two-core paths on an idle machine.
    /// </summary>
    public static SpareCoreOptions Eager => new() { MinimumBytes = 0, CoresPerSignature = 1, MinimumScaling = 1.0 };

    /// <summary>Creates a signer over a new pool built exactly as production builds it.</summary>
    public static EnvelopeSigner Create(out RecyclableMemoryStreamManager streams)
    {
        streams = StreamPoolFactory.Create(new StreamPoolOptions(), NullLogger.Instance);
        return Create(streams, Adaptive);
    }

    /// <summary>Creates a signer over <paramref name="streams"/> that hands work to a second core as <paramref name="spareCores"/> says.</summary>
    internal static EnvelopeSigner Create(RecyclableMemoryStreamManager streams, SpareCoreOptions spareCores)
    {
        var envelopes = new EnvelopeOptions();
        // The real scaling probe, as production: under a CPU quota or on SMT siblings the adaptive signer signs on one core.
        // Its answer is awaited here, in the benchmark's setup (readings 100 ms apart rather than production's 15 s): measured
        // while a benchmark runs, it would read the benchmark.
        var policy = new SpareCorePolicy(Options.Create(spareCores), new SigningMetrics(Meters), NullLogger.Instance, probe: CoreScalingProbe.Real(), TimeSpan.FromMilliseconds(100));
        policy.ScalingKnown.GetAwaiter().GetResult();
        var pass = new CanonicalPass(policy);
        return new EnvelopeSigner(streams, Keys, new WidgetEnvelopeReader(envelopes), pass, Options.Create(envelopes), TimeProvider.System, NullLogger<EnvelopeSigner>.Instance);
    }

    /// <summary>Reads <paramref name="body"/> and signs it as <c>/api/sign</c> does (<c>EnvelopeSigner.SignAsync</c> over a body); the hex signature.</summary>
    internal static string ReadAndSign(EnvelopeSigner signer, byte[] body)
    {
        using var signed = signer.SignAsync(new MemoryStream(body, writable: false), SignRequest.For(BenchmarkSigning.Receiver), CancellationToken.None).AsTask().GetAwaiter().GetResult();
        return signed.Signature.ToHex();
    }

    private static ConfigurationReceiverKeySource CreateKeys()
    {
        var local = new LocalKeyOptions { LocalKey = Convert.ToBase64String(BenchmarkData.KeyBytes) };
        foreach (var receiver in BenchmarkSigning.Receivers(BenchmarkSigning.ReceiverCount))
        {
            local.LocalKeys[receiver.Value] = Convert.ToBase64String(System.Security.Cryptography.RandomNumberGenerator.GetBytes(32));
        }

        return new ConfigurationReceiverKeySource(Options.Create(local), Options.Create(new ReceiverOptions()));
    }
}
