using System.Buffers;
using System.Collections.Concurrent;
using System.Security.Cryptography;

namespace WidgetSigning.Keys;

/// <summary>
/// One version of a receiver's key and its id: an HMAC-SHA256 key, an Ed25519 key (<see cref="Ed25519"/>), or both
/// while a receiver moves from one scheme to the other. It keeps a small pool of <see cref="IncrementalHash"/> instances
/// so an HMAC costs no new object and no copy of the key. The key bytes never leave this type: <see cref="ToString"/>
/// shows only the id.
/// </summary>
internal sealed class SigningKey
{
    /// <summary>The smallest key accepted: 256 bits, the HMAC-SHA256 block-size recommendation's lower bound.</summary>
    public const int MinimumKeyBytes = 32;

    private readonly byte[]? _material;
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

    /// <summary>Creates a key with an HMAC part (<paramref name="hmac"/>, copied; empty for none) and/or an Ed25519 part.</summary>
    /// <exception cref="ArgumentException">Neither part, or an HMAC part shorter than <see cref="MinimumKeyBytes"/>.</exception>
    public SigningKey(string keyId, ReadOnlySpan<byte> hmac, Ed25519Key? ed25519, DateTimeOffset? createdOn)
    {
        ArgumentException.ThrowIfNullOrEmpty(keyId);
        if (hmac.IsEmpty && ed25519 is null)
        {
            throw new ArgumentException("A key has an HMAC part, an Ed25519 part or both.", nameof(hmac));
        }

        if (!hmac.IsEmpty && hmac.Length < MinimumKeyBytes)
        {
            throw new ArgumentException($"A signing key must be at least {MinimumKeyBytes} bytes.", nameof(hmac));
        }

        KeyId = keyId;
        CreatedOn = createdOn;
        _material = hmac.IsEmpty ? null : hmac.ToArray();
        Ed25519 = ed25519;
    }

    /// <summary>Whether this version makes HMAC-SHA256 signatures (<c>X-Signature</c>, <c>v1,</c>).</summary>
    public bool HasHmac => _material is not null;

    /// <summary>The Ed25519 part (<c>X-Signature-Ed25519</c>, <c>v1a,</c>); null for an HMAC-only version.</summary>
    public Ed25519Key? Ed25519 { get; }

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
        _hashes.TryTake(out var hash) ? hash
        : IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, _material ?? throw new InvalidOperationException($"Key '{KeyId}' has no HMAC part."));

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
