using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace FunctionApp.Tests.TestKit;

/// <summary>An HTTP/1.1 client on a bare socket: it sends what it is told, exactly, and reads one response.</summary>
public sealed class RawHttpClient : IDisposable
{
    private readonly Socket _socket = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
    private readonly Stopwatch _started = Stopwatch.StartNew();

    public static async Task<RawHttpClient> ConnectAsync(Uri baseAddress)
    {
        var client = new RawHttpClient();
        await client._socket.ConnectAsync(IPAddress.Loopback, baseAddress.Port);
        return client;
    }

    public async Task SendAsync(byte[] bytes, CancellationToken cancellationToken = default)
    {
        var sent = 0;
        while (sent < bytes.Length)
        {
            sent += await _socket.SendAsync(bytes.AsMemory(sent), SocketFlags.None, cancellationToken);
        }
    }

    public void ShutdownSend() => _socket.Shutdown(SocketShutdown.Send);

    /// <summary>Sends <paramref name="body"/> <paramref name="step"/> bytes at a time until it is sent, the answer came, or the server stopped taking it.</summary>
    public async Task<int> TrickleAsync(byte[] body, int step, TimeSpan interval, Task answered)
    {
        var sent = 0;
        try
        {
            while (sent < body.Length && !answered.IsCompleted)
            {
                var next = Math.Min(step, body.Length - sent);
                await SendAsync(body.AsMemory(sent, next).ToArray());
                sent += next;
                await Task.WhenAny(answered, Task.Delay(interval));
            }
        }
        catch (SocketException)
        {
            // The server closed the connection: the attack is over.
        }

        return sent;
    }

    /// <summary>Sends up to <paramref name="total"/> body bytes in chunks until the answer came or the server stopped taking them.</summary>
    public async Task<long> SendChunkedAsync(long total, int chunk, Task answered)
    {
        using var stop = new CancellationTokenSource();
        _ = answered.ContinueWith(_ => stop.Cancel(), TaskScheduler.Default);
        var data = new byte[chunk];
        data.AsSpan().Fill((byte)' ');
        "{\"widgets\":["u8.CopyTo(data);
        var frame = Encoding.ASCII.GetBytes(chunk.ToString("x", CultureInfo.InvariantCulture) + "\r\n").Concat(data).Concat("\r\n"u8.ToArray()).ToArray();
        long sent = 0;
        try
        {
            while (sent < total && !answered.IsCompleted)
            {
                await SendAsync(frame, stop.Token);
                sent += chunk;
            }

            await SendAsync("0\r\n\r\n"u8.ToArray(), stop.Token);
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException)
        {
            // The answer came or the server closed the connection: the attack is over.
        }

        return sent;
    }

    /// <summary>
    /// Sends <paramref name="pieces"/> one after another until they are all sent, the answer came, or the server stopped
    /// taking them; returns the bytes sent.
    /// </summary>
    public async Task<long> SendUntilAnsweredAsync(IEnumerable<ReadOnlyMemory<byte>> pieces, Task answered)
    {
        using var stop = new CancellationTokenSource();
        _ = answered.ContinueWith(_ => stop.Cancel(), TaskScheduler.Default);
        long sent = 0;
        try
        {
            foreach (var piece in pieces)
            {
                if (answered.IsCompleted)
                {
                    break;
                }

                var offset = 0;
                while (offset < piece.Length)
                {
                    offset += await _socket.SendAsync(piece[offset..], SocketFlags.None, stop.Token);
                }

                sent += piece.Length;
            }
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException)
        {
            // The answer came or the server closed the connection: the attack is over.
        }

        return sent;
    }

    /// <summary>Whether the server closes the connection (or resets it) within <paramref name="timeout"/>, after a response was read.</summary>
    public async Task<bool> ClosedAsync(TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        var buffer = new byte[64 * 1024];
        try
        {
            while (await _socket.ReceiveAsync(buffer, SocketFlags.None, cancel.Token) > 0)
            {
                // Whatever else the server sends (nothing, normally) until it closes.
            }

            return true;
        }
        catch (SocketException)
        {
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    /// <summary>
    /// Reads an interim response (such as <c>100 Continue</c> after <c>Expect: 100-continue</c>) and returns its status,
    /// or null if the connection ended or <paramref name="timeout"/> passed first.
    /// </summary>
    public async Task<int?> ReadInterimStatusAsync(TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        var received = new List<byte>();
        var buffer = new byte[1];
        try
        {
            // A byte at a time, so nothing after the interim response's end is taken from the final response.
            while (received.Count < 8 * 1024 && await _socket.ReceiveAsync(buffer, SocketFlags.None, cancel.Token) == 1)
            {
                received.Add(buffer[0]);
                if (received.Count >= 4 && received[^4] == '\r' && received[^3] == '\n' && received[^2] == '\r' && received[^1] == '\n')
                {
                    return int.Parse(Encoding.ASCII.GetString(received.ToArray()).Split(' ')[1], CultureInfo.InvariantCulture);
                }
            }
        }
        catch (Exception e) when (e is OperationCanceledException or SocketException)
        {
        }

        return null;
    }

    /// <summary>Reads one response (Content-Length, chunked, or to the close), or how the connection ended without one.</summary>
    public async Task<RawHttpOutcome> ReadResponseAsync(TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        var received = new List<byte>();
        var buffer = new byte[64 * 1024];
        string failure;
        try
        {
            while (true)
            {
                var read = await _socket.ReceiveAsync(buffer, SocketFlags.None, cancel.Token);
                if (read == 0)
                {
                    failure = "closed";
                    break;
                }

                received.AddRange(buffer.AsSpan(0, read));
                if (TryParse(received.ToArray(), complete: false) is { } whole)
                {
                    return new RawHttpOutcome(whole, null, _started.Elapsed);
                }
            }
        }
        catch (OperationCanceledException)
        {
            failure = $"timed out after {timeout}";
        }
        catch (SocketException e)
        {
            failure = $"{e.SocketErrorCode}";
        }

        // A response framed by the connection's close.
        var closed = received.Count > 0 ? TryParse(received.ToArray(), complete: true) : null;
        return new RawHttpOutcome(closed, closed is null ? $"{failure}; {received.Count} bytes" : null, _started.Elapsed);
    }

    public void Dispose() => _socket.Dispose();

    private static RawHttpResponse? TryParse(byte[] bytes, bool complete)
    {
        var end = bytes.AsSpan().IndexOf("\r\n\r\n"u8);
        if (end < 0)
        {
            return null;
        }

        var lines = Encoding.ASCII.GetString(bytes, 0, end).Split("\r\n");
        var status = int.Parse(lines[0].Split(' ')[1], CultureInfo.InvariantCulture);
        var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (var line in lines.Skip(1))
        {
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            headers[line[..colon].Trim()] = line[(colon + 1)..].Trim();
        }

        var body = bytes.AsSpan(end + 4);
        if (headers.TryGetValue("Content-Length", out var length))
        {
            var n = int.Parse(length, CultureInfo.InvariantCulture);
            return body.Length >= n ? new RawHttpResponse(status, headers, body[..n].ToArray()) : null;
        }

        if (headers.TryGetValue("Transfer-Encoding", out var encoding) && encoding.Contains("chunked", StringComparison.OrdinalIgnoreCase))
        {
            var decoded = new List<byte>();
            while (true)
            {
                var lineEnd = body.IndexOf("\r\n"u8);
                if (lineEnd < 0)
                {
                    return null;
                }

                var size = int.Parse(Encoding.ASCII.GetString(body[..lineEnd]).Split(';')[0], NumberStyles.HexNumber, CultureInfo.InvariantCulture);
                if (size == 0)
                {
                    return new RawHttpResponse(status, headers, decoded.ToArray());
                }

                if (body.Length < lineEnd + 2 + size + 2)
                {
                    return null;
                }

                decoded.AddRange(body.Slice(lineEnd + 2, size));
                body = body[(lineEnd + 2 + size + 2)..];
            }
        }

        return complete || status is 204 or 304 ? new RawHttpResponse(status, headers, body.ToArray()) : null;
    }
}
