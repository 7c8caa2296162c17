using Microsoft.IO;
using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>
/// The Ed25519 signatures of one envelope, made after the HMAC pass over the written bytes, from one copy of them
/// behind the <c>id.timestamp.</c> prefix (<see cref="Ed25519Message"/>): the plain form signs the bytes alone,
/// <c>v1a</c> the prefix and the bytes.
/// </summary>
internal static class Ed25519Pass
{
    /// <summary>Each receiver's Ed25519 keys that sign now: its current key's, then each overlapping retiring key's.</summary>
    public static List<(SigningKey Key, KeyState State)>? SignersOf(ReceiverKeys keys)
    {
        List<(SigningKey, KeyState)>? signers = null;
        if (keys.Keys.Current.Ed25519 is not null)
        {
            (signers = []).Add((keys.Keys.Current, KeyState.Current));
        }

        foreach (var retiring in keys.Keys.Overlap)
        {
            if (retiring.Ed25519 is not null)
            {
                (signers ??= []).Add((retiring, KeyState.Retiring));
            }
        }

        return signers;
    }

    /// <summary>Whether any receiver has an Ed25519 key that signs now.</summary>
    public static bool Needed(ReceiverKeys[] keys)
    {
        foreach (var receiver in keys)
        {
            if (receiver.Keys.Current.Ed25519 is not null || receiver.Keys.Overlap.Count > 0)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// Signs for every receiver: per receiver, the plain signatures (with <paramref name="plain"/>) and the <c>v1a</c>
    /// signatures over <paramref name="prefix"/> and the bytes (when <paramref name="prefix"/> is not empty), each an
    /// independent job that <paramref name="pass"/> may share with a spare core. The copy is charged to
    /// <paramref name="lease"/> while it exists.
    /// </summary>
    public static (Ed25519KeySignature[] Plain, byte[][] Prefixed)[] Sign(
        RecyclableMemoryStream canonical, ReceiverKeys[] keys, bool plain, ReadOnlySpan<byte> prefix, EnvelopeBudgetLease? lease, SpareCores.CanonicalPass pass)
    {
        var results = new (Ed25519KeySignature[] Plain, byte[][] Prefixed)[keys.Length];
        var jobs = new List<(SigningKey Key, int Receiver, int Index, bool Prefixed)>();
        for (var r = 0; r < keys.Length; r++)
        {
            var signers = SignersOf(keys[r]);
            if (signers is null)
            {
                results[r] = ([], []);
                continue;
            }

            results[r] = (plain ? new Ed25519KeySignature[signers.Count] : [], prefix.IsEmpty ? [] : new byte[signers.Count][]);
            for (var i = 0; i < signers.Count; i++)
            {
                if (plain)
                {
                    results[r].Plain[i] = new Ed25519KeySignature(signers[i].Key.KeyId, signers[i].State, new byte[Ed25519Key.SignatureBytes]);
                    jobs.Add((signers[i].Key, r, i, false));
                }

                if (!prefix.IsEmpty)
                {
                    results[r].Prefixed[i] = new byte[Ed25519Key.SignatureBytes];
                    jobs.Add((signers[i].Key, r, i, true));
                }
            }
        }

        var held = lease?.Charged ?? 0;
        lease?.Cover(held + canonical.Length + prefix.Length);
        var message = Ed25519Message.Rent(prefix, canonical, out var length);
        try
        {
            var prefixLength = prefix.Length;
            pass.Run(jobs.Count, canonical.Length, j =>
            {
                var (key, r, i, prefixed) = jobs[j];
                if (prefixed)
                {
                    key.Ed25519!.Sign(message.AsSpan(0, length), results[r].Prefixed[i]);
                }
                else
                {
                    key.Ed25519!.Sign(message.AsSpan(prefixLength, length - prefixLength), results[r].Plain[i].Value);
                }
            });

            return results;
        }
        finally
        {
            Ed25519Message.Return(message);
            lease?.ShrinkTo(held);
        }
    }
}
