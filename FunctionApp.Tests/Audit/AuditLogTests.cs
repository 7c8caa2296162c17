using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging;
using WidgetSigning.Audit;
using WidgetSigning.Callers;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Audit;

/// <summary>Event 7001's text names what a record knows and omits what it does not; its fields keep every member.</summary>
public sealed class AuditLogTests
{
    [Fact]
    public void Write_RefusedWithoutAToken_NamesWhatIsKnownAndPrintsNoBlankFields()
    {
        // Arrange: a 401: no caller, no queue, nothing signed; the receiver asked for is known.
        using var logs = new CapturedLogs();
        using var factory = LoggerFactory.Create(b => b.AddProvider(logs));
        var record = new AuditRecord { Operation = "sign", Outcome = AuditOutcome.Refused, Status = 401, Problem = Problems.Types.Unauthenticated, Receivers = "partner-a", TraceId = "4bf92f3577b34da6a3ce929d0e0e4736" };

        // Act
        new AuditLog(factory).Write(record);

        // Assert
        var entry = Assert.Single(logs.Entries);
        Assert.Equal(AuditLog.EventId, entry.EventId.Id);
        Assert.Equal($"Audit sign refused 401 {Problems.Types.Unauthenticated}: receivers partner-a; trace 4bf92f3577b34da6a3ce929d0e0e4736", entry.Message);
        Assert.Equal(string.Empty, entry.State["CallerObjectId"]);
        Assert.Equal(string.Empty, entry.State["Queue"]);
        Assert.Equal(Problems.Types.Unauthenticated, entry.State["Problem"]);
    }

    [Fact]
    public void Write_SignedForACaller_NamesTheCallerReceiversAndBytes()
    {
        // Arrange
        using var logs = new CapturedLogs();
        using var factory = LoggerFactory.Create(b => b.AddProvider(logs));
        var record = new AuditRecord
        {
            Operation = "sign", Outcome = AuditOutcome.Signed, Status = 200, Caller = new CallerIdentity("oid-1", "app-1", "tid-1", []), Receivers = "partner-a:k1",
            WebhookId = "msg_1", WidgetCount = 2, CanonicalLength = 300, CanonicalSha256 = new string('a', 64), TraceId = "t1",
        };

        // Act
        new AuditLog(factory).Write(record);

        // Assert
        var entry = Assert.Single(logs.Entries);
        Assert.Equal($"Audit sign signed 200: caller oid-1 app app-1 tenant tid-1; receivers partner-a:k1; webhook-id msg_1, 2 widgets, 300 canonical bytes, SHA-256 {new string('a', 64)}; trace t1", entry.Message);
        Assert.Equal("oid-1", entry.State["CallerObjectId"]);
        Assert.Equal("msg_1", entry.State["WebhookId"]);
    }

    [Fact]
    public void Write_QueueMessageRejected_NamesTheQueueAndMessageButNoCaller()
    {
        // Arrange
        using var logs = new CapturedLogs();
        using var factory = LoggerFactory.Create(b => b.AddProvider(logs));
        var record = new AuditRecord { Operation = "queue-sign", Outcome = AuditOutcome.Rejected, Problem = "invalid-envelope", Queue = "widget-envelopes", MessageId = "m-1", TraceId = "t2" };

        // Act
        new AuditLog(factory).Write(record);

        // Assert
        Assert.Equal("Audit queue-sign rejected 0 invalid-envelope: queue widget-envelopes message m-1; trace t2", Assert.Single(logs.Entries).Message);
    }
}
