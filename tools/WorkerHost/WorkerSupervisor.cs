using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;

namespace WorkerHost;

/// <summary>Starts the worker process as the host does, restarts it when it exits, and stops it (terminate, then kill the tree).</summary>
internal sealed class WorkerSupervisor(AppDescription app) : IAsyncDisposable
{
    private static readonly TimeSpan TerminateGrace = TimeSpan.FromSeconds(5);
    private const int MaxMessageLength = int.MaxValue;

    private readonly ConcurrentDictionary<string, WorkerChannel> _starting = new();
    private readonly CancellationTokenSource _stopping = new();
    private readonly Lock _gate = new();
    private TaskCompletionSource<WorkerChannel> _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Process? _process;
    private WorkerChannel? _channel;
    private Uri _server = new("http://127.0.0.1/");
    private Task _monitor = Task.CompletedTask;

    /// <summary>The functions of the first worker (routes and queue listeners are made from them).</summary>
    public IReadOnlyCollection<WorkerFunction> Functions { get; private set; } = [];

    public int? WorkerProcessId { get; private set; }

    /// <summary>The channel of a worker this host started and is waiting for, by the worker id it was given.</summary>
    public WorkerChannel? Attach(string workerId) => _starting.GetValueOrDefault(workerId);

    /// <summary>Starts the first worker; failures (time-outs, init, load) propagate so the host refuses to start.</summary>
    public async Task StartAsync(Uri grpcServer, CancellationToken cancellationToken)
    {
        _server = grpcServer;
        var channel = await LaunchAsync(cancellationToken).ConfigureAwait(false);
        Functions = channel.Functions;
        _monitor = Task.Run(MonitorAsync, CancellationToken.None);
    }

    /// <summary>A worker that is up and loaded, waiting (bounded) through a restart.</summary>
    public async Task<WorkerChannel> GetReadyAsync(TimeSpan wait, CancellationToken cancellationToken)
    {
        var deadline = Stopwatch.StartNew();
        while (true)
        {
            Task<WorkerChannel> ready;
            lock (_gate)
            {
                ready = _ready.Task;
            }

            var remaining = wait - deadline.Elapsed;
            if (remaining <= TimeSpan.Zero)
            {
                throw new WorkerUnavailableException($"no worker became ready within {wait.TotalSeconds:0} s");
            }

            try
            {
                var channel = await ready.WaitAsync(remaining, cancellationToken).ConfigureAwait(false);
                if (!channel.IsFailed)
                {
                    return channel;
                }
            }
            catch (TimeoutException)
            {
                throw new WorkerUnavailableException($"no worker became ready within {wait.TotalSeconds:0} s");
            }

            // The worker just died and the exit handler has not swapped in a new wait yet.
            await Task.Delay(100, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>WorkerTerminate, the grace period, then kill the process tree; no restart after this.</summary>
    public async Task StopAsync()
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        Process? process;
        WorkerChannel? channel;
        lock (_gate)
        {
            process = _process;
            channel = _channel;
            _ready.TrySetException(new WorkerUnavailableException("the host is stopping"));
        }

        if (process is not null && !HasExited(process))
        {
            channel?.Terminate(TerminateGrace);
            try
            {
                await process.WaitForExitAsync().WaitAsync(TerminateGrace).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                Console.WriteLine($"WorkerHost: the worker (pid {process.Id}) did not stop within {TerminateGrace.TotalSeconds:0} s; killing it.");
            }
        }

        Kill(process);
        channel?.Fail(new WorkerUnavailableException("the host stopped the worker"));
        await _monitor.ConfigureAwait(false);
    }

    /// <summary>Last resort on process exit: never leave an orphan worker.</summary>
    public void KillNow() => Kill(_process);

    public async ValueTask DisposeAsync()
    {
        if (!_stopping.IsCancellationRequested)
        {
            await StopAsync().ConfigureAwait(false);
        }

        _stopping.Dispose();
        _process?.Dispose();
    }

    private static bool HasExited(Process process)
    {
        try
        {
            return process.HasExited;
        }
        catch (InvalidOperationException)
        {
            return true;
        }
    }

    private static void Kill(Process? process)
    {
        try
        {
            if (process is not null && !process.HasExited)
            {
                process.Kill(entireProcessTree: true);
            }
        }
        catch (Exception e) when (e is InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            // Already gone.
        }
    }

    private async Task<WorkerChannel> LaunchAsync(CancellationToken cancellationToken)
    {
        var workerId = Guid.NewGuid().ToString();
        var requestId = Guid.NewGuid().ToString();
        var channel = new WorkerChannel(workerId);
        _starting[workerId] = channel;
        // Ownership passes to _process (disposed with the supervisor) or is disposed in the catch below; the analyzer cannot
        // follow the hand-over through the lock.
#pragma warning disable CA2000
        var process = CreateProcess(StartInfo(workerId, requestId));
#pragma warning restore CA2000
        process.Exited += (_, _) => OnExited(process, channel);
        try
        {
            lock (_gate)
            {
                _process = process;
                _channel = channel;
            }

            process.Start();
            WorkerProcessId = process.Id;
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
            await channel.InitializeAsync(app, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            channel.Fail(new WorkerUnavailableException("the worker failed to start"));
            Kill(process);
            lock (_gate)
            {
                _process = null;
            }

            process.Dispose();
            throw;
        }
        finally
        {
            _starting.TryRemove(workerId, out _);
        }

        lock (_gate)
        {
            _ready.TrySetResult(channel);
        }

        return channel;
    }

    private static Process CreateProcess(ProcessStartInfo startInfo)
    {
        var process = new Process { StartInfo = startInfo, EnableRaisingEvents = true };
        process.OutputDataReceived += (_, e) => Forward(e.Data);
        process.ErrorDataReceived += (_, e) => Forward(e.Data);
        return process;
    }

    private ProcessStartInfo StartInfo(string workerId, string requestId)
    {
        var maxLength = MaxMessageLength.ToString(CultureInfo.InvariantCulture);
        var info = new ProcessStartInfo(app.Executable)
        {
            WorkingDirectory = app.Root,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            CreateNoWindow = true,
        };
        // RpcWorkerContext.GetFormattedArguments: the legacy switches and the --functions-* ones the worker reads.
        foreach (var argument in new[]
        {
            app.WorkerPath, "--host", _server.Host, "--port", _server.Port.ToString(CultureInfo.InvariantCulture), "--workerId", workerId,
            "--requestId", requestId, "--grpcMaxMessageLength", maxLength, "--functions-uri", _server.AbsoluteUri,
            "--functions-worker-id", workerId, "--functions-request-id", requestId, "--functions-grpc-max-message-length", maxLength,
        })
        {
            info.ArgumentList.Add(argument);
        }

        // As func start does: local.settings.json fills in what the environment lacks, and the environment wins (npm start
        // points both storage connections at moved Azurite ports that way).
        foreach (var (key, value) in app.Settings)
        {
            if (Environment.GetEnvironmentVariable(key) is null)
            {
                info.Environment[key] = value;
            }
        }

        // func start runs the worker as Development (the app accepts its local signing key only then); a setting or the
        // host's own environment may say otherwise.
        if (!app.Settings.ContainsKey("AZURE_FUNCTIONS_ENVIRONMENT") && Environment.GetEnvironmentVariable("AZURE_FUNCTIONS_ENVIRONMENT") is null)
        {
            info.Environment["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development";
        }

        info.Environment["FUNCTIONS_APPLICATION_DIRECTORY"] = app.Root;
        info.Environment["FUNCTIONS_WORKER_DIRECTORY"] = app.Root;
        // The host passes these on the command line only; the environment form is the worker's other documented way in,
        // set too so a worker that reads only one of them still finds the host.
        info.Environment["Functions__Worker__HostEndpoint"] = _server.AbsoluteUri;
        info.Environment["Functions__Worker__WorkerId"] = workerId;
        info.Environment["Functions__Worker__RequestId"] = requestId;
        info.Environment["Functions__Worker__GrpcMaxMessageLength"] = maxLength;
        return info;
    }

    private static void Forward(string? line)
    {
        if (line is not null)
        {
            Console.WriteLine("[worker] " + line);
        }
    }

    private void OnExited(Process process, WorkerChannel channel)
    {
        lock (_gate)
        {
            // New callers wait for the restarted worker rather than getting the dead one.
            if (_channel == channel && _ready.Task.IsCompleted && !_stopping.IsCancellationRequested)
            {
                _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);
            }
        }

        var code = HasExited(process) ? process.ExitCode.ToString(CultureInfo.InvariantCulture) : "?";
        channel.Fail(new WorkerUnavailableException($"the worker process exited (code {code})"));
    }

    private async Task MonitorAsync()
    {
        while (!_stopping.IsCancellationRequested)
        {
            Process? process;
            lock (_gate)
            {
                process = _process;
            }

            try
            {
                await process!.WaitForExitAsync(_stopping.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            if (_stopping.IsCancellationRequested)
            {
                return;
            }

            Console.WriteLine($"WorkerHost: the worker process (pid {process.Id}) exited unexpectedly (code {process.ExitCode}); in-flight invocations failed; restarting it.");
            for (var attempt = 1; !_stopping.IsCancellationRequested; attempt++)
            {
                try
                {
                    await LaunchAsync(_stopping.Token).ConfigureAwait(false);
                    Console.WriteLine($"WorkerHost: worker restarted (pid {WorkerProcessId}).");
                    break;
                }
                catch (Exception e) when (e is WorkerUnavailableException or System.ComponentModel.Win32Exception or InvalidOperationException)
                {
                    Console.Error.WriteLine($"WorkerHost: restarting the worker failed (attempt {attempt}): {e.Message}");
                    try
                    {
                        await Task.Delay(TimeSpan.FromSeconds(Math.Min(30, 2 * attempt)), _stopping.Token).ConfigureAwait(false);
                    }
                    catch (OperationCanceledException)
                    {
                        return;
                    }
                }
                catch (OperationCanceledException)
                {
                    return;
                }
            }
        }
    }
}
