using System.Security.Cryptography;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// A dedicated thread that hashes the given bytes once each time it is started: the second thread of
/// <c>Scaling_HmacSha256_TwoThreadsAtOnce</c>. A thread of its own, woken by spinning events, so the row measures two
/// cores hashing rather than a thread-pool wake-up; between benchmark invocations the gap is short enough for the spin.
/// </summary>
internal sealed class HashPartner : IDisposable
{
    private readonly byte[] _bytes;
    private readonly ManualResetEventSlim _go = new(initialState: false, spinCount: 2047);
    private readonly ManualResetEventSlim _done = new(initialState: false, spinCount: 2047);
    private readonly Thread _thread;
    private volatile bool _stopping;

    /// <summary>Starts the thread, waiting for the first <see cref="Start"/>.</summary>
    public HashPartner(byte[] bytes)
    {
        _bytes = bytes;
        _thread = new Thread(Run) { IsBackground = true, Name = "hash-partner" };
        _thread.Start();
    }

    /// <summary>The partner starts one hash.</summary>
    public void Start()
    {
        _done.Reset();
        _go.Set();
    }

    /// <summary>Waits until the partner's hash is done.</summary>
    public void Wait() => _done.Wait();

    /// <inheritdoc />
    public void Dispose()
    {
        _stopping = true;
        _go.Set();
        _thread.Join();
        _go.Dispose();
        _done.Dispose();
    }

    private void Run()
    {
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        while (true)
        {
            _go.Wait();
            _go.Reset();
            if (_stopping)
            {
                return;
            }

            HMACSHA256.HashData(BenchmarkData.KeyBytes, _bytes, mac);
            _done.Set();
        }
    }
}
