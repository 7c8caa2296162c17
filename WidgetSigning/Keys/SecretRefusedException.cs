namespace WidgetSigning.Keys;

/// <summary>A Key Vault secret version is not a usable key. The message names the secret and version, never the value.</summary>
internal sealed class SecretRefusedException : Exception
{
    /// <summary>Creates the exception.</summary>
    public SecretRefusedException()
        : this("A Key Vault secret is not a usable signing key.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public SecretRefusedException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public SecretRefusedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for <paramref name="secretName"/> version <paramref name="version"/>.</summary>
    public SecretRefusedException(string secretName, string version, string reason)
        : base($"Key Vault secret '{secretName}' version '{version}' is refused: {reason}. Store base64 of at least {SigningKey.MinimumKeyBytes} random bytes.")
    {
        SecretName = secretName;
        Version = version;
    }

    /// <summary>The secret's name.</summary>
    public string? SecretName { get; }

    /// <summary>The refused version.</summary>
    public string? Version { get; }
}
