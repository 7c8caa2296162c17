using Microsoft.Extensions.Logging;

namespace FunctionApp.Signing;

/// <summary>Source-generated log messages of signing (event ids 1000–1099).</summary>
internal static partial class SigningLog
{
    [LoggerMessage(EventId = 1001, Level = LogLevel.Debug, Message = "Signed {WidgetCount} widgets ({CanonicalLength} canonical bytes) with key {KeyId}")]
    public static partial void Signed(ILogger logger, int widgetCount, long canonicalLength, string keyId);
}
