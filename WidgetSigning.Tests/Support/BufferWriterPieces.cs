using System.Buffers;

namespace WidgetSigning.Tests.Support;

/// <summary>Bytes for the hashing writers' tests, and writing them the way the canonical writer does.</summary>
public static class BufferWriterPieces
{
    /// <summary>Writes <paramref name="bytes"/> as the canonical writer does: take what is lent, fill it, commit.</summary>
    public static void Write(IBufferWriter<byte> writer, byte[] bytes)
    {
        ArgumentNullException.ThrowIfNull(writer);
        var rest = bytes.AsSpan();
        while (!rest.IsEmpty)
        {
            var span = writer.GetSpan();
            var n = Math.Min(span.Length, rest.Length);
            rest.Slice(0, n).CopyTo(span);
            writer.Advance(n);
            rest = rest.Slice(n);
        }
    }

    /// <summary>
    /// As <see cref="Write"/>, but no faster than <paramref name="bytesPerMicrosecond"/> (the canonical writer's pace is
    /// about 2,000), so work handed to another thread finds the writing still going on.
    /// </summary>
    public static void WriteAtPace(IBufferWriter<byte> writer, byte[] bytes, int bytesPerMicrosecond)
    {
        ArgumentNullException.ThrowIfNull(writer);
        var start = System.Diagnostics.Stopwatch.GetTimestamp();
        var written = 0;
        while (written < bytes.Length)
        {
            var span = writer.GetSpan();
            var n = Math.Min(Math.Min(span.Length, 4096), bytes.Length - written);
            bytes.AsSpan(written, n).CopyTo(span);
            writer.Advance(n);
            written += n;
            while (System.Diagnostics.Stopwatch.GetElapsedTime(start).TotalMicroseconds * bytesPerMicrosecond < written)
            {
                Thread.SpinWait(10);
            }
        }
    }

    /// <summary><paramref name="length"/> reproducible random bytes.</summary>
    public static byte[] Random(int length, int seed)
    {
        var bytes = new byte[length];
        new System.Random(seed).NextBytes(bytes);
        return bytes;
    }
}
