using System.Buffers;
using WidgetSigning.Keys;

namespace WidgetSigning.Hashing;

/// <summary>One key's HMAC fed by the hashing writers while the bytes are written, rather than read back afterwards.</summary>
internal static class SigningKeyHashing
{
    /// <summary>
    /// Computes HMAC-SHA256 under <paramref name="key"/> over the bytes <paramref name="write"/> commits to
    /// <paramref name="destination"/>, hashing each committed span as it is committed (<see cref="HashingBufferWriter"/>);
    /// with <paramref name="overlapChunkBytes"/> above 0, on another core while writing goes on, in chunks of that size
    /// (<see cref="OverlappedHashingBufferWriter"/>).
    /// </summary>
    public static Signature SignWhileWriting<TState>(
        this SigningKey key, IBufferWriter<byte> destination, TState state, Action<IBufferWriter<byte>, TState> write, int overlapChunkBytes = 0)
    {
        ArgumentNullException.ThrowIfNull(key);
        var hash = key.RentHash();
        try
        {
            if (overlapChunkBytes > 0)
            {
                OverlappedHashingBufferWriter.Write(destination, new HashTargets(hash), overlapChunkBytes, state, write);
            }
            else
            {
                write(new HashingBufferWriter(destination, new HashTargets(hash)), state);
            }
        }
        catch
        {
            // Part of a message is in it: never lend it out again.
            hash.Dispose();
            throw;
        }

        return key.Complete(hash);
    }
}
