using System.Buffers;
using Microsoft.IO;
using WidgetSigning.Envelopes;
using WidgetSigning.Primitives;

namespace WidgetSigning.Signing;

/// <summary>
/// The canonical stream as the writer sees it: every block the stream takes from the pool is charged to the lease before
/// it is filled, and writing stops as soon as the canonical form passes its limit. One check per block (64 KiB).
/// <paramref name="heldBytes"/> is what the lease must keep besides (the request body, while the canonical form is written
/// behind its reader).
/// </summary>
internal sealed class BudgetedBufferWriter(RecyclableMemoryStream destination, EnvelopeBudgetLease? lease, long maxBytes, long heldBytes = 0) : IBufferWriter<byte>
{
    public void Advance(int count)
    {
        destination.Advance(count);
        if (destination.Length > maxBytes)
        {
            throw Problems.CanonicalTooLarge(
                $"The envelope's canonical form is larger than {maxBytes} bytes, the limit (setting {EnvelopeOptions.MaxCanonicalBytesSetting}); " +
                "characters written as escapes (U+0085, U+2028, U+2029) count six bytes each. Nothing was signed; sign it in parts.");
        }
    }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        var memory = destination.GetMemory(sizeHint);
        lease?.Cover(heldBytes + destination.Capacity64);
        return memory;
    }

    public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;
}
