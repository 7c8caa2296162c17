using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// A TCP proxy on 127.0.0.1 in front of one local endpoint that can <em>hang</em>, as a storage front end does when it
/// stops answering: while hung it accepts connections and reads nothing onward, and every connection that was open
/// when the hang began (or opened during it) stays silent for good, as a dropped connection does. After
/// <see cref="Answer"/>, only new connections are relayed.
/// </summary>
public sealed class HangingTcpProxy : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly IPEndPoint _target;
    private readonly CancellationTokenSource _stop = new();
    private readonly ConcurrentDictionary<Connection, byte> _open = new();
    private readonly Task _accepting;
    private volatile bool _hung;

    public HangingTcpProxy(int targetPort)
    {
        _target = new IPEndPoint(IPAddress.Loopback, targetPort);
        _listener.Start();
        _accepting = AcceptAsync();
    }

    /// <summary>The proxy's port on 127.0.0.1.</summary>
    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>From now on nothing is relayed on any open or new connection.</summary>
    public void Hang()
    {
        _hung = true;
        foreach (var connection in _open.Keys)
        {
            connection.Silence();
        }
    }

    /// <summary>New connections are relayed again; those silenced stay silent.</summary>
    public void Answer() => _hung = false;

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Stop();
        foreach (var connection in _open.Keys)
        {
            connection.Dispose();
        }

        try
        {
            await _accepting;
        }
        catch (OperationCanceledException)
        {
        }

        _stop.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            TcpClient client;
            try
            {
                client = await _listener.AcceptTcpClientAsync(_stop.Token);
            }
            catch (Exception ex) when (ex is OperationCanceledException or SocketException or ObjectDisposedException)
            {
                return;
            }

            var connection = new Connection(client, _hung);
            _open[connection] = 0;
            _ = RelayAsync(connection);
        }
    }

    private async Task RelayAsync(Connection connection)
    {
        try
        {
            if (connection.Silenced)
            {
                await Task.Delay(Timeout.Infinite, _stop.Token);
            }

            using var upstream = new TcpClient();
            await upstream.ConnectAsync(_target, _stop.Token);
            connection.Upstream = upstream;
            var down = connection.Client.GetStream();
            var up = upstream.GetStream();
            await Task.WhenAny(PumpAsync(connection, down, up), PumpAsync(connection, up, down));

            // The far side may close an idle connection (Azurite after 5 s of keep-alive); a hung front end would not
            // tell the client so.
            if (connection.Silenced)
            {
                await Task.Delay(Timeout.Infinite, _stop.Token);
            }
        }
        catch (Exception ex) when (ex is OperationCanceledException or IOException or SocketException or ObjectDisposedException)
        {
        }
        finally
        {
            _open.TryRemove(connection, out _);
            connection.Dispose();
        }
    }

    private async Task PumpAsync(Connection connection, Stream from, Stream to)
    {
        var buffer = new byte[16 * 1024];
        while (true)
        {
            var read = await from.ReadAsync(buffer, _stop.Token);
            if (read == 0)
            {
                return;
            }

            if (connection.Silenced)
            {
                // What was in flight is held, never delivered, and the connection stays open.
                await Task.Delay(Timeout.Infinite, _stop.Token);
            }

            await to.WriteAsync(buffer.AsMemory(0, read), _stop.Token);
        }
    }

    private sealed class Connection(TcpClient client, bool silenced) : IDisposable
    {
        private volatile bool _silenced = silenced;

        public TcpClient Client { get; } = client;

        public TcpClient? Upstream { get; set; }

        public bool Silenced => _silenced;

        public void Silence() => _silenced = true;

        public void Dispose()
        {
            Client.Dispose();
            Upstream?.Dispose();
        }
    }
}
