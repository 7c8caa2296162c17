using System.Diagnostics;
using System.Text;
using System.Text.RegularExpressions;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// What a local host process (tools/LocalHost, tools/WorkerHost) prints, kept for failure messages, and the URL of its
/// ready line once it printed it: the one reader both test wrappers of a host process use.
/// </summary>
public sealed class HostProcessOutput(Regex readyLine)
{
    private readonly StringBuilder _text = new();
    private readonly TaskCompletionSource<string> _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>The ready line's <c>url</c> group, once printed.</summary>
    public Task<string> Ready => _ready.Task;

    public string Text
    {
        get
        {
            lock (_text)
            {
                return _text.ToString();
            }
        }
    }

    /// <summary>Kills <paramref name="process"/> and everything it started, if it still runs, and disposes it.</summary>
    public static async Task StopAsync(Process process)
    {
        ArgumentNullException.ThrowIfNull(process);
        if (!process.HasExited)
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync();
        }

        process.Dispose();
    }

    /// <summary>Takes one line of the process's output (null at its end).</summary>
    public void Add(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_text)
        {
            _text.AppendLine(line);
        }

        if (readyLine.Match(line) is { Success: true } match)
        {
            _ready.TrySetResult(match.Groups["url"].Value);
        }
    }
}
