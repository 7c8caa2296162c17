using Microsoft.Extensions.Logging;

namespace WidgetSigning.Signing;

/// <summary>Source-generated log messages of signing (event ids 1000–1099).</summary>
internal static partial class SigningLog
{
    [LoggerMessage(EventId = 1001, Level = LogLevel.Debug, Message = "Signed {WidgetCount} widgets ({CanonicalLength} canonical bytes) for receiver {Receiver} with key {KeyId}")]
    public static partial void Signed(ILogger logger, int widgetCount, long canonicalLength, string receiver, string keyId);

    [LoggerMessage(EventId = 1002, Level = LogLevel.Warning, Message = "Memory budget for envelopes in flight is spent: {Requested} more bytes asked, {InUse} of {Capacity} in use (setting {Setting}); the request gets 503 or the message is released")]
    public static partial void BudgetSpent(ILogger logger, long requested, long inUse, long capacity, string setting);

    [LoggerMessage(EventId = 1003, Level = LogLevel.Information, Message = "Memory budget for envelopes in flight: {Capacity} bytes ({Source}, setting {Setting})")]
    public static partial void BudgetConfigured(ILogger logger, long capacity, string source, string setting);
}
