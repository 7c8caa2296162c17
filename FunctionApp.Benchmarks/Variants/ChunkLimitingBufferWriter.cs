using System.Buffers;

namespace FunctionApp.Benchmarks.Variants;

/// <summary>Lends at most <c>chunk</c> bytes of the destination's span at a time, so a hash wrapped around it sees smaller pieces.</summary>
public sealed class ChunkLimitingBufferWriter(IBufferWriter<byte> destination, int chunk) : IBufferWriter<byte>
{
    /// <inheritdoc />
    public void Advance(int count) => destination.Advance(count);

    /// <inheritdoc />
    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        var memory = destination.GetMemory(sizeHint);
        return memory.Length > chunk ? memory.Slice(0, chunk) : memory;
    }

    /// <inheritdoc />
    public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;
}
