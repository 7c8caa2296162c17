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
    /// Signs <paramref name="envelope"/> for the default receiver with <paramref name="key"/> alone, under a new webhook id;
    /// keys given complete synchronously. Dispose the result.
    /// </summary>
    public static SignedEnvelope SignWith(
        this EnvelopeSigner signer, WidgetEnvelope envelope, SigningKey key, SignatureForms forms = SignatureForms.Both, EnvelopeBudgetLease? lease = null)
    {
        var pending = signer.SignAsync(envelope, RequestWith(key, forms: forms, lease: lease), CancellationToken.None);

        // Taken straight from the completed ValueTask: allocation tests count what signing costs, not a Task around it.
        return pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
    }

    /// <summary>A request for the default receiver with <paramref name="key"/> (and any <paramref name="staged"/> keys) given.</summary>
    public static SignRequest RequestWith(
        SigningKey key, SigningKey[]? staged = null, SignatureForms forms = SignatureForms.Both, string? webhookId = null, WebhookIdSeed? seed = null, EnvelopeBudgetLease? lease = null) =>
        new()
        {
            Receivers = [DefaultReceiver],
            Keys = [new ReceiverKeys(DefaultReceiver, new SigningKeys(key, staged ?? []))],
            Forms = forms,
            WebhookId = webhookId,
            IdSeed = seed,
            Lease = lease,
        };

    /// <summary>The signature <paramref name="key"/> gives <paramref name="envelope"/>, the pooled bytes returned at once.</summary>
    public static Signature ComputeSignature(this EnvelopeSigner signer, WidgetEnvelope envelope, SigningKey key)
    {
        using var signed = signer.SignWith(envelope, key);
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
