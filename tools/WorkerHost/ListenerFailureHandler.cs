using System.Runtime.ExceptionServices;
using Microsoft.Azure.WebJobs.Host.Timers;

namespace WorkerHost;

/// <summary>
/// The queues host's <see cref="IWebJobsExceptionHandler"/>, where a listener's background failure lands (the Storage
/// Queues extension's <c>QueueListener</c> poll loop, its message runs and visibility renewals). The WebJobs SDK's own
/// handler rethrows it on a new thread, which ends the process. The Functions host replaces it with
/// <c>WebScriptHostExceptionHandler</c> (azure-functions-host@89dc438d,
/// src/WebJobs.Script.WebHost/WebScriptHostExceptionHandler.cs), which logs the error and stops the host gracefully;
/// this one logs the same line and reports the failure to <see cref="QueuesHostRunner"/>, which starts a new queues host.
/// A function timeout is handled the same way.
/// </summary>
internal sealed class ListenerFailureHandler : IWebJobsExceptionHandler
{
    private readonly TaskCompletionSource<Exception> _failed = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Completes with the first failure; the runner restarts on it, never inside the listener's call.</summary>
    public Task<Exception> Failed => _failed.Task;

    public Task OnTimeoutExceptionAsync(ExceptionDispatchInfo exceptionInfo, TimeSpan timeoutGracePeriod) =>
        OnUnhandledExceptionAsync(exceptionInfo);

    public Task OnUnhandledExceptionAsync(ExceptionDispatchInfo exceptionInfo)
    {
        ArgumentNullException.ThrowIfNull(exceptionInfo);
        var e = exceptionInfo.SourceException;
        var message = e.Message.ReplaceLineEndings(" ");
        Console.WriteLine($"WorkerHost: fail: An unhandled exception has occurred. Host is shutting down. ({e.GetType().Name}: {message})");
        _failed.TrySetResult(e);
        return Task.CompletedTask;
    }
}
