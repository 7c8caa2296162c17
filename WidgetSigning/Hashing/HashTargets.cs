using System.Security.Cryptography;

namespace WidgetSigning.Hashing;

/// <summary>
/// The HMACs one pass over the canonical bytes feeds: one, or a range of a <see cref="KeyMacs"/>'s. A struct over the
/// owner's array, so splitting the MACs between two threads allocates nothing.
/// </summary>
internal readonly struct HashTargets
{
    private readonly IncrementalHash? _single;
    private readonly IncrementalHash[]? _many;
    private readonly int _start;
    private readonly int _count;

    /// <summary>One HMAC.</summary>
    public HashTargets(IncrementalHash hash)
    {
        _single = hash;
        _count = 1;
    }

    /// <summary><paramref name="count"/> HMACs of <paramref name="hashes"/> from <paramref name="start"/>.</summary>
    public HashTargets(IncrementalHash[] hashes, int start, int count)
    {
        _many = hashes;
        _start = start;
        _count = count;
    }

    /// <summary>How many HMACs are fed.</summary>
    public int Count => _count;

    /// <summary>Appends <paramref name="data"/> to the <paramref name="index"/>th HMAC only.</summary>
    public void Append(int index, ReadOnlySpan<byte> data)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(index, _count);
        (_single ?? _many![_start + index]).AppendData(data);
    }

    /// <summary>Appends <paramref name="data"/> to every HMAC.</summary>
    public void Append(ReadOnlySpan<byte> data)
    {
        if (_single is not null)
        {
            _single.AppendData(data);
            return;
        }

        for (var i = _start; i < _start + _count; i++)
        {
            _many![i].AppendData(data);
        }
    }
}
