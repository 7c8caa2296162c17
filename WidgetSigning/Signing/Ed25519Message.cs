using System.Buffers;
using Microsoft.IO;

namespace WidgetSigning.Signing;

/// <summary>
/// The message an Ed25519 signature covers, whole: pure Ed25519 reads it twice (RFC 8032 §5.1.6) and the library takes
/// one contiguous span, so <c>id.timestamp.</c> and the canonical bytes are copied once into a pooled array.
/// </summary>
internal static class Ed25519Message
{
    /// <summary>
    /// A pooled array holding <paramref name="prefix"/> then <paramref name="canonical"/>'s bytes, and their
    /// <paramref name="length"/>; give it back with <see cref="Return"/>.
    /// </summary>
    public static byte[] Rent(ReadOnlySpan<byte> prefix, RecyclableMemoryStream canonical, out int length)
    {
        length = checked((int)canonical.Length + prefix.Length);
        var message = ArrayPool<byte>.Shared.Rent(length);
        prefix.CopyTo(message);
        canonical.Position = 0;
        canonical.ReadExactly(message, prefix.Length, (int)canonical.Length);
        return message;
    }

    /// <summary>Gives back what <see cref="Rent"/> lent (the bytes are public: no clearing).</summary>
    public static void Return(byte[] message) => ArrayPool<byte>.Shared.Return(message);
}
