using System.Buffers;

namespace WidgetSigning.Primitives;

/// <summary>
/// A read-only, seekable stream over a <see cref="ReadOnlySequence{T}"/> (the pooled canonical bytes), so a storage
/// client can upload them with a known length without a second copy. Hand-written because no kept library offers one.
/// </summary>
internal sealed class ReadOnlySequenceStream : Stream
{
    private readonly ReadOnlySequence<byte> _sequence;
    private long _position;

    public ReadOnlySequenceStream(ReadOnlySequence<byte> sequence) => _sequence = sequence;

    public override bool CanRead => true;

    public override bool CanSeek => true;

    public override bool CanWrite => false;

    public override long Length => _sequence.Length;

    public override long Position
    {
        get => _position;
        set
        {
            ArgumentOutOfRangeException.ThrowIfNegative(value);
            _position = value;
        }
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override int Read(Span<byte> buffer)
    {
        if (_position >= _sequence.Length)
        {
            return 0;
        }

        // Slicing is linear in the number of segments (64 KiB blocks), never in bytes.
        var slice = _sequence.Slice(_position, Math.Min(buffer.Length, _sequence.Length - _position));
        slice.CopyTo(buffer);
        _position += slice.Length;
        return (int)slice.Length;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        Task.FromResult(Read(buffer.AsSpan(offset, count)));

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
        ValueTask.FromResult(Read(buffer.Span));

    public override long Seek(long offset, SeekOrigin origin)
    {
        Position = origin switch
        {
            SeekOrigin.Begin => offset,
            SeekOrigin.Current => _position + offset,
            SeekOrigin.End => _sequence.Length + offset,
            _ => throw new ArgumentOutOfRangeException(nameof(origin)),
        };
        return _position;
    }

    public override void Flush()
    {
    }

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
