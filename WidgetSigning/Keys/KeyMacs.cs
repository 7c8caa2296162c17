using System.Security.Cryptography;

namespace WidgetSigning.Keys;

/// <summary>
/// Every HMAC one signature carries, fed together in one pass over the canonical bytes as they are written: for
/// each key (the current one first, then each staged one) the HMAC of the bytes alone and the HMAC of a prefix
/// followed by the bytes (Standard Webhooks' <c>id.timestamp.</c>). The instances come from the keys' pools; call
/// <see cref="Complete"/> or <see cref="Abandon"/> exactly once.
/// </summary>
internal sealed class KeyMacs
{
    private readonly SigningKeys _keys;
    private readonly IncrementalHash[] _hashes;
    private readonly bool _deferred;
    private bool _done;

    /// <summary>Rents two HMACs per key and feeds every second one <paramref name="prefix"/>.</summary>
    public KeyMacs(SigningKeys keys, ReadOnlySpan<byte> prefix)
    {
        _keys = keys;
        _hashes = new IncrementalHash[2 * (1 + keys.Staged.Count)];
        for (var i = 0; i < _hashes.Length; i += 2)
        {
            var key = KeyOf(i);
            _hashes[i] = key.RentHash();
            _hashes[i + 1] = key.RentHash();
            _hashes[i + 1].AppendData(prefix);
        }
    }

    /// <summary>
    /// Deferred form, for a <c>webhook-id</c> derived from the canonical bytes (not known until they are all written): one
    /// HMAC per key (the bytes alone) and, last, <paramref name="digest"/> (a SHA-256 the id comes from). The prefixed
    /// MACs are computed once the id is known, over the written bytes.
    /// </summary>
    public KeyMacs(SigningKeys keys, IncrementalHash digest)
    {
        _keys = keys;
        _deferred = true;
        _hashes = new IncrementalHash[2 + keys.Staged.Count];
        for (var i = 0; i < _hashes.Length - 1; i++)
        {
            _hashes[i] = (i == 0 ? keys.Current : keys.Staged[i - 1]).RentHash();
        }

        _hashes[^1] = digest;
    }

    /// <summary>How many hashes: two per key (or, deferred, one per key and the digest).</summary>
    public int Count => _hashes.Length;

    /// <summary>All of them.</summary>
    public HashTargets All => new(_hashes, 0, _hashes.Length);

    /// <summary>
    /// The MACs, in the order above (per key: bytes alone, then prefixed; deferred: one per key, then the digest); the
    /// instances go back to their pools.
    /// </summary>
    public Signature[] Complete()
    {
        ObjectDisposedException.ThrowIf(_done, this);
        _done = true;
        var signatures = new Signature[_hashes.Length];
        Span<byte> digest = stackalloc byte[Signature.Length];
        for (var i = 0; i < _hashes.Length; i++)
        {
            if (_deferred && i == _hashes.Length - 1)
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

    private SigningKey KeyOf(int index) => _deferred
        ? index == 0 ? _keys.Current : _keys.Staged[index - 1]
        : index < 2 ? _keys.Current : _keys.Staged[(index / 2) - 1];
}
