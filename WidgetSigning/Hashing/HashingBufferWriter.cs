using System.Buffers;

namespace WidgetSigning.Hashing;

/// <summary>
/// Passes a writer's memory through from <c>destination</c> and appends each committed span to the HMACs (one or several) as it is
/// committed, while those bytes are still in cache: they are not read back from memory for hashing afterwards.
/// </summary>
internal sealed class HashingBufferWriter(IBufferWriter<byte> destination, HashTargets hashes) : IBufferWriter<byte>
{
    private Memory<byte> _lent;

    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _lent.Length);
        hashes.Append(_lent.Span.Slice(0, count));
        destination.Advance(count);
        _lent = default;
    }

    public Memory<byte> GetMemory(int sizeHint = 0) => _lent = destination.GetMemory(sizeHint);

    public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;
}
