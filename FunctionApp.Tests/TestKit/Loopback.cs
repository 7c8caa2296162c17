using System.Net;
using System.Net.Sockets;

namespace FunctionApp.Tests.TestKit;

/// <summary>Loopback ports for the servers the tests start (Azurite, fakes): a free one, and whether one listens.</summary>
public static class Loopback
{
    /// <summary>A port nothing listens on right now (the OS picks it), so parallel test runs do not collide.</summary>
    public static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    /// <summary>Whether something accepts connections on 127.0.0.1:<paramref name="port"/>.</summary>
    public static async Task<bool> AcceptsAsync(int port)
    {
        using var client = new TcpClient();
        try
        {
            await client.ConnectAsync(IPAddress.Loopback, port);
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }
}
