using System.Net;
using System.Net.Sockets;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// A TCP relay on a fixed 127.0.0.1 port to one local port, that can be cut (the listener closed and every relayed
/// connection reset, so the port refuses connections as a dead service's does) and restored on the same port: a storage
/// service that goes away and comes back, while the emulator behind it keeps its data.
/// </summary>
public sealed class SeverableTcpRelay : IAsyncDisposable
{
    private readonly int _target;
    private readonly object _gate = new();
    private readonly List<Socket> _open = [];
    private TcpListener? _listener;
    private CancellationTokenSource? _cut;
    private Task _accepting = Task.CompletedTask;

    public SeverableTcpRelay(int targetPort)
    {
        _target = targetPort;
        Port = Listen(0);
    }

    /// <summary>The relay's port, the same before and after a cut.</summary>
    public int Port { get; }

    /// <summary>Closes the listener and resets every relayed connection.</summary>
    public async Task CutAsync()
    {
        lock (_gate)
        {
            _cut?.Cancel();
            _listener?.Stop();
            _listener = null;
            foreach (var socket in _open)
            {
                socket.LingerState = new LingerOption(true, 0);
                socket.Dispose();
            }

            _open.Clear();
        }

        await _accepting;
    }

    /// <summary>Listens again on <see cref="Port"/>.</summary>
    public void Restore() => Listen(Port);

    public async ValueTask DisposeAsync() => await CutAsync();

    private int Listen(int port)
    {
        lock (_gate)
        {
            var listener = new TcpListener(IPAddress.Loopback, port);
            listener.Server.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
            listener.Start();
            _listener = listener;
            _cut = new CancellationTokenSource();
            _accepting = AcceptAsync(listener, _cut.Token);
            return ((IPEndPoint)listener.LocalEndpoint).Port;
        }
    }

    private async Task AcceptAsync(TcpListener listener, CancellationToken cut)
    {
        while (!cut.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await listener.AcceptSocketAsync(cut);
            }
            catch (Exception e) when (e is OperationCanceledException or SocketException or ObjectDisposedException)
            {
                return;
            }

            _ = RelayAsync(client, cut);
        }
    }

    private async Task RelayAsync(Socket client, CancellationToken cut)
    {
        var server = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        lock (_gate)
        {
            _open.Add(client);
            _open.Add(server);
        }

        try
        {
            await server.ConnectAsync(new IPEndPoint(IPAddress.Loopback, _target), cut);
            await Task.WhenAny(PumpAsync(client, server, cut), PumpAsync(server, client, cut));
        }
        catch (Exception e) when (e is OperationCanceledException or SocketException or ObjectDisposedException)
        {
            // Cut, or either side closed.
        }
        finally
        {
            lock (_gate)
            {
                _open.Remove(client);
                _open.Remove(server);
            }

            client.Dispose();
            server.Dispose();
        }
    }

    private static async Task PumpAsync(Socket from, Socket to, CancellationToken cut)
    {
        var buffer = new byte[16 * 1024];
        try
        {
            int read;
            while ((read = await from.ReceiveAsync(buffer, SocketFlags.None, cut)) > 0)
            {
                await to.SendAsync(buffer.AsMemory(0, read), SocketFlags.None, cut);
            }

            to.Shutdown(SocketShutdown.Send);
        }
        catch (Exception e) when (e is OperationCanceledException or SocketException or ObjectDisposedException)
        {
            // Cut, or either side closed.
        }
    }
}
