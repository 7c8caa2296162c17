using System.Globalization;
using System.Text.RegularExpressions;

namespace FunctionApp.Tests.Tooling;

/// <summary>What one run of scripts/start.mjs printed, how it ended, and what the fake func saw.</summary>
public sealed partial record StartScriptRun(int ExitCode, string Output, string Error, FakeFuncRecord? Func)
{
    /// <summary>The pid the script reported for the Azurite it started, or null if it started none.</summary>
    public int? AzuritePid
    {
        get
        {
            var match = AzuritePidPattern().Match(Output);
            return match.Success ? int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture) : null;
        }
    }

    /// <summary>The pid the script reported for the local issuer it started, or null if it started none.</summary>
    public int? IssuerPid
    {
        get
        {
            var match = IssuerPidPattern().Match(Output);
            return match.Success ? int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture) : null;
        }
    }

    [GeneratedRegex(@"Local issuer starting \(pid (\d+)\)")]
    private static partial Regex IssuerPidPattern();

    [GeneratedRegex(@"Azurite starting \(pid (\d+)\)")]
    private static partial Regex AzuritePidPattern();
}
