namespace WorkerHost;

/// <summary>The worker process is gone (exited, stream closed) or not ready; in-flight invocations fail with this.</summary>
internal sealed class WorkerUnavailableException(string message) : Exception(message);
