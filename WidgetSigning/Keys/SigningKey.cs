using System.Buffers;
using System.Collections.Concurrent;
using System.Security.Cryptography;

namespace WidgetSigning.Keys;

/// <summary>
/// An HMAC-SHA256 key and its id. It keeps a small pool of <see cref="IncrementalHash"/> instances so a
/// signature costs no new HMAC object and no copy of the key. The key bytes never leave this type:
/// <see cref="ToString"/> shows only the id.
/// </summary>
internal sealed class SigningKey
{
    /// <summary>The smallest key accepted: 256 bits, the HMAC-SHA256 block-size recommendation's lower bound.</summary>
    public const int MinimumKeyBytes = 32;

    private readonly byte[] _material;
    private readonly ConcurrentBag<IncrementalHash> _hashes = [];
    private readonly int _maxPooled = Environment.ProcessorCount * 2;

    /// <summary>Creates a key. <paramref name="material"/> is copied.</summary>
    /// <exception cref="ArgumentException">The key is shorter than <see cref="MinimumKeyBytes"/>.</exception>
    public SigningKey(string keyId, ReadOnlySpan<byte> material, DateTimeOffset? createdOn = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(keyId);
        if (material.Length < MinimumKeyBytes)
        {
            throw new ArgumentException($"A signing key must be at least {MinimumKeyBytes} bytes.", nameof(material));
        }

        KeyId = keyId;
        CreatedOn = createdOn;
        _material = material.ToArray();
    }

    /// <summary>The key's id, reported with every signature (<c>local</c>, or the Key Vault secret version).</summary>
    public string KeyId { get; }

    /// <summary>When the key was created, where the source knows it.</summary>
    public DateTimeOffset? CreatedOn { get; }

    /// <summary>Computes HMAC-SHA256 over <paramref name="data"/>, segment by segment.</summary>
    public Signature Sign(in ReadOnlySequence<byte> data) => Sign([], data);

    /// <summary>
    /// Computes HMAC-SHA256 over <paramref name="prefix"/> followed by <paramref name="data"/>, segment by segment (the
    /// Standard Webhooks form <c>id.timestamp.</c> + payload), without joining them.
    /// </summary>
    public Signature Sign(ReadOnlySpan<byte> prefix, in ReadOnlySequence<byte> data)
    {
        var hash = Rent();
        try
        {
            hash.AppendData(prefix);
            foreach (var segment in data)
            {
                hash.AppendData(segment.Span);
            }

            Span<byte> mac = stackalloc byte[Signature.Length];
            hash.GetHashAndReset(mac);
            return new Signature(mac);
        }
        finally
        {
            Return(hash);
        }
    }

    /// <inheritdoc />
    public override string ToString() => $"SigningKey({KeyId})";

    /// <summary>An HMAC under this key from the pool, for the hashing writers (<c>Hashing/</c>); give it back with <see cref="Complete"/>.</summary>
    internal IncrementalHash RentHash() => Rent();

    /// <summary>The MAC of what <paramref name="hash"/> was fed; the instance goes back to the pool.</summary>
    internal Signature Complete(IncrementalHash hash)
    {
        try
        {
            Span<byte> mac = stackalloc byte[Signature.Length];
            hash.GetHashAndReset(mac);
            return new Signature(mac);
        }
        finally
        {
            Return(hash);
        }
    }

    private IncrementalHash Rent() =>
        _hashes.TryTake(out var hash) ? hash : IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, _material);

    private void Return(IncrementalHash hash)
    {
        // Bounded: a burst beyond the pool's size leaves its extra instances to be disposed, not hoarded.
        if (_hashes.Count < _maxPooled)
        {
            _hashes.Add(hash);
        }
        else
        {
            hash.Dispose();
        }
    }
}
