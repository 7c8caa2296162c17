namespace FunctionApp.Tests.TestKit;

/// <summary>
/// A request or response body that fails the way a connection does: it hands out <c>prefix</c> bytes, then runs
/// <c>onFailure</c> (e.g. cancel RequestAborted) and throws the given exception on reads and writes.
/// </summary>
public sealed class FailingStream(byte[] prefix, Func<Exception> failure, Action? onFailure = null) : ForwardOnlyStream
{
    private int _position;

    public override bool CanWrite => true;

    public override int Read(Span<byte> buffer)
    {
        if (_position < prefix.Length)
        {
            var n = Math.Min(buffer.Length, prefix.Length - _position);
            prefix.AsSpan(_position, n).CopyTo(buffer);
            _position += n;
            return n;
        }

        throw Fail();
    }

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => ValueTask.FromResult(Read(buffer.Span));

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) => Task.FromResult(Read(buffer.AsSpan(offset, count)));

    public override void Write(byte[] buffer, int offset, int count) => throw Fail();

    public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) => throw Fail();

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) => throw Fail();

    private Exception Fail()
    {
        onFailure?.Invoke();
        return failure();
    }
}
