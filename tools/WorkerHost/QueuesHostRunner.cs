using System.Diagnostics;
using Microsoft.Extensions.Hosting;

namespace WorkerHost;

/// <summary>
/// Runs the WebJobs host that holds the queue listeners and, when a listener fails (<see cref="ListenerFailureHandler"/>),
/// stops it and starts a new one. In Azure the Functions host stops on that failure and the platform starts it again;
/// here only the queues host restarts, so HTTP and the worker keep serving through a storage outage. The wait before a
/// restart doubles from 1 s up to 30 s while hosts keep failing within a minute of starting.
/// </summary>
internal sealed class QueuesHostRunner(Func<ListenerFailureHandler, IHost> create) : IAsyncDisposable
{
    private static readonly TimeSpan FirstDelay = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan MaxDelay = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan HealthyRun = TimeSpan.FromMinutes(1);
    private static readonly TimeSpan StopTimeout = TimeSpan.FromSeconds(20);

    private readonly CancellationTokenSource _stop = new();
    private IHost? _host;
    private ListenerFailureHandler? _handler;
    private Task _loop = Task.CompletedTask;

    /// <summary>Starts the first host; a failure to start it stops start-up, as before.</summary>
    public async Task StartAsync(CancellationToken cancellationToken)
    {
        _handler = new ListenerFailureHandler();
        _host = create(_handler);
        await _host.StartAsync(cancellationToken).ConfigureAwait(false);
        _loop = RestartOnFailureAsync();
    }

    /// <summary>Stops restarting, then stops the current host.</summary>
    public async Task StopAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _loop.ConfigureAwait(false);
        await StopHostAsync().ConfigureAwait(false);
    }

    public async ValueTask DisposeAsync()
    {
        await StopAsync().ConfigureAwait(false);
        _stop.Dispose();
    }

    private async Task RestartOnFailureAsync()
    {
        var delay = FirstDelay;
        var started = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                await _handler!.Failed.WaitAsync(_stop.Token).ConfigureAwait(false);
                await StopHostAsync().ConfigureAwait(false);
                delay = started.Elapsed >= HealthyRun ? FirstDelay : delay;
                while (true)
                {
                    Console.WriteLine($"WorkerHost: restarting the queues host in {delay.TotalSeconds:0.#} s.");
                    await Task.Delay(delay, _stop.Token).ConfigureAwait(false);
                    delay = TimeSpan.FromTicks(Math.Min(delay.Ticks * 2, MaxDelay.Ticks));
                    if (await TryStartHostAsync().ConfigureAwait(false))
                    {
                        started.Restart();
                        break;
                    }
                }
            }
            catch (OperationCanceledException) when (_stop.IsCancellationRequested)
            {
                return;
            }
        }
    }

    private async Task<bool> TryStartHostAsync()
    {
        _handler = new ListenerFailureHandler();
        _host = create(_handler);
        try
        {
            await _host.StartAsync(_stop.Token).ConfigureAwait(false);
            Console.WriteLine("WorkerHost: the queues host started again.");
            return true;
        }
        catch (Exception e) when (e is not OperationCanceledException || !_stop.IsCancellationRequested)
        {
            Console.WriteLine($"WorkerHost: fail: the queues host did not start again ({e.GetType().Name}: {e.Message.ReplaceLineEndings(" ")})");
            await StopHostAsync().ConfigureAwait(false);
            return false;
        }
    }

    private async Task StopHostAsync()
    {
        if (Interlocked.Exchange(ref _host, null) is not { } host)
        {
            return;
        }

        using var timeout = new CancellationTokenSource(StopTimeout);
        try
        {
            await host.StopAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationCanceledException or InvalidOperationException or AggregateException)
        {
            // A failed host may not stop cleanly; it is disposed all the same and a new one takes its place.
            Console.WriteLine($"WorkerHost: the queues host did not stop cleanly ({e.GetType().Name}: {e.Message.ReplaceLineEndings(" ")})");
        }
        finally
        {
            host.Dispose();
        }
    }
}
