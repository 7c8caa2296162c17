using System.Buffers;

namespace WidgetSigning.Tests.Support;

/// <summary>
/// An <see cref="IBufferWriter{T}"/> that lends spans of the given sizes in turn (smaller than any token), so a
/// writer must split GUIDs, dates, escapes and multi-byte characters across spans; it records every byte.
/// </summary>
public sealed class ChunkedBufferWriter(params int[] sizes) : IBufferWriter<byte>
{
    private readonly MemoryStream _written = new();
    private byte[] _lent = [];
    private int _next;

    /// <summary>How many spans were committed.</summary>
    public int Commits { get; private set; }

    /// <summary>Everything committed so far.</summary>
    public byte[] ToArray() => _written.ToArray();

    /// <inheritdoc />
    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _lent.Length);
        _written.Write(_lent, 0, count);
        _lent = [];
        Commits++;
    }

    /// <inheritdoc />
    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        // A writer that asks for more than it is given must cope, as with the rest of a pool block.
        _lent = new byte[sizes[_next++ % sizes.Length]];
        return _lent;
    }

    /// <inheritdoc />
    public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;
}
