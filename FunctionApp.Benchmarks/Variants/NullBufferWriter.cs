using System.Buffers;

namespace FunctionApp.Benchmarks.Variants;

/// <summary>Lends the same 64 KB array over and over and keeps nothing: the writer's own cost, with no copy and no stream.</summary>
public sealed class NullBufferWriter : IBufferWriter<byte>
{
    private readonly byte[] _block = new byte[64 * 1024];

    /// <inheritdoc />
    public void Advance(int count)
    {
    }

    /// <inheritdoc />
    public Memory<byte> GetMemory(int sizeHint = 0) => _block;

    /// <inheritdoc />
    public Span<byte> GetSpan(int sizeHint = 0) => _block;
}
