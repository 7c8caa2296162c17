using System.Buffers;
using Microsoft.Extensions.Logging;
using Microsoft.IO;
using WidgetSigning.Hashing;
using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>Turns the finished MACs of one pass into a <see cref="SignedEnvelope"/>, labelled receiver by receiver.</summary>
internal static class SignatureSeal
{
    /// <summary>
    /// Labels the MACs, receiver by receiver: its current key's (<c>X-Signature</c>, and the first
    /// <c>webhook-signature</c> entry), then each staged key's; then adds the Ed25519 signatures of the receivers that
    /// have Ed25519 keys (<c>X-Signature-Ed25519</c>, <c>v1a,</c> entries after the <c>v1,</c> ones). The webhook id and timestamp are the envelope's, the same
    /// for every receiver. The result owns <paramref name="canonical"/> and <paramref name="lease"/>.
    /// </summary>
    public static SignedEnvelope Seal(
        RecyclableMemoryStream canonical, KeyMacs macs, ReceiverKeys[] keys, SignPlan plan, long timestamp, int widgetCount, EnvelopeBudgetLease? lease, ILogger logger, SpareCores.CanonicalPass pass)
    {
        var values = macs.Complete();
        var plain = plan.Forms.HasPlain();
        string? webhookId = null;
        var bytes = default(ReadOnlySequence<byte>);
        if (plan.Forms.HasWebhook())
        {
            // Derived id: known only now, so the Standard Webhooks MACs (id.timestamp. + bytes) take one pass over the
            // written bytes, one per key.
            webhookId = plan.Seed is { } seed ? seed.IdFor(values[macs.DigestAt].Bytes) : plan.Literal!;
            bytes = plan.Seed is null ? default : canonical.GetReadOnlySequence();
        }

        // Ed25519 after the pass: its message must be whole (the copy is made only when some receiver signs with it).
        (Ed25519KeySignature[] Plain, byte[][] Prefixed)[]? ed25519 = null;
        if (Ed25519Pass.Needed(keys))
        {
            Span<byte> prefix = stackalloc byte[StandardWebhooks.MaxPrefixBytes];
            var prefixLength = webhookId is null ? 0 : StandardWebhooks.WritePrefix(prefix, webhookId, timestamp);
            ed25519 = Ed25519Pass.Sign(canonical, keys, plain, prefix[..prefixLength], lease, pass);
        }

        var receivers = new ReceiverSignature[keys.Length];
        for (var r = 0; r < keys.Length; r++)
        {
            var first = macs.FirstKeyOf(r);
            var count = macs.KeyCountOf(r);
            var current = keys[r].Keys.Current;
            KeySignature[] labelled = [];
            if (plain && current.HasHmac)
            {
                labelled = new KeySignature[count];
                for (var i = 0; i < count; i++)
                {
                    labelled[i] = new KeySignature(macs.Key(first + i).KeyId, i == 0 ? KeyState.Current : KeyState.Staged, values[macs.PlainAt(first + i)]);
                }
            }

            var (ed25519Plain, v1a) = ed25519 is null ? ([], []) : ed25519[r];
            var header = webhookId is null ? null : WebhookSignatureHeader.Format(macs, values, first, count, webhookId, timestamp, bytes, plan.Seed is null, v1a);
            receivers[r] = new ReceiverSignature(keys[r].Receiver, current.KeyId, labelled, header) { Ed25519Signatures = ed25519Plain, HasHmac = count > 0, HasEd25519 = ed25519Plain.Length > 0 || v1a.Length > 0 };
            SigningLog.Signed(logger, widgetCount, canonical.Length, keys[r].Receiver.Value, current.KeyId);
        }

        return new SignedEnvelope(canonical, plan.Forms, receivers, webhookId, timestamp, widgetCount, values[macs.CanonicalDigestAt], lease);
    }
}
