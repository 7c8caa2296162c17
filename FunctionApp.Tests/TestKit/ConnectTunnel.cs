using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// An HTTP proxy on 127.0.0.1 that answers every <c>CONNECT host:port</c> by tunnelling to one local endpoint: a process
/// given it as <c>HTTPS_PROXY</c> reaches a fake service under the service's public name (TLS stays end to end, so
/// the name is checked against the fake's certificate). Anything but CONNECT is refused. Records the names asked for.
/// </summary>
public sealed class ConnectTunnel : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly IPEndPoint _target;
    private readonly CancellationTokenSource _stop = new();
    private readonly ConcurrentQueue<string> _authorities = new();
    private readonly Task _accepting;

    public ConnectTunnel(IPEndPoint target)
    {
        _target = target;
        _listener.Start();
        _accepting = AcceptAsync();
    }

    /// <summary>The proxy's address, e.g. <c>http://127.0.0.1:41234</c>.</summary>
    public Uri Address => new($"http://127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}");

    /// <summary>Every <c>host:port</c> a client asked to be connected to, in order.</summary>
    public IReadOnlyList<string> Authorities => [.. _authorities];

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Stop();
        try
        {
            await _accepting;
        }
        catch (Exception ex) when (ex is OperationCanceledException or SocketException or ObjectDisposedException)
        {
        }

        _stop.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            var client = await _listener.AcceptTcpClientAsync(_stop.Token);
            _ = Task.Run(() => TunnelAsync(client));
        }
    }

    private async Task TunnelAsync(TcpClient client)
    {
        using var _ = client;
        try
        {
            var stream = client.GetStream();
            var head = await ReadHeadAsync(stream);
            var requestLine = head.Split("\r\n", 2)[0].Split(' ');
            if (requestLine.Length != 3 || requestLine[0] != "CONNECT")
            {
                await stream.WriteAsync("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"u8.ToArray(), _stop.Token);
                return;
            }

            _authorities.Enqueue(requestLine[1]);
            using var upstream = new TcpClient();
            await upstream.ConnectAsync(_target, _stop.Token);
            await stream.WriteAsync("HTTP/1.1 200 Connection established\r\n\r\n"u8.ToArray(), _stop.Token);
            var upstreamStream = upstream.GetStream();
            await Task.WhenAny(stream.CopyToAsync(upstreamStream, _stop.Token), upstreamStream.CopyToAsync(stream, _stop.Token));
        }
        catch (Exception ex) when (ex is IOException or SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // A client or the fake went away: the tunnel ends with it.
        }
    }

    /// <summary>Reads the request head byte by byte, so nothing after the blank line (the TLS hello) is consumed.</summary>
    private async Task<string> ReadHeadAsync(NetworkStream stream)
    {
        var head = new StringBuilder();
        var one = new byte[1];
        while (!head.ToString().EndsWith("\r\n\r\n", StringComparison.Ordinal))
        {
            if (await stream.ReadAsync(one, _stop.Token) == 0 || head.Length > 8192)
            {
                throw new IOException("the proxy request head ended early or is too long");
            }

            head.Append((char)one[0]);
        }

        return head.ToString();
    }
}
