namespace FunctionApp.Tests.TestKit;

/// <summary>
/// The shape of a network body: readable once, front to back, with no length, position or seeking, and no buffer to
/// look into. Subclasses say what reads (and writes) return.
/// </summary>
public abstract class ForwardOnlyStream : Stream
{
    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public abstract override int Read(Span<byte> buffer);

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}
