using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Seed;
using FunctionApp.Benchmarks.Variants;

namespace FunctionApp.Benchmarks.Load;

/// <summary>
/// A quick A/B tool for a noisy, shared machine (<c>-- interleaved [--rounds 40] [--widgets 3000]</c>): the signing
/// variants run in turn, round after round, so background load hits them all alike; per variant it prints the
/// fastest and the median round (mean of several calls each) and both as ratios to HMAC alone. For choosing
/// between variants while iterating; published figures come from BenchmarkDotNet.
/// </summary>
public static class InterleavedRunner
{
    /// <summary>Runs the rounds and writes the table to <paramref name="output"/>.</summary>
    public static int Run(string[] args, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        var rounds = InterleavedRounds.Option(args, "--rounds", 40);
        var widgets = InterleavedRounds.Option(args, "--widgets", BenchmarkData.SeedWidgetCount);
        var data = BenchmarkData.Create(widgets);
        var signer = SignerFactory.Create(out var streams);
        SignatureGuard.EnsureSameSignature(data, signer);
        SignatureGuard.EnsureEachFormAlone(data, signer);
        using var canonical = new MemoryStream();
        WidgetSigning.Envelopes.CanonicalUtf8Writer.Write(data.Ours, canonical);
        var bytes = canonical.ToArray();
        var nullWriter = new NullBufferWriter();
        var key = BenchmarkData.Key;
        var prefix = System.Text.Encoding.ASCII.GetBytes("msg_2Lh3tqZbG7xw6iXkV9aB1c.1764000000.");

        (string Name, Action Run)[] variants =
        [
            ("HMAC alone (array)", () => System.Security.Cryptography.HMACSHA256.HashData(BenchmarkData.KeyBytes, bytes)),
            ("HMAC over pooled blocks", () => key.Sign(new System.Buffers.ReadOnlySequence<byte>(bytes))),
            ("both MACs one after the other (array)", () => SigningVariants.BothMacsOneAfterTheOther(bytes, prefix)),
            ("writer alone (null buffer writer)", () => WidgetSigning.Envelopes.CanonicalUtf8Writer.Write(data.Ours, nullWriter)),
            ("seed RMS", () => SeedSerializeAndSign.SerializeToRecyclableMemoryStreamAndSign(data.Seed)),
            ("v0 staged, then hash", () => SigningVariants.StagedThenHash(streams, data.Ours, key)),
            ("v1 direct, then hash", () => SigningVariants.DirectThenHash(streams, data.Ours, key)),
            ("v2 direct, hash per 64 KB block", () => SigningVariants.DirectHashPerBlock(streams, data.Ours, key)),
            ("v2b direct, hash per 16 KB", () => SigningVariants.DirectHashPerChunk(streams, data.Ours, key, 16 * 1024)),
            ("v2c direct, hash per 4 KB", () => SigningVariants.DirectHashPerChunk(streams, data.Ours, key, 4 * 1024)),
            ("v3 overlapped, 64 KB", () => SigningVariants.Overlapped(streams, data.Ours, key, 64 * 1024)),
            ("v3b overlapped, 16 KB", () => SigningVariants.Overlapped(streams, data.Ours, key, 16 * 1024)),
            ("v4b two MACs, shared (production)", () => SigningVariants.TwoMacsShared(streams, data.Ours, key, prefix)),
            ("EnvelopeSigner.Sign (both forms)", () =>
            {
                using var signed = signer.Sign(data.Ours);
                _ = signed.Signature.ToHex();
            }),
            ("EnvelopeSigner.Sign, plain form alone", () =>
            {
                using var signed = signer.Sign(data.Ours, WidgetSigning.Signing.SignatureForms.Plain);
                _ = signed.Signature.ToHex();
            }),
            ("EnvelopeSigner.Sign, webhook form alone", () =>
            {
                using var signed = signer.Sign(data.Ours, WidgetSigning.Signing.SignatureForms.Webhook);
                _ = signed.Webhook!.Signature;
            }),
        ];

        var calls = Math.Max(1, 3000 * 5 / widgets);
        InterleavedRounds.Run(variants, rounds, calls, $"Interleaved, {widgets:N0} widgets", "HMAC", "N2", output);
        return 0;
    }
}
