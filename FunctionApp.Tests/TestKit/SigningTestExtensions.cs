using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace FunctionApp.Tests.TestKit;

/// <summary>Conveniences only tests need, kept out of the production API.</summary>
internal static class SigningTestExtensions
{
    /// <summary>The receiver a request that names none is signed for (<c>Receivers:DefaultReceiver</c>'s default).</summary>
    public static ReceiverId DefaultReceiver { get; } = ReceiverId.Parse(ReceiverOptions.DefaultReceiverId);

    /// <summary>
    /// Signs <paramref name="envelope"/> for the default receiver with the signer's keys, under a new webhook id; keys
    /// in memory complete synchronously. Dispose the result.
    /// </summary>
    public static SignedEnvelope SignWith(this EnvelopeSigner signer, WidgetEnvelope envelope, SignatureForms forms = SignatureForms.Both, EnvelopeBudgetLease? lease = null)
    {
        var pending = signer.SignAsync(envelope, Request(forms: forms, lease: lease), CancellationToken.None);

        // Taken straight from the completed ValueTask: allocation tests count what signing costs, not a Task around it.
        return pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
    }

    /// <summary>A request for the default receiver.</summary>
    public static SignRequest Request(SignatureForms forms = SignatureForms.Both, string? webhookId = null, WebhookIdSeed? seed = null, EnvelopeBudgetLease? lease = null) =>
        new()
        {
            Receivers = [DefaultReceiver],
            Forms = forms,
            WebhookId = webhookId,
            IdSeed = seed,
            Lease = lease,
        };

    /// <summary>The signature the signer's key gives <paramref name="envelope"/>, the pooled bytes returned at once.</summary>
    public static Signature ComputeSignature(this EnvelopeSigner signer, WidgetEnvelope envelope)
    {
        using var signed = signer.SignWith(envelope);
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
