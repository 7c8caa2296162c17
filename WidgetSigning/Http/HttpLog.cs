using Microsoft.Extensions.Logging;

namespace WidgetSigning.Http;

/// <summary>Source-generated log messages of the HTTP adapters (event ids 4000–4099).</summary>
internal static partial class HttpLog
{
    /// <summary>A refusal: at the envelope's path that caused it (4001), or of the request as a whole (4004).</summary>
    public static void Rejected(ILogger logger, string function, int status, string problemType, string? jsonPath)
    {
        if (jsonPath is null)
        {
            RejectedRequest(logger, function, status, problemType);
        }
        else
        {
            RejectedAt(logger, function, status, problemType, jsonPath);
        }
    }

    [LoggerMessage(EventId = 4001, Level = LogLevel.Information, Message = "{Function} rejected a request with {Status} ({ProblemType}) at {JsonPath}")]
    private static partial void RejectedAt(ILogger logger, string function, int status, string problemType, string jsonPath);

    [LoggerMessage(EventId = 4004, Level = LogLevel.Information, Message = "{Function} rejected a request with {Status} ({ProblemType})")]
    private static partial void RejectedRequest(ILogger logger, string function, int status, string problemType);

    [LoggerMessage(EventId = 4003, Level = LogLevel.Information, Message = "{Function}: client closed request before it was answered; nothing was signed")]
    public static partial void ClientClosedRequest(ILogger logger, string function);

    [LoggerMessage(EventId = 4002, Level = LogLevel.Information, Message = "{Function} signed {WidgetCount} widgets for {Receivers} (first receiver's key {KeyId})")]
    public static partial void Signed(ILogger logger, string function, int widgetCount, string receivers, string keyId);

    [LoggerMessage(EventId = 4010, Level = LogLevel.Information, Message = "{Function} verified {WidgetCount} widgets: valid {Valid} under key {KeyId} ({Reason})")]
    public static partial void Verified(ILogger logger, string function, int widgetCount, bool valid, string? keyId, string reason);
}
