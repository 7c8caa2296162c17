using Microsoft.Extensions.Logging;

namespace WidgetSigning.Keys;

/// <summary>Source-generated log messages of the key sources (event ids 3000–3099). No message carries key material.</summary>
internal static partial class KeysLog
{
    [LoggerMessage(EventId = 3001, Level = LogLevel.Information, Message = "Signing key {SecretName} version {KeyId} loaded from Key Vault; {PreviousCount} earlier versions accepted for verification")]
    public static partial void Loaded(ILogger logger, string secretName, string keyId, int previousCount);

    [LoggerMessage(EventId = 3002, Level = LogLevel.Information, Message = "Signing key {SecretName} rotated from version {PreviousKeyId} to {KeyId}")]
    public static partial void Rotated(ILogger logger, string secretName, string previousKeyId, string keyId);

    [LoggerMessage(EventId = 3003, Level = LogLevel.Warning, Message = "Refreshing signing key {SecretName} from Key Vault failed ({FailureCount} in a row); still signing with version {KeyId}; next attempt in {RetryIn}")]
    public static partial void RefreshFailedKeepingKey(ILogger logger, Exception exception, string secretName, int failureCount, string keyId, TimeSpan retryIn);

    [LoggerMessage(EventId = 3004, Level = LogLevel.Error, Message = "Loading signing key {SecretName} from Key Vault failed ({FailureCount} in a row); no key is available, so HTTP answers 503 and queue messages are retried; next attempt in {RetryIn}")]
    public static partial void RefreshFailedNoKey(ILogger logger, Exception exception, string secretName, int failureCount, TimeSpan retryIn);

    [LoggerMessage(EventId = 3005, Level = LogLevel.Error, Message = "Refused Key Vault secret {SecretName} version {Version}: {Reason}")]
    public static partial void Refused(ILogger logger, string secretName, string version, string reason);

    [LoggerMessage(EventId = 3006, Level = LogLevel.Information, Message = "Signing keys come from Key Vault {VaultUri}, secret {SecretName}, refreshed every {RefreshInterval}")]
    public static partial void UsingKeyVault(ILogger logger, Uri vaultUri, string secretName, TimeSpan refreshInterval);

    [LoggerMessage(EventId = 3007, Level = LogLevel.Error, Message = "Signing key {SecretName} version {KeyId} is not usable: {Reason}. Signing stops (HTTP 503, queue messages retried) and its signatures no longer verify until a usable version is current")]
    public static partial void CurrentUnusable(ILogger logger, string secretName, string keyId, string reason);

    [LoggerMessage(EventId = 3008, Level = LogLevel.Information, Message = "Signing key {SecretName} version {KeyId} is usable again; signing resumes")]
    public static partial void Resumed(ILogger logger, string secretName, string keyId);

    [LoggerMessage(EventId = 3009, Level = LogLevel.Information, Message = "Signing key {SecretName} version {KeyId} is staged until {NotBefore}: it signs alongside the current version (labelled) and becomes current after that time")]
    public static partial void Staged(ILogger logger, string secretName, string keyId, DateTimeOffset notBefore);

    [LoggerMessage(EventId = 3010, Level = LogLevel.Debug, Message = "Receiver {Receiver} dropped from the key cache as the least recently used of {MaxCachedReceivers}; its key is no longer refreshed until it is used again")]
    public static partial void ReceiverEvicted(ILogger logger, string receiver, int maxCachedReceivers);

    [LoggerMessage(EventId = 3011, Level = LogLevel.Information, Message = "{Count} receivers unused for {IdleTimeout} dropped from the key cache; {Remaining} remain cached and refreshed")]
    public static partial void IdleReceiversDropped(ILogger logger, int count, TimeSpan idleTimeout, int remaining);

    [LoggerMessage(EventId = 3012, Level = LogLevel.Information, Message = "Receiver {Receiver} is unknown: Key Vault has no secret {SecretName}. Requests naming it get 404 without a Key Vault call for {Duration}")]
    public static partial void ReceiverUnknown(ILogger logger, string receiver, string secretName, TimeSpan duration);

    [LoggerMessage(EventId = 3013, Level = LogLevel.Warning, Message = "Lookups of receivers not cached are limited to {MaxLookupsPerSecond} per second: {Refused} refused with 429 since {Since}")]
    public static partial void LookupsLimited(ILogger logger, int maxLookupsPerSecond, long refused, DateTimeOffset since);
}
