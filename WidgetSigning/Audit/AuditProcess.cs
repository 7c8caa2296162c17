using System.Globalization;
using System.Security.Cryptography;
using System.Text;

namespace WidgetSigning.Audit;

/// <summary>
/// Names one run of one process in the store: its instance, its process id and 8 random hex digits, so that two
/// processes (or one restarted) never write the same stream and each chain has a single writer.
/// </summary>
internal static class AuditProcess
{
    /// <summary>The name: <c>[a-z0-9-]</c>, at most 16 characters of the instance id (or machine name), then pid and randomness.</summary>
    public static string Name(string? instanceId)
    {
        var instance = new StringBuilder(16);
        foreach (var c in (string.IsNullOrWhiteSpace(instanceId) ? Environment.MachineName : instanceId).ToLowerInvariant())
        {
            if (instance.Length == 16)
            {
                break;
            }

            if (c is (>= 'a' and <= 'z') or (>= '0' and <= '9'))
            {
                instance.Append(c);
            }
        }

        if (instance.Length == 0)
        {
            instance.Append("host");
        }

        var random = Convert.ToHexString(RandomNumberGenerator.GetBytes(4)).ToLowerInvariant();
        return string.Create(CultureInfo.InvariantCulture, $"{instance}-{Environment.ProcessId}-{random}");
    }
}
