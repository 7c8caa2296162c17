using System.Text;
using FunctionApp.Benchmarks.Seed;
using WidgetSigning.Signing;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// Fails a benchmark before it is measured if our signer and the seed's helper would not sign the same
/// bytes: a faster signer that signs something else proves nothing.
/// </summary>
public static class SignatureGuard
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
        using (var signed = signer.Sign(data.Ours, BenchmarkData.Key))
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
}
