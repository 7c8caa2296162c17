using FunctionApp.Benchmarks.Infrastructure;
using WidgetSigning.Envelopes;
using WidgetSigning.Signing;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// The quick A/B of reading and signing (<c>-- interleaved-pipeline [--rounds 40]</c>): reading alone, signing while reading on one core,
/// signing behind the reader, and the adaptive production path, in turn round after round on the seed body, with the
/// in-memory signer's three modes beside them. For iterating on a shared machine; published figures come from BenchmarkDotNet.
/// </summary>
public static class PipelineInterleavedRunner
{
    /// <summary>Runs the rounds and writes the table to <paramref name="output"/>.</summary>
    public static int Run(string[] args, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        var rounds = InterleavedRounds.Option(args, "--rounds", 40);
        var data = BenchmarkData.Create(BenchmarkData.SeedWidgetCount);
        var body = data.SeedBody();
        var adaptive = SignerFactory.Create(out var streams);
        var never = SignerFactory.Create(streams, SignerFactory.OneCore);
        var eager = SignerFactory.Create(streams, SignerFactory.Eager);
        var reader = new WidgetEnvelopeReader();
        var key = BenchmarkData.Key;

        void Sign(EnvelopeSigner signer)
        {
            using var signed = signer.Sign(data.Ours);
        }

        using var canonical = new MemoryStream();
        WidgetSigning.Envelopes.CanonicalUtf8Writer.Write(data.Ours, canonical);
        var bytes = canonical.ToArray();
        void Hmac() => System.Security.Cryptography.HMACSHA256.HashData(BenchmarkData.KeyBytes, bytes);

        (string Name, Action Run)[] variants =
        [
            ("HMAC alone (array)", Hmac),
            ("two HMACs, one after the other", () =>
            {
                Hmac();
                Hmac();
            }),
            ("two HMACs on two threads at once", () => Parallel.Invoke(Hmac, Hmac)),
            ("writer alone", () => WidgetSigning.Envelopes.CanonicalUtf8Writer.Write(data.Ours, Stream.Null)),
            ("read alone", () => reader.Read(new MemoryStream(body, writable: false))),
            ("read alone, while the other core hashes 2 MB", () => Parallel.Invoke(() => reader.Read(new MemoryStream(body, writable: false)), Hmac, Hmac)),
            ("sign while reading (one core)", () => SignerFactory.ReadAndSign(never, body)),
            ("sign behind the reader (eager: a spare core for any size)", () => SignerFactory.ReadAndSign(eager, body)),
            ("SignAsync over the body (adaptive)", () => SignerFactory.ReadAndSign(adaptive, body)),
            ("sign in memory, one core", () => Sign(never)),
            ("sign in memory, MACs split over two cores", () => Sign(eager)),
            ("sign in memory (adaptive)", () => Sign(adaptive)),
        ];

        InterleavedRounds.Run(variants, rounds, 3, "Interleaved, the seed body (3,000 widgets)", "HMAC alone", "N2", output);
        return 0;
    }
}
