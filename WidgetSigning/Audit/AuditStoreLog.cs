using Microsoft.Extensions.Logging;

namespace WidgetSigning.Audit;

/// <summary>The audit store's events (7101-7107).</summary>
internal static partial class AuditStoreLog
{
    [LoggerMessage(EventId = 7101, Level = LogLevel.Error, Message = "Audit store write to {Stream} failed ({Failure}: {Reason}); signatures answer 503 audit-unavailable and queue messages are released until a write succeeds")]
    public static partial void StoreFailed(ILogger logger, string stream, string failure, string reason);

    [LoggerMessage(EventId = 7102, Level = LogLevel.Information, Message = "Audit store written again after {Failures} failed writes")]
    public static partial void StoreRecovered(ILogger logger, int failures);

    [LoggerMessage(EventId = 7103, Level = LogLevel.Information, Message = "Audit stream {Stream} opened after {PrevStream}")]
    public static partial void StreamOpened(ILogger logger, string stream, string prevStream);

    [LoggerMessage(EventId = 7104, Level = LogLevel.Information, Message = "Audit anchor {Anchor} holds {Stream} position {Seq}")]
    public static partial void Anchored(ILogger logger, string anchor, string stream, long seq);

    [LoggerMessage(EventId = 7105, Level = LogLevel.Warning, Message = "Audit anchor could not be written ({Failure}: {Reason}); tried again at the next interval")]
    public static partial void AnchorFailed(ILogger logger, string failure, string reason);

    [LoggerMessage(EventId = 7106, Level = LogLevel.Warning, Message = "Audit:Disabled is set: no signature has a durable record. Development only")]
    public static partial void StoreDisabled(ILogger logger);

    [LoggerMessage(EventId = 7107, Level = LogLevel.Information, Message = "Audit trail key {Kid} (public key {PublicKey}) signs process {Process}'s writes and anchors")]
    public static partial void KeyInUse(ILogger logger, string kid, string publicKey, string process);
}
