namespace AuditTrail;

/// <summary>
/// Reads <c>\n</c>-terminated lines from a stream through one fixed buffer, so a blob is never held in memory whole and
/// a line longer than <see cref="MaxLineBytes"/> is reported rather than buffered.
/// </summary>
internal sealed class BoundedLineReader
{
    /// <summary>The longest line accepted (64 KiB).</summary>
    public const int MaxLineBytes = 64 * 1024;

    private readonly Stream _stream;
    private readonly byte[] _buffer = new byte[MaxLineBytes + 1 + 16 * 1024];
    private int _start;
    private int _end;
    private bool _drained;

    public BoundedLineReader(Stream stream)
    {
        _stream = stream;
    }

    /// <summary>The current line's bytes (without <c>\n</c>); valid until the next read.</summary>
    public ReadOnlyMemory<byte> Current { get; private set; }

    /// <summary>Bytes consumed so far, for the blob size bound.</summary>
    public long BytesRead { get; private set; }

    /// <summary>Reads the next line into <see cref="Current"/>.</summary>
    public async Task<LineStatus> ReadAsync(CancellationToken cancellationToken)
    {
        var searched = _start;
        while (true)
        {
            var newline = Array.IndexOf(_buffer, (byte)'\n', searched, _end - searched);
            if (newline >= 0)
            {
                if (newline - _start > MaxLineBytes)
                {
                    return LineStatus.TooLong;
                }

                Current = _buffer.AsMemory(_start, newline - _start);
                _start = newline + 1;
                return LineStatus.Line;
            }

            if (_end - _start > MaxLineBytes)
            {
                return LineStatus.TooLong;
            }

            if (_drained)
            {
                if (_end == _start)
                {
                    Current = ReadOnlyMemory<byte>.Empty;
                    return LineStatus.End;
                }

                Current = _buffer.AsMemory(_start, _end - _start);
                _start = _end;
                return LineStatus.Unterminated;
            }

            if (_start > 0)
            {
                Buffer.BlockCopy(_buffer, _start, _buffer, 0, _end - _start);
                _end -= _start;
                _start = 0;
            }

            searched = _end;
            var read = await _stream.ReadAsync(_buffer.AsMemory(_end), cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                _drained = true;
            }

            _end += read;
            BytesRead += read;
        }
    }
}
