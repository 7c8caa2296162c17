namespace WorkerHost;

/// <summary>A reason not to start, with the process exit code: 2 = the build output is incomplete, 3 = the real host would refuse.</summary>
internal sealed class StartRefusedException(int exitCode, string message) : Exception(message)
{
    public int ExitCode { get; } = exitCode;
}
