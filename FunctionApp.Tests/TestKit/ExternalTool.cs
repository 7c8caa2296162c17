using System.Diagnostics;

namespace FunctionApp.Tests.TestKit;

/// <summary>Runs a program we did not write (node with a library, openssl) and collects what it printed; at most 60 s.</summary>
public sealed record ExternalTool(int ExitCode, string Output, string Error)
{
    public static async Task<ExternalTool> RunAsync(string program, params string[] arguments)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        var start = new ProcessStartInfo(program)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = RepoRoot.Path,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return await RunAsync(start, program);
    }

    /// <summary>
    /// Runs <paramref name="start"/> (output redirected) with no input, at most 60 s. A missing program throws: the test
    /// fails, it is never skipped. The one process runner of the tests (ScriptRun uses it too).
    /// </summary>
    public static async Task<ExternalTool> RunAsync(ProcessStartInfo start, string name)
    {
        ArgumentNullException.ThrowIfNull(start);
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{name} did not start");
        process.StandardInput.Close();
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{name} did not finish in 60 s.");
        }

        return new ExternalTool(process.ExitCode, await output, await error);
    }

    /// <summary>scripts/verify-webhook.mjs with the standardwebhooks library from node_modules (npm ci).</summary>
    public static Task<ExternalTool> VerifyWebhookAsync(string bodyFile, string headersFile, params string[] secrets)
    {
        var arguments = new List<string> { Path.Combine(RepoRoot.Path, "scripts", "verify-webhook.mjs"), "--body", bodyFile, "--headers", headersFile };
        foreach (var secret in secrets)
        {
            arguments.Add("--secret");
            arguments.Add(secret);
        }

        return RunAsync("node", [.. arguments]);
    }

    /// <summary>HMAC-SHA256 of a file with openssl, as the README and docs/receivers.md show it; the hex digest.</summary>
    public static async Task<string> OpensslHmacAsync(string file, byte[] key)
    {
        var run = await RunAsync("openssl", "dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:" + Convert.ToHexString(key).ToLowerInvariant(), file);
        Assert.True(run.ExitCode == 0, run.Error);

        // "HMAC-SHA2-256(file)= <hex>" (or "HMAC-SHA256(...)" on older builds): the digest is the last word.
        return run.Output.Trim().Split(' ')[^1];
    }
}
