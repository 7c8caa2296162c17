using Azure.Identity;

namespace WidgetSigning.Telemetry;

/// <summary>
/// The Azure Monitor exporter's credential, from <c>APPLICATIONINSIGHTS_AUTHENTICATION_STRING</c> as the Functions host
/// reads it: <c>Authorization=AAD;ClientId=&lt;client id&gt;</c> is the user-assigned managed identity with that client
/// id, <c>Authorization=AAD</c> alone the system-assigned one. The component refuses local (instrumentation key)
/// authentication, so there is no other form.
/// </summary>
public static class AzureMonitorCredential
{
    /// <summary>The setting that names the credential.</summary>
    public const string Setting = "APPLICATIONINSIGHTS_AUTHENTICATION_STRING";

    /// <summary>The managed identity <paramref name="authenticationString"/> names.</summary>
    /// <exception cref="InvalidOperationException">It is missing, not Entra (<c>Authorization=AAD</c>), or its client id is not a GUID.</exception>
    public static ManagedIdentityCredential From(string? authenticationString)
    {
        string? authorization = null;
        string? clientId = null;
        foreach (var part in (authenticationString ?? string.Empty).Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            var equals = part.IndexOf('=', StringComparison.Ordinal);
            var key = equals < 0 ? part : part[..equals];
            var value = equals < 0 ? string.Empty : part[(equals + 1)..];
            if (key.Equals("Authorization", StringComparison.OrdinalIgnoreCase))
            {
                authorization = value;
            }
            else if (key.Equals("ClientId", StringComparison.OrdinalIgnoreCase))
            {
                clientId = value;
            }
        }

        if (!string.Equals(authorization, "AAD", StringComparison.OrdinalIgnoreCase))
        {
            throw new InvalidOperationException(
                $"{Setting} must be 'Authorization=AAD;ClientId=<managed identity client id>' when APPLICATIONINSIGHTS_CONNECTION_STRING is set: telemetry is sent with Entra authentication only.");
        }

        if (clientId is null)
        {
            return new ManagedIdentityCredential(ManagedIdentityId.SystemAssigned);
        }

        return Guid.TryParse(clientId, out _)
            ? new ManagedIdentityCredential(ManagedIdentityId.FromUserAssignedClientId(clientId))
            : throw new InvalidOperationException($"{Setting}'s ClientId must be the managed identity's client id (a GUID).");
    }

}
