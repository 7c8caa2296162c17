using FunctionApp.Tests.TestKit;

namespace WidgetSigning.Tests.Support;

/// <summary>
/// A plain forward-only stream over bytes that hands out at most <c>chunk</c> bytes per read: no seeking, no buffer to
/// look into, and every token boundary can fall between reads.
/// </summary>
public sealed class TrickleStream(byte[] data, int chunk = int.MaxValue) : ForwardOnlyStream
{
    private int _position;

    public override bool CanWrite => false;

    public override int Read(Span<byte> buffer)
    {
        var n = Math.Min(Math.Min(buffer.Length, chunk), data.Length - _position);
        data.AsSpan(_position, n).CopyTo(buffer);
        _position += n;
        return n;
    }

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
