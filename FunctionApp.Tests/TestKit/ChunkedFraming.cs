using System.Globalization;
using System.Text;

namespace FunctionApp.Tests.TestKit;

/// <summary>HTTP/1.1 chunked transfer coding as a client writes it (RFC 9112 §7.1), for raw-socket requests.</summary>
public static class ChunkedFraming
{
    /// <summary><paramref name="body"/> as chunks of <paramref name="chunk"/> bytes (the last one shorter), then the last chunk and no trailers.</summary>
    public static byte[] Frame(byte[] body, int chunk)
    {
        ArgumentNullException.ThrowIfNull(body);
        using var framed = new MemoryStream(body.Length + (body.Length / chunk * 12) + 16);
        for (var offset = 0; offset < body.Length; offset += chunk)
        {
            var length = Math.Min(chunk, body.Length - offset);
            framed.Write(Encoding.ASCII.GetBytes(length.ToString("x", CultureInfo.InvariantCulture) + "\r\n"));
            framed.Write(body, offset, length);
            framed.Write("\r\n"u8);
        }

        framed.Write("0\r\n\r\n"u8);
        return framed.ToArray();
    }
}
