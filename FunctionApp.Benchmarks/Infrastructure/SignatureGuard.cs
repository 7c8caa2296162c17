using System.Buffers;
using System.Text;
using FunctionApp.Benchmarks.Seed;
using WidgetSigning.Signing;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// Fails a benchmark before it is measured if our signer and the seed's helper would not sign the same
/// bytes: a faster signer that signs something else proves nothing.
/// </summary>
internal static class SignatureGuard
{
    /// <summary>Throws unless every seed method and our signer give the same signature for <paramref name="data"/>.</summary>
    public static string EnsureSameSignature(BenchmarkData data, EnvelopeSigner signer)
    {
        ArgumentNullException.ThrowIfNull(data);
        ArgumentNullException.ThrowIfNull(signer);
        var seedRms = SeedSerializeAndSign.SerializeToRecyclableMemoryStreamAndSign(data.Seed);
        var seedString = SeedSerializeAndSign.SerializeToStringAndSign(data.Seed);
        var seedMemoryStream = SeedSerializeAndSign.SerializeToMemoryStreamAndSign(data.Seed);
        string ours;
        using (var signed = signer.Sign(data.Ours))
        {
            ours = signed.Signature.ToHex();
        }


        if (seedRms != ours || seedString != ours || seedMemoryStream != ours)
        {
            var report = new StringBuilder()
                .Append("Our signer and the seed's helper disagree on the same envelope (")
                .Append(data.Ours.Widgets.Count)
                .Append(" widgets): ours ").Append(ours)
                .Append(", seed RMS ").Append(seedRms)
                .Append(", seed string ").Append(seedString)
                .Append(", seed MemoryStream ").Append(seedMemoryStream)
                .Append(". The benchmark would compare different work.");
            throw new InvalidOperationException(report.ToString());
        }

        return ours;
    }

    /// <summary>
    /// Throws unless each form alone signs what both forms sign: the plain form's hex equals the seed's, and the
    /// Standard Webhooks form's entry is the HMAC of <c>id.timestamp.</c> + the same canonical bytes, computed here.
    /// </summary>
    public static void EnsureEachFormAlone(BenchmarkData data, EnvelopeSigner signer)
    {
        ArgumentNullException.ThrowIfNull(data);
        ArgumentNullException.ThrowIfNull(signer);
        var seed = SeedSerializeAndSign.SerializeToRecyclableMemoryStreamAndSign(data.Seed);
        using var plain = signer.Sign(data.Ours, SignatureForms.Plain);
        using var webhook = signer.Sign(data.Ours, SignatureForms.Webhook);
        var canonical = webhook.GetCanonicalBytes().ToArray();
        var prefixed = Encoding.ASCII.GetBytes($"{webhook.Webhook!.Id}.{webhook.Webhook.Timestamp}.").Concat(canonical).ToArray();
        var expected = StandardWebhooks.VersionPrefix + Convert.ToBase64String(System.Security.Cryptography.HMACSHA256.HashData(BenchmarkData.KeyBytes, prefixed));
        if (plain.Signature.ToHex() != seed || plain.Webhook is not null || webhook.Webhook.Signature != expected || webhook.Signatures.Count != 0)
        {
            throw new InvalidOperationException(
                $"A form alone signs something else: plain {plain.Signature.ToHex()} (seed {seed}), webhook {webhook.Webhook.Signature} (expected {expected}). The rows would compare different work.");
        }
    }
}
