using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace FunctionApp.Tests.Infrastructure;

/// <summary>Conveniences only tests need, kept out of the production API.</summary>
public static class SigningTestExtensions
{
    /// <summary>The signature <paramref name="key"/> gives <paramref name="envelope"/>, the pooled bytes returned at once.</summary>
    public static Signature ComputeSignature(this EnvelopeSigner signer, WidgetEnvelope envelope, SigningKey key)
    {
        using var signed = signer.Sign(envelope, key);
        return signed.Signature;
    }

    /// <summary>Copies the canonical bytes to <paramref name="destination"/>, block by block.</summary>
    public static void CopyCanonicalTo(this SignedEnvelope signed, Stream destination)
    {
        foreach (var block in signed.GetCanonicalBytes())
        {
            destination.Write(block.Span);
        }
    }
}
