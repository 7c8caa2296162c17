namespace FunctionApp.Tests.Audit;

/// <summary>A <c>signed</c> line <see cref="SpecChainWriter"/> wrote: where it is and what <c>find</c> looks it up by.</summary>
public sealed record SpecRecord(string Stream, long Seq, string WebhookId, string CanonicalSha256);
