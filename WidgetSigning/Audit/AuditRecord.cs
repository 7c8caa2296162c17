using System.Diagnostics;
using WidgetSigning.Callers;
using WidgetSigning.Signing;

namespace WidgetSigning.Audit;

/// <summary>
/// One audit record: who asked (a caller's identity, or a queue and message id), what for (each receiver and its key
/// version), what came of it, and which bytes (the <c>webhook-id</c>, widget count, canonical length and the SHA-256 of
/// the canonical bytes). Never key material, never envelope content. Written by <see cref="AuditLog"/>.
/// </summary>
internal sealed record AuditRecord
{
    /// <summary>The operation: <c>sign</c>, <c>verify</c>, <c>keys</c> or <c>queue-sign</c>.</summary>
    public required string Operation { get; init; }

    /// <summary>What it came to (<see cref="AuditOutcome"/>).</summary>
    public required string Outcome { get; init; }

    /// <summary>The HTTP status answered; 0 for a queue message.</summary>
    public int Status { get; init; }

    /// <summary>The problem type, or the rejection's reason, when refused; else empty.</summary>
    public string Problem { get; init; } = string.Empty;

    /// <summary>The caller, when its token was validated.</summary>
    public CallerIdentity? Caller { get; init; }

    /// <summary>The queue a message came from.</summary>
    public string? Queue { get; init; }

    /// <summary>The queue message's id.</summary>
    public string? MessageId { get; init; }

    /// <summary>The receivers asked for, comma-separated, when nothing was signed (the log names those signed for from <see cref="SignedReceivers"/>).</summary>
    public string Receivers { get; init; } = string.Empty;

    /// <summary>What was signed, when something was.</summary>
    public SignedEnvelope? Signed { get; init; }

    /// <summary>Each receiver with the key and algorithm that signed for it, when <see cref="Signed"/> is not given (a queue message).</summary>
    public IReadOnlyList<ReceiverSignature>? SignedBy { get; init; }

    /// <summary>Each receiver that was signed for, with its key and algorithm: <see cref="Signed"/>'s, else those given.</summary>
    public IReadOnlyList<ReceiverSignature> SignedReceivers => Signed?.Receivers ?? SignedBy ?? [];

    /// <summary>The widget count, when <see cref="Signed"/> is not given (verify, a queue message).</summary>
    public int? WidgetCount { get; init; }

    /// <summary>The <c>webhook-id</c>, when <see cref="Signed"/> is not given.</summary>
    public string? WebhookId { get; init; }

    /// <summary>The canonical length, when <see cref="Signed"/> is not given.</summary>
    public long? CanonicalLength { get; init; }

    /// <summary>The SHA-256 of the canonical bytes in lowercase hex, when <see cref="Signed"/> is not given.</summary>
    public string? CanonicalSha256 { get; init; }

    /// <summary>The trace the call or message ran in (an HTTP call without an activity: its trace identifier, as its problem document's <c>traceId</c>).</summary>
    public string TraceId { get; init; } = Activity.Current?.TraceId.ToHexString() ?? string.Empty;

    /// <summary>Each receiver of <paramref name="receivers"/> with the key version that signed, <c>receiver:keyId</c>, comma-separated.</summary>
    public static string ReceiversOf(IReadOnlyList<ReceiverSignature> receivers)
    {
        ArgumentNullException.ThrowIfNull(receivers);
        return string.Join(",", receivers.Select(r => $"{r.Receiver.Value}:{r.KeyId}"));
    }
}
