namespace FunctionApp.Tests.TestKit;

/// <summary>
/// A protobuf message's fields by number, read from the wire format alone (varints and length-delimited fields; no
/// schema). Written here because OTLP's generated types (OpenTelemetry.Proto) are not served and the tests' net8.0 graph
/// has no protobuf runtime; the OTLP receiver needs only to walk a few nested messages.
/// </summary>
public sealed class ProtobufFields
{
    private readonly List<(int Number, ulong Varint, ReadOnlyMemory<byte> Bytes)> _fields = [];

    public ProtobufFields(ReadOnlyMemory<byte> message)
    {
        var span = message.Span;
        var position = 0;
        while (position < span.Length)
        {
            var key = ReadVarint(span, ref position);
            var number = (int)(key >> 3);
            switch ((int)(key & 7))
            {
                case 0:
                    _fields.Add((number, ReadVarint(span, ref position), default));
                    break;
                case 1:
                    _fields.Add((number, BitConverter.ToUInt64(span.Slice(position, 8)), message.Slice(position, 8)));
                    position += 8;
                    break;
                case 2:
                    var length = (int)ReadVarint(span, ref position);
                    _fields.Add((number, 0, message.Slice(position, length)));
                    position += length;
                    break;
                case 5:
                    _fields.Add((number, BitConverter.ToUInt32(span.Slice(position, 4)), message.Slice(position, 4)));
                    position += 4;
                    break;
                default:
                    throw new InvalidDataException($"Unsupported wire type in field {number}.");
            }
        }
    }

    /// <summary>Every length-delimited field <paramref name="number"/> read as a nested message.</summary>
    public IEnumerable<ProtobufFields> Messages(int number) => _fields.Where(f => f.Number == number).Select(f => new ProtobufFields(f.Bytes));

    /// <summary>The first field <paramref name="number"/>'s bytes (empty if absent).</summary>
    public byte[] Bytes(int number) => _fields.FirstOrDefault(f => f.Number == number).Bytes.ToArray();

    /// <summary>The first field <paramref name="number"/> as UTF-8 text (empty if absent).</summary>
    public string Text(int number) => System.Text.Encoding.UTF8.GetString(Bytes(number));

    /// <summary>The first field <paramref name="number"/>'s varint or fixed value (0 if absent).</summary>
    public ulong Number(int number) => _fields.FirstOrDefault(f => f.Number == number).Varint;

    /// <summary>The first field <paramref name="number"/> as a hex string (trace and span ids).</summary>
    public string Hex(int number) => Convert.ToHexString(Bytes(number)).ToLowerInvariant();

    private static ulong ReadVarint(ReadOnlySpan<byte> span, ref int position)
    {
        ulong value = 0;
        for (var shift = 0; shift < 64; shift += 7)
        {
            var b = span[position++];
            value |= (ulong)(b & 0x7F) << shift;
            if (b < 0x80)
            {
                return value;
            }
        }

        throw new InvalidDataException("Varint too long.");
    }
}
