namespace FunctionApp.Tests.TestKit;

/// <summary>How <see cref="FakeKeyVaultServer"/> misbehaves.</summary>
public enum FakeKeyVaultFault
{
    None,

    /// <summary>500 with a Key Vault error body.</summary>
    ServerError,

    /// <summary>No answer until the client gives up (longer than its network timeout).</summary>
    Hang,

    /// <summary>429 with <c>Retry-After</c>.</summary>
    Throttle,
}
