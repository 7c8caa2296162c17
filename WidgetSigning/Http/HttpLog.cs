using Microsoft.Extensions.Logging;

namespace WidgetSigning.Http;

/// <summary>Source-generated log messages of the HTTP adapters (event ids 4000–4099).</summary>
internal static partial class HttpLog
{
    [LoggerMessage(EventId = 4001, Level = LogLevel.Information, Message = "{Function} rejected a request with {Status} ({ProblemType}) at {JsonPath}")]
    public static partial void Rejected(ILogger logger, string function, int status, string problemType, string? jsonPath);

    [LoggerMessage(EventId = 4003, Level = LogLevel.Information, Message = "{Function}: client closed request before it was answered; nothing was signed")]
    public static partial void ClientClosedRequest(ILogger logger, string function);

    [LoggerMessage(EventId = 4002, Level = LogLevel.Information, Message = "{Function} signed {WidgetCount} widgets for {Receivers} (first receiver's key {KeyId})")]
    public static partial void Signed(ILogger logger, string function, int widgetCount, string receivers, string keyId);

    [LoggerMessage(EventId = 4010, Level = LogLevel.Information, Message = "{Function} verified {WidgetCount} widgets: valid {Valid} under key {KeyId} ({Reason})")]
    public static partial void Verified(ILogger logger, string function, int widgetCount, bool valid, string? keyId, string reason);
}
