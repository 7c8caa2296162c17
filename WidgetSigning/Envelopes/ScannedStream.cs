namespace WidgetSigning.Envelopes;

/// <summary>
/// A read-only stream that passes an envelope's bytes on to the decoder and says what its byte scan found in the bytes
/// passed on so far: the reader asks it after every token. <see cref="StrictJsonGuard"/> scans as the bytes are
/// pulled; <c>Pipeline/ScanAheadStream</c> has them scanned ahead on a spare core and answers as of the same bytes.
/// </summary>
internal abstract class ScannedStream : Stream
{
    /// <summary>Why the stream was ended early.</summary>
    public enum Cut : byte
    {
        /// <summary>It was not.</summary>
        None,

        /// <summary>An unquoted token over <see cref="StrictJsonGuard.MaxUnquotedTokenBytes"/>.</summary>
        UnquotedToken,

        /// <summary>A member name over <see cref="StrictJsonGuard.MaxMemberNameBytes"/>.</summary>
        MemberName,

        /// <summary>An RFC 8259 violation inside a string (see <see cref="Violation"/>): nothing after it is needed.</summary>
        Violation,
    }

    /// <summary>
    /// The 1-based ordinal of the token (as Newtonsoft counts them: <c>{ } [ ]</c>, strings and names, unquoted values) at
    /// or just before which the first RFC 8259 violation was seen; 0 while none was. Until then the input is strict
    /// JSON, so Newtonsoft's count of tokens and this one agree.
    /// </summary>
    public abstract int FirstViolationToken { get; }

    /// <summary>What the first RFC 8259 violation is, when <see cref="FirstViolationToken"/> is set.</summary>
    public abstract string? Violation { get; }

    /// <summary>The 1-based ordinal of the first double-quoted string with an unpaired surrogate escape; 0 while none was seen.</summary>
    public abstract int FirstUnpairedString { get; }

    /// <summary>Why the stream was ended early, if it was.</summary>
    public abstract Cut CutReason { get; }

    /// <summary>True once the stream was ended early (see <see cref="CutReason"/>).</summary>
    public bool Truncated => CutReason != Cut.None;

    /// <inheritdoc />
    public override bool CanRead => true;

    /// <inheritdoc />
    public override bool CanSeek => false;

    /// <inheritdoc />
    public override bool CanWrite => false;

    /// <inheritdoc />
    public override long Length => throw new NotSupportedException();

    /// <inheritdoc />
    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    /// <inheritdoc />
    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    /// <inheritdoc />
    public override void Flush()
    {
    }

    /// <inheritdoc />
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    /// <inheritdoc />
    public override void SetLength(long value) => throw new NotSupportedException();

    /// <inheritdoc />
    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
