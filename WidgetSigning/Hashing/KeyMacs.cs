using System.Security.Cryptography;
using WidgetSigning.Keys;

namespace WidgetSigning.Hashing;

/// <summary>
/// Every hash one signature feeds in its one pass over the canonical bytes as they are written, and no other: for each
/// receiver, for each of its keys (the current one first, then each staged one) the HMAC of the bytes alone (<c>X-Signature</c>'s, when the plain
/// form is made) and the HMAC of a prefix followed by the bytes (Standard Webhooks' <c>id.timestamp.</c>, when that form
/// is made and its id is known up front); then, where the id is derived from the bytes, the SHA-256 it comes from; last,
/// always, the plain SHA-256 of the bytes the audit record names them by (so they are never read twice). Each
/// form asked for costs one chain per key, each form not asked for nothing. The HMAC instances come from the keys' pools;
/// call <see cref="Complete"/> or <see cref="Abandon"/> exactly once.
/// </summary>
internal sealed class KeyMacs
{
    private readonly SigningKey[] _keys;
    private readonly int[] _firstKey;
    private readonly IncrementalHash[] _hashes;
    private readonly int _perKey;
    private readonly bool _plain;
    private readonly bool _prefixed;
    private readonly bool _digest;
    private readonly int _macs;
    private bool _done;

    private KeyMacs(IReadOnlyList<ReceiverKeys> receivers, bool plain, bool prefixed, IncrementalHash? digest, ReadOnlySpan<byte> prefix)
    {
        (_keys, _firstKey) = Flatten(receivers);
        _plain = plain;
        _prefixed = prefixed;
        _digest = digest is not null;
        _perKey = (plain ? 1 : 0) + (prefixed ? 1 : 0);
        var macs = _perKey * _keys.Length;
        _macs = macs;
        _hashes = new IncrementalHash[macs + (_digest ? 1 : 0) + 1];
        for (var i = 0; i < macs; i++)
        {
            _hashes[i] = KeyOf(i).RentHash();
            if (prefixed && (!plain || i % 2 == 1))
            {
                _hashes[i].AppendData(prefix);
            }
        }

        if (digest is not null)
        {
            _hashes[^2] = digest;
        }

        _hashes[^1] = CanonicalDigests.TryTake(out var sha256) ? sha256 : IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
    }

    /// <summary>The plain form alone: one HMAC per key, of the bytes alone.</summary>
    public static KeyMacs PlainOnly(IReadOnlyList<ReceiverKeys> receivers) => new(receivers, plain: true, prefixed: false, digest: null, []);

    /// <summary>
    /// The Standard Webhooks form with its id known up front: per key, the HMAC of <paramref name="prefix"/> and the bytes,
    /// preceded by the HMAC of the bytes alone with <paramref name="plain"/>.
    /// </summary>
    public static KeyMacs Prefixed(IReadOnlyList<ReceiverKeys> receivers, bool plain, ReadOnlySpan<byte> prefix) => new(receivers, plain, prefixed: true, digest: null, prefix);

    /// <summary>
    /// The Standard Webhooks form with its <c>webhook-id</c> derived from the canonical bytes (not known until they are all
    /// written): with <paramref name="plain"/>, one HMAC per key of the bytes alone; and, last, <paramref name="digest"/>
    /// (the SHA-256 the id comes from). The prefixed MACs are computed once the id is known, over the written bytes.
    /// </summary>
    public static KeyMacs Deferred(IReadOnlyList<ReceiverKeys> receivers, bool plain, IncrementalHash digest) => new(receivers, plain, prefixed: false, digest, []);

    /// <summary>How many hashes one pass feeds.</summary>
    public int Count => _hashes.Length;

    /// <summary>All of them.</summary>
    public HashTargets All => new(_hashes, 0, _hashes.Length);

    /// <summary>Where receiver <paramref name="receiver"/>'s HMAC keys start among all keys (its current key, then its staged ones; each only with an HMAC part).</summary>
    public int FirstKeyOf(int receiver) => _firstKey[receiver];

    /// <summary>How many HMAC keys receiver <paramref name="receiver"/> signs with (none when its keys are Ed25519 only).</summary>
    public int KeyCountOf(int receiver) => (receiver + 1 < _firstKey.Length ? _firstKey[receiver + 1] : _keys.Length) - _firstKey[receiver];

    /// <summary>Key <paramref name="key"/> among all keys (as <see cref="FirstKeyOf"/> counts).</summary>
    public SigningKey Key(int key) => _keys[key];

    /// <summary>Where, in what <see cref="Complete"/> returns, the plain MAC of key <paramref name="key"/> (among all keys) is.</summary>
    public int PlainAt(int key) => _plain ? key * _perKey : throw new InvalidOperationException("No plain MAC was fed.");

    /// <summary>Where the prefixed (Standard Webhooks) MAC of key <paramref name="key"/> is.</summary>
    public int PrefixedAt(int key) => _prefixed ? (key * _perKey) + (_plain ? 1 : 0) : throw new InvalidOperationException("No prefixed MAC was fed.");

    /// <summary>Where the digest the <c>webhook-id</c> comes from is.</summary>
    public int DigestAt => _digest ? _hashes.Length - 2 : throw new InvalidOperationException("No digest was fed.");

    /// <summary>Where the plain SHA-256 of the canonical bytes is.</summary>
    public int CanonicalDigestAt => _hashes.Length - 1;

    /// <summary>The values, at <see cref="PlainAt"/>, <see cref="PrefixedAt"/>, <see cref="DigestAt"/> and <see cref="CanonicalDigestAt"/>; the instances go back to their pools.</summary>
    public Signature[] Complete()
    {
        ObjectDisposedException.ThrowIf(_done, this);
        _done = true;
        var signatures = new Signature[_hashes.Length];
        Span<byte> digest = stackalloc byte[Signature.Length];
        for (var i = 0; i < _hashes.Length; i++)
        {
            if (i == _hashes.Length - 1)
            {
                _hashes[i].GetHashAndReset(digest);
                signatures[i] = new Signature(digest);
                if (CanonicalDigests.Count < MaxPooledDigests)
                {
                    CanonicalDigests.Add(_hashes[i]);
                }
                else
                {
                    _hashes[i].Dispose();
                }
            }
            else if (i >= _macs)
            {
                _hashes[i].GetHashAndReset(digest);
                _hashes[i].Dispose();
                signatures[i] = new Signature(digest);
            }
            else
            {
                signatures[i] = KeyOf(i).Complete(_hashes[i]);
            }
        }

        return signatures;
    }

    /// <summary>After a failure: part of a message is in every instance, so none is lent out again. Once completed, nothing.</summary>
    public void Abandon()
    {
        if (_done)
        {
            return;
        }

        _done = true;
        foreach (var hash in _hashes)
        {
            hash.Dispose();
        }
    }

    private const int MaxPooledDigests = 64;

    // SHA-256 instances reset by GetHashAndReset, reused across signatures as the keys' pools reuse their HMACs.
    private static readonly System.Collections.Concurrent.ConcurrentBag<IncrementalHash> CanonicalDigests = [];

    private SigningKey KeyOf(int index) => _keys[index / _perKey];

    // Only the keys with an HMAC part: an Ed25519-only version signs after the pass, over the written bytes.
    private static (SigningKey[] Keys, int[] FirstKey) Flatten(IReadOnlyList<ReceiverKeys> receivers)
    {
        ArgumentOutOfRangeException.ThrowIfZero(receivers.Count);
        var count = 0;
        foreach (var receiver in receivers)
        {
            count += receiver.Keys.Current.HasHmac ? 1 : 0;
            foreach (var staged in receiver.Keys.Staged)
            {
                count += staged.HasHmac ? 1 : 0;
            }
        }

        var keys = new SigningKey[count];
        var first = new int[receivers.Count];
        var at = 0;
        for (var r = 0; r < receivers.Count; r++)
        {
            first[r] = at;
            if (receivers[r].Keys.Current.HasHmac)
            {
                keys[at++] = receivers[r].Keys.Current;
            }

            foreach (var staged in receivers[r].Keys.Staged)
            {
                if (staged.HasHmac)
                {
                    keys[at++] = staged;
                }
            }
        }

        return (keys, first);
    }
}
