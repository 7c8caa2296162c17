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
    /// <c>webhook-signature</c> entry), then each staged key's. The webhook id and timestamp are the envelope's, the same
    /// for every receiver. The result owns <paramref name="canonical"/> and <paramref name="lease"/>.
    /// </summary>
    public static SignedEnvelope Seal(
        RecyclableMemoryStream canonical, KeyMacs macs, ReceiverKeys[] keys, SignPlan plan, long timestamp, int widgetCount, EnvelopeBudgetLease? lease, ILogger logger)
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

        var receivers = new ReceiverSignature[keys.Length];
        for (var r = 0; r < keys.Length; r++)
        {
            var first = macs.FirstKeyOf(r);
            var count = macs.KeyCountOf(r);
            var current = macs.Key(first);
            KeySignature[] labelled = [];
            if (plain)
            {
                labelled = new KeySignature[count];
                for (var i = 0; i < count; i++)
                {
                    labelled[i] = new KeySignature(macs.Key(first + i).KeyId, i == 0 ? KeyState.Current : KeyState.Staged, values[macs.PlainAt(first + i)]);
                }
            }

            var header = webhookId is null ? null : WebhookSignatureHeader.Format(macs, values, first, count, webhookId, timestamp, bytes, plan.Seed is null);
            receivers[r] = new ReceiverSignature(keys[r].Receiver, current.KeyId, labelled, header);
            SigningLog.Signed(logger, widgetCount, canonical.Length, keys[r].Receiver.Value, current.KeyId);
        }

        return new SignedEnvelope(canonical, plan.Forms, receivers, webhookId, timestamp, widgetCount, values[macs.CanonicalDigestAt], lease);
    }
}
